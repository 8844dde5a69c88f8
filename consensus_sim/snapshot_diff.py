"""What changed between two snapshots of a repository (path → text), for the simulated hosts'
diffs of commits that no git repository stands behind."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

# `git diff` as both hosts run it for a pull/merge request's files: three lines of context,
# renames found, no colour or external tool
GIT_DIFF = ("diff", "--no-color", "--no-ext-diff", "-U3", "-M")


def changed_files(
    before: dict[str, str], after: dict[str, str]
) -> Iterator[tuple[str, str | None, str | None, list[str]]]:
    """Each path whose text differs, in path order: its text before and after (None: the
    file is not there) and its unified diff lines (three of context), without the header."""
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        lines = difflib.unified_diff(
            (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True), n=3
        )
        yield path, old, new, list(lines)[2:]
