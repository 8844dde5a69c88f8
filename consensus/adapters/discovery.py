"""Find a local Ollama server when no providers are configured (an edge: it does I/O)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping

DEFAULT_OLLAMA = "http://localhost:11434"


def ollama_base(env: Mapping[str, str]) -> str:
    host = env.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA
    return host if "://" in host else f"http://{host}"


def ollama_models(env: Mapping[str, str], timeout_s: float = 0.5) -> tuple[str, ...]:
    """Model names a local Ollama server offers; empty when none answers quickly."""
    try:
        with urllib.request.urlopen(f"{ollama_base(env)}/api/tags", timeout=timeout_s) as reply:
            data = json.load(reply)
    except (OSError, urllib.error.URLError, ValueError):
        return ()
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        return ()
    names = [m.get("name") for m in models if isinstance(m, dict)]
    return tuple(sorted(n for n in names if isinstance(n, str) and n))
