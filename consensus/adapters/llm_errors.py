"""Why a provider could not be reached, in words a user can act on.

litellm wraps a network failure in its own classes, several layers deep, with the HTTP
library's text (an SSLContext repr, "Handle with litellm.InternalServerError"); the cause
is still at the bottom of the exception chain, as a standard exception. This module walks
the chain and names it: `cannot resolve HOST`, `connection refused at URL`, `TLS error`,
and a `fix` for each. Decided on exception types, never on message text.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from consensus.model.base import FailureKind
from consensus.ports import ModelCallError

DEFAULT_ENDPOINT = "the provider's default endpoint"
# Where litellm sends a route's calls when no api_base is set: named in the error, so a
# DNS failure reads "cannot resolve api.openai.com", not "the provider's default endpoint".
DEFAULT_BASES = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "mistral": "https://api.mistral.ai/v1",
    "deepseek": "https://api.deepseek.com",
    "xai": "https://api.x.ai/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "groq": "https://api.groq.com/openai/v1",
    "ollama": "http://localhost:11434",
    "ollama_chat": "http://localhost:11434",
}


def causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then what caused it, to the bottom of the chain (each once)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def timed_out(timeout_s: float) -> ModelCallError:
    return ModelCallError(
        FailureKind.TIMEOUT,
        f"timed out after {timeout_s:g} s",
        fix="raise timeout_s for this provider in .consensus.yml, or check that it is not "
        "overloaded",
    )


def unreachable_error(
    exc: BaseException, api_base: str | None, model: str = ""
) -> ModelCallError | None:
    """A ModelCallError naming why the endpoint could not be reached; None when the chain
    holds no network cause (the provider answered, with an error of its own). Without an
    `api_base`, the endpoint is the `model`'s route's default where it is known."""
    base = api_base or DEFAULT_BASES.get(model.split("/", 1)[0])
    url = base or DEFAULT_ENDPOINT
    host = urlsplit(base).hostname if base else None
    where = "the host name in api_base" if api_base else "that this machine can reach it"
    # The deepest cause is the standard one (aiohttp's TLS error subclasses ssl.SSLError
    # too, without its fields).
    for cause in reversed(list(causes(exc))):
        if isinstance(cause, socket.gaierror):
            return ModelCallError(
                FailureKind.CONNECTION,
                f"cannot resolve {host or url}",
                fix=f"check {where}: its DNS, its network, a proxy it needs",
            )
        if isinstance(cause, ConnectionRefusedError):
            return ModelCallError(
                FailureKind.CONNECTION,
                f"connection refused at {url}",
                fix="start the server, or correct the port in api_base",
            )
        if isinstance(cause, ssl.SSLError):
            reason = cause.reason or type(cause).__name__
            return ModelCallError(
                FailureKind.CONNECTION,
                f"TLS error talking to {url} ({reason})",
                fix="use http:// for a server without TLS; for a private CA, set "
                "SSL_CERT_FILE to its certificate",
            )
    return None


def retry_after(exc: Exception) -> float | None:
    candidates: list[Any] = [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]
    for headers in candidates:
        if not headers:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except (TypeError, ValueError):
            continue  # an HTTP date: fall back to our own backoff
    return None


def short(exc: Exception, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
