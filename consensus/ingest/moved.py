"""Moved code: lines the change removed in one place and added, unchanged but for
whitespace, in another, as git's `--color-moved` finds them (with
`--color-moved-ws=ignore-all-space`). A finding on such lines is about code the pull
request did not write.

A moved block is a run of consecutive added lines whose text, all whitespace ignored,
equals a run of consecutive removed lines anywhere in the diff (another file, another
hunk of the same file, or a file the change deletes), of at least MIN_LINES lines and
MIN_ALNUM alphanumeric characters (git's threshold, so that three closing brackets are not
a move). Matching is greedy from the top of each added run: the longest removed run that
matches from a line wins. Pure; the same diff gives the same blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consensus.model.diff import ChangedFile, DiffLine, Hunk, MovedLines

MIN_LINES = 3
MIN_ALNUM = 20


@dataclass(frozen=True)
class _Run:
    """Consecutive removed (or added) lines of one hunk, whitespace taken out."""

    path: str
    keys: tuple[str, ...]
    lines: tuple[int, ...]  # old-side numbers of removed lines, new-side of added ones


def _key(text: str) -> str:
    return "".join(text.split())


def _runs(path: str, hunks: Sequence[Hunk], kind: str) -> list[_Run]:
    runs: list[_Run] = []
    current: list[DiffLine] = []
    for hunk in hunks:
        for line in (*hunk.lines, None):
            if line is not None and line.kind == kind:
                current.append(line)
                continue
            if current:
                numbers = [(n.old_line if kind == "-" else n.new_line) or 0 for n in current]
                runs.append(_Run(path, tuple(_key(n.text) for n in current), tuple(numbers)))
                current = []
    return runs


def _match(added: _Run, at: int, removed: Sequence[_Run]) -> tuple[int, _Run | None, int]:
    """The longest removed run matching `added` from line `at`: (length, run, its start)."""
    best, where, start = 0, None, 0
    key = added.keys[at]
    for run in removed:
        for position, candidate in enumerate(run.keys):
            if candidate != key:
                continue
            length = 0
            while (
                at + length < len(added.keys)
                and position + length < len(run.keys)
                and added.keys[at + length] == run.keys[position + length]
            ):
                length += 1
            if length > best:
                best, where, start = length, run, position
    return best, where, start


def moved_blocks(
    files: Sequence[ChangedFile], deleted: Sequence[tuple[str, Sequence[Hunk]]] = ()
) -> tuple[MovedLines, ...]:
    """Every moved block of the diff's `files` (and what `deleted` files removed), in
    diff order."""
    removed = [run for f in files for run in _runs(f.old_path or f.path, f.hunks, "-")]
    removed += [run for path, hunks in deleted for run in _runs(path, hunks, "-")]
    blocks = []
    for changed in files:
        for added in _runs(changed.path, changed.hunks, "+"):
            at = 0
            while at < len(added.keys):
                length, run, start = _match(added, at, removed) if added.keys[at] else (0, None, 0)
                text = "".join(added.keys[at : at + length])
                if run is not None and length >= MIN_LINES and _alnum(text) >= MIN_ALNUM:
                    blocks.append(
                        MovedLines(
                            path=changed.path,
                            line=added.lines[at],
                            end_line=added.lines[at + length - 1],
                            from_path=run.path,
                            from_line=run.lines[start],
                        )
                    )
                    at += length
                else:
                    at += 1
    return tuple(blocks)


def _alnum(text: str) -> int:
    return sum(ch.isalnum() for ch in text)
