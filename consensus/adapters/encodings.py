"""tiktoken's encodings, built from a local copy of what they are made of.

Building an encoding parses tiktoken's rank file (o200k_base: 200,000 base64 lines): about
a third of a dry run's second. The first build writes the encoding's pattern, ranks and
special tokens to a cache folder with `marshal` (as Python caches bytecode); a later build
reads them back in a fraction of the time. A copy is named by the encoding, tiktoken's
version and `FORMAT`; one that cannot be read is ignored, built afresh and written again.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from pathlib import Path
from typing import Any

FORMAT = 1  # of the cached copy


def load_encoding(name: str, cache: Path | None) -> Any:
    """tiktoken's encoding `name`: from `cache` when a copy is there, else built (and copied)."""
    import tiktoken

    path = None if cache is None else cache / f"{name}-tiktoken-{tiktoken.__version__}-{FORMAT}"
    if path is not None:
        parts = _read(path)
        if parts is not None:
            return tiktoken.Encoding(name=name, **parts)
    encoding = tiktoken.get_encoding(name)
    if path is not None:
        _write(path, encoding)
    return encoding


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    keys = {"pat_str": str, "mergeable_ranks": dict, "special_tokens": dict}
    if not isinstance(data, dict) or any(not isinstance(data.get(k), t) for k, t in keys.items()):
        return None
    return {key: data[key] for key in keys}


def _write(path: Path, encoding: Any) -> None:
    """What `encoding` is made of (tiktoken pickles the same three), or nothing when this
    tiktoken keeps them otherwise. Written whole or not at all: readers may be running."""
    parts = {
        "pat_str": getattr(encoding, "_pat_str", None),
        "mergeable_ranks": getattr(encoding, "_mergeable_ranks", None),
        "special_tokens": getattr(encoding, "_special_tokens", None),
    }
    if any(value is None for value in parts.values()):
        return
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(marshal.dumps(parts))
        os.replace(temporary, path)
    with contextlib.suppress(OSError):
        temporary.unlink(missing_ok=True)
