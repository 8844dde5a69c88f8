"""Ingest's output: the changed files of a diff, and the chunks they are reviewed in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from consensus.model.base import FileStatus, Frozen


class DiffLine(Frozen):
    """One line of a hunk. `new_line` is set for added and context lines."""

    kind: Literal["+", "-", " "]
    text: str
    old_line: int | None = None
    new_line: int | None = None
    no_newline: bool = False  # git's "\\ No newline at end of file" follows this line


class Hunk(Frozen):
    old_start: int
    old_length: int
    new_start: int
    new_length: int
    section: str = ""
    lines: tuple[DiffLine, ...] = ()


class ChangedFile(Frozen):
    """A reviewable file of the diff, as the new side sees it."""

    path: str
    old_path: str | None = None  # set for renames
    status: FileStatus
    hunks: tuple[Hunk, ...] = ()
    added: int = 0
    removed: int = 0

    @property
    def commentable_lines(self) -> frozenset[int]:
        """New-side lines present in the diff (added or context): where a comment may go."""
        return frozenset(
            line.new_line for hunk in self.hunks for line in hunk.lines if line.new_line is not None
        )

    @property
    def added_lines(self) -> frozenset[int]:
        return frozenset(
            line.new_line
            for hunk in self.hunks
            for line in hunk.lines
            if line.kind == "+" and line.new_line is not None
        )


class SkippedFile(Frozen):
    """A file of the diff that no model sees, and why (binary, lockfile, excluded …)."""

    path: str
    reason: str


class Redaction(Frozen):
    """A secret replaced before any provider saw the diff. Never holds the value."""

    path: str
    line: int | None
    kind: str
    added: bool = False  # on a line the change adds: a credential this change commits


class LinkChange(Frozen):
    """A symbolic link the diff adds, retargets or removes (skipped from review as `symlink`).
    `target` is the new side's target, None when the link is removed."""

    path: str
    target: str | None = None
    old_target: str | None = None


class MovedLines(Frozen):
    """New-side lines `line`..`end_line` of `path` that the change moved there, unchanged
    but for whitespace, from `from_line` of `from_path` (ingest/moved.py)."""

    path: str
    line: int
    end_line: int
    from_path: str
    from_line: int

    def holds(self, path: str, line: int, end_line: int) -> bool:
        return path == self.path and self.line <= line and end_line <= self.end_line


def moved_from(moved: Sequence[MovedLines], path: str, line: int, end_line: int) -> str | None:
    """Where lines `line`..`end_line` of `path` were moved from ("src/old.py:12") when one
    moved block holds them all: code the pull request did not write. None otherwise."""
    block = next((m for m in moved if m.holds(path, line, end_line)), None)
    if block is None:
        return None
    return f"{block.from_path}:{block.from_line + line - block.line}"


class ReviewDiff(Frozen):
    """The ingested diff: what is reviewed, what is skipped, what was redacted, and which
    added lines were only moved."""

    files: tuple[ChangedFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    redactions: tuple[Redaction, ...] = ()
    links: tuple[LinkChange, ...] = ()
    moved: tuple[MovedLines, ...] = ()

    def file(self, path: str) -> ChangedFile | None:
        for changed in self.files:
            if changed.path == path:
                return changed
        return None


class ChunkPart(Frozen):
    """A file, or a slice of its hunks, inside a chunk."""

    path: str
    hunks: tuple[int, ...]  # indexes into ChangedFile.hunks
    whole: bool = True  # False when the file was split across chunks


class Chunk(Frozen):
    """What one call shows one provider: whole files where they fit."""

    index: int
    parts: tuple[ChunkPart, ...]
    tokens: int

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(part.path for part in self.parts)
