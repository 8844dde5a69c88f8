"""Which RIGHT-side lines of a file's patch GitHub accepts comments on."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
Hunks = Mapping[str, Sequence[frozenset[int]]]  # path → commentable new-side lines per hunk


def right_side_hunks(patch: str) -> list[frozenset[int]]:
    """New-side lines of each hunk of a GitHub `patch`: where a review comment may go."""
    hunks: list[frozenset[int]] = []
    current: set[int] | None = None
    line = 0
    for text in patch.split("\n"):
        header = _HUNK.match(text)
        if header:
            if current is not None:
                hunks.append(frozenset(current))
            current, line = set(), int(header.group(1))
        elif current is not None and text[:1] in (" ", "+", ""):
            if text == "" and line == 0:
                continue
            current.add(line)
            line += 1
    if current is not None:
        hunks.append(frozenset(current))
    return hunks
