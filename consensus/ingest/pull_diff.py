"""A pull request's diff as the host lists it → the unified diff that ingest parses.

GitHub lists each changed file with its `patch` (the hunks), at most 3,000 files, and
omits the patch of very large files (and of binary ones). Coverage is reported honestly:
an omitted patch is taken from the checkout's git history when the Action has one
(`fallback`), else the file is listed as skipped with the reason. Pure: the git diff, if
any, is read at the edge and passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from consensus.ingest.hunks import Hunks, right_side_hunks
from consensus.model.diff import ReviewDiff, SkippedFile
from consensus.ports import PullFile, PullReader

OMITTED_PATCH = "GitHub omitted the patch (file too large) and no checkout was available"
_SECTION = re.compile(r"^diff --git ", re.MULTILINE)


class PullDiff:
    """The raw diff to ingest, plus what ingest cannot know: skipped files and notes."""

    def __init__(self, text: str, skipped: Sequence[SkippedFile], notes: Sequence[str]) -> None:
        self.text = text
        self.skipped = tuple(skipped)
        self.notes = tuple(notes)


def _header(item: PullFile) -> list[str]:
    old = item.previous_path or item.path
    lines = [f"diff --git a/{old} b/{item.path}"]
    if item.status == "added":
        return [*lines, "new file mode 100644", "--- /dev/null", f"+++ b/{item.path}"]
    if item.status == "removed":
        return [*lines, "deleted file mode 100644", f"--- a/{item.path}", "+++ /dev/null"]
    if item.status in ("renamed", "copied") and item.previous_path:
        verb = "rename" if item.status == "renamed" else "copy"
        lines += [f"{verb} from {old}", f"{verb} to {item.path}"]
    return [*lines, f"--- a/{old}", f"+++ b/{item.path}"]


def git_sections(raw: str) -> dict[str, str]:
    """path (new side) → its section of a `git diff` output."""
    sections: dict[str, str] = {}
    starts = [m.start() for m in _SECTION.finditer(raw)]
    for start, end in zip(starts, [*starts[1:], len(raw)], strict=True):
        section = raw[start:end]
        first = section.split("\n", 1)[0]
        match = re.search(r" b/(.+)$", first)
        if match:
            sections[match.group(1)] = section.rstrip("\n")
    return sections


def build_pull_diff(
    files: Sequence[PullFile],
    *,
    changed_files: int,
    fallback: Callable[[], Mapping[str, str] | None] = lambda: None,
) -> PullDiff:
    """Assemble the diff; `fallback()` gives the checkout's git diff sections (read once)."""
    parts: list[str] = []
    skipped: list[SkippedFile] = []
    notes: list[str] = []
    sections: Mapping[str, str] | None = None
    recovered = 0
    for item in files:
        if item.patch is not None or item.status == "removed":
            parts += [*_header(item), *([item.patch] if item.patch else [])]
            continue
        if item.additions == 0 and item.deletions == 0:
            if item.status in ("renamed", "copied", "added"):
                parts += _header(item)[:-2]  # a pure rename, an empty new file: headers only
            else:
                binary = f"Binary files a/{item.path} and b/{item.path} differ"
                parts += [*_header(item)[:1], binary]
            continue
        if sections is None:
            sections = fallback() or {}
        section = sections.get(item.path)
        if section is None:
            skipped.append(SkippedFile(path=item.path, reason=OMITTED_PATCH))
        else:
            parts.append(section)
            recovered += 1
    if recovered:
        notes.append(
            f"{recovered} file{'s' if recovered > 1 else ''} whose patch GitHub omitted "
            "(too large) reviewed from the checkout's git history"
        )
    if changed_files > len(files):
        missing = changed_files - len(files)
        notes.append(
            f"GitHub lists at most {len(files)} files of a pull request: {missing} more "
            "changed files were not reviewed"
        )
    text = "\n".join(parts) + "\n" if parts else ""
    return PullDiff(text, skipped, notes)


def review_hunks(diff: ReviewDiff) -> Hunks:
    """Commentable new-side lines per hunk of the ingested diff."""
    return {
        changed.path: [
            frozenset(line.new_line for line in hunk.lines if line.new_line is not None)
            for hunk in changed.hunks
        ]
        for changed in diff.files
    }


def host_hunks(files: Sequence[PullFile]) -> Hunks:
    """Commentable lines per hunk as GitHub's own patches show them (422 diagnosis)."""
    return {item.path: right_side_hunks(item.patch) for item in files if item.patch}


class ContentsSource:
    """`SourceReader` over the host's contents API at one ref, each file read once."""

    def __init__(self, host: PullReader, ref: str) -> None:
        self._host = host
        self._ref = ref
        self._cache: dict[str, str | None] = {}

    def read(self, path: str) -> str | None:
        if path not in self._cache:
            self._cache[path] = self._host.read_file(path, self._ref)
        return self._cache[path]
