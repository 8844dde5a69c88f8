"""Where an inline comment lands on a GitLab merge request: its `position`. Pure.

GitLab places a diff note by a position of `position_type: text` that names the diff
version (`base_sha`, `start_sha`, `head_sha`), the file (`old_path`, `new_path`) and the
line the way its diff shows it:

- an added line by `new_line` alone;
- a deleted line by `old_line` alone;
- an unchanged (context) line by both;
- a multi-line comment by `line_range`, its `start` and `end` each a line of the same
  hunk named by `line_code` (`<SHA-1 of the path>_<old>_<new>`, both counters as GitLab's
  diff parser keeps them, also for an added or a deleted line) and `type` (`new` for an
  added line, `old` otherwise), the position's own line being the range's end.

A position on a line that is not in the diff is refused by GitLab (HTTP 400), so every
position is built from the diff version's own diff text, and a line that is not in it is
a `PositionError` naming the file and the line: nothing is sent.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal

HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
Side = Literal["RIGHT", "LEFT"]  # RIGHT: the new version of the file; LEFT: the old one


class PositionError(ValueError):
    """The comment cannot be placed on the diff (GitLab would answer 400)."""


@dataclass(frozen=True)
class DiffRefs:
    """The three commits of one diff version of a merge request."""

    base_sha: str
    start_sha: str
    head_sha: str


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff: its kind, GitLab's two counters, and its hunk (0-based)."""

    kind: Literal["added", "deleted", "context"]
    old_pos: int
    new_pos: int
    hunk: int

    @property
    def old_line(self) -> int | None:
        return None if self.kind == "added" else self.old_pos

    @property
    def new_line(self) -> int | None:
        return None if self.kind == "deleted" else self.new_pos


def diff_lines(diff: str) -> list[DiffLine]:
    """Every added, deleted and context line of a file's diff text (GitLab's `diff` field:
    hunks only, no `---`/`+++` header), counted as GitLab's parser counts them."""
    lines: list[DiffLine] = []
    old = new = 0
    hunk = -1
    for text in diff.rstrip("\n").split("\n") if diff else []:
        match = HUNK.match(text)
        if match:
            old, new, hunk = int(match.group(1)), int(match.group(2)), hunk + 1
            continue
        if hunk < 0 or text.startswith("\\"):  # before a hunk, or "\ No newline at end of file"
            continue
        if text.startswith("+"):
            lines.append(DiffLine("added", old, new, hunk))
            new += 1
        elif text.startswith("-"):
            lines.append(DiffLine("deleted", old, new, hunk))
            old += 1
        else:
            lines.append(DiffLine("context", old, new, hunk))
            old, new = old + 1, new + 1
    return lines


def line_code(path: str, line: DiffLine) -> str:
    """GitLab's name of a diff line: the path's SHA-1 and both counters."""
    return f"{hashlib.sha1(path.encode('utf-8')).hexdigest()}_{line.old_pos}_{line.new_pos}"


def find_line(lines: list[DiffLine], number: int, side: Side) -> DiffLine | None:
    """The diff line shown as `number` on `side`: a new-side line (added or context) for
    RIGHT, an old-side line (deleted or context) for LEFT."""
    for line in lines:
        shown = line.new_line if side == "RIGHT" else line.old_line
        if shown == number:
            return line
    return None


def text_position(
    refs: DiffRefs,
    old_path: str,
    new_path: str,
    diff: str,
    *,
    line: int,
    start_line: int | None = None,
    side: Side = "RIGHT",
) -> dict[str, Any]:
    """The `position` of a comment on `line` (or `start_line`..`line`) of one file's diff."""
    lines = diff_lines(diff)
    end = find_line(lines, line, side)
    if end is None:
        raise PositionError(f"{new_path}: line {line} ({side}) is not in the merge request's diff")
    position: dict[str, Any] = {
        "position_type": "text",
        "base_sha": refs.base_sha,
        "start_sha": refs.start_sha,
        "head_sha": refs.head_sha,
        "old_path": old_path,
        "new_path": new_path,
        **_line_numbers(end),
    }
    if start_line is None or start_line >= line:
        return position
    start = find_line(lines, start_line, side)
    if start is None or start.hunk != end.hunk:
        raise PositionError(
            f"{new_path}: lines {start_line}-{line} ({side}) are not in one hunk of the diff"
        )
    position["line_range"] = {
        "start": _range_end(new_path, start),
        "end": _range_end(new_path, end),
    }
    return position


def _line_numbers(line: DiffLine) -> dict[str, int]:
    numbers = {"old_line": line.old_line, "new_line": line.new_line}
    return {key: value for key, value in numbers.items() if value is not None}


def _range_end(path: str, line: DiffLine) -> dict[str, Any]:
    return {
        "line_code": line_code(path, line),
        "type": "new" if line.kind == "added" else "old",
        **_line_numbers(line),
    }
