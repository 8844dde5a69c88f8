"""An endpoint that cannot be reached is named in words, with the host a user can check."""

from __future__ import annotations

import socket

from consensus.adapters.llm_errors import unreachable_error
from consensus.model.base import FailureKind


def dns_failure() -> Exception:
    """As litellm raises it: its own error, the resolver's at the bottom of the chain."""
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as cause:
            raise ConnectionError("Cannot connect to host") from cause
    except ConnectionError as exc:
        return exc


def test_without_api_base_the_routes_own_host_is_named() -> None:
    error = unreachable_error(dns_failure(), None, "openai/gpt-5.1")
    assert error is not None and error.kind is FailureKind.CONNECTION
    assert error.message == "cannot resolve api.openai.com"
    assert error.fix is not None and "api_base" not in error.fix


def test_with_api_base_its_host_is_named_and_the_fix_points_at_it() -> None:
    error = unreachable_error(dns_failure(), "https://llm.corp.example/v1", "openai/gpt-5.1")
    assert error is not None
    assert error.message == "cannot resolve llm.corp.example"
    assert error.fix is not None and "api_base" in error.fix


def test_an_unknown_route_without_api_base_says_the_default_endpoint() -> None:
    error = unreachable_error(dns_failure(), None, "bedrock/anthropic.claude-v2")
    assert error is not None
    assert error.message == "cannot resolve the provider's default endpoint"


def test_a_provider_that_answered_with_an_error_is_not_unreachable() -> None:
    assert unreachable_error(ValueError("400 Bad Request"), None, "openai/gpt-5.1") is None
