"""Shared test setup: litellm never fetches its price map, no test touches the real journal."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from consensus.sim.github_server import FakeGitHub
from tests.github_openapi import description, problems_of

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


@pytest.fixture(autouse=True)
def _journal_in_tmp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONSENSUS_HOME", str(tmp_path_factory.mktemp("consensus-home")))


@pytest.fixture(autouse=True)
def _github_requests_conform_to_github(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every loopback GitHub a test starts is checked when the test ends: each request our
    adapter sent must be one GitHub's OpenAPI description accepts, and each answer of the
    fake one GitHub could give (tests/github_openapi.py; nothing is checked where the npm
    package is not installed, and tests/test_github_openapi.py then skips, saying why)."""
    started: list[FakeGitHub] = []
    start = FakeGitHub.start

    def recording_start(server: FakeGitHub) -> FakeGitHub:
        started.append(server)
        return start(server)

    monkeypatch.setattr(FakeGitHub, "start", recording_start)
    yield
    github = description() if started else None
    if github is not None:
        problems = problems_of([r for server in started for r in server.requests], github)
        assert not problems, "GitHub's OpenAPI description disagrees:\n" + "\n".join(problems)
