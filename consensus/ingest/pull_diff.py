"""A pull request's diff as the host lists it → the unified diff that ingest parses.

GitHub lists each changed file with its `patch` (the hunks), at most 3,000 files, and
omits the patch of very large files (and of binary ones). It never says a file's mode, so
a symbolic link or a submodule looks like a one-line text file there. Where that matters
(an omitted patch; a one-line patch, which may be a link's target or a submodule's
commit) the file's section of the checkout's own `git diff` is used when the Action has
one (`fallback`): git's header says what the file is. An omitted patch the checkout cannot
give is listed as skipped with the reason. Headers are written with git's quoting, so any
name (`plan b/x.py`, quotes, backslashes) reads back as it was. Pure: the git diff, if
any, is read at the edge and passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from consensus.ingest.git_names import quote_path
from consensus.ingest.hunks import Hunks, right_side_hunks
from consensus.ingest.parse import git_section_paths
from consensus.model.diff import Hunk, ReviewDiff, SkippedFile
from consensus.ports import PullFile, PullReader

OMITTED_PATCH = "GitHub omitted the patch (file too large)"
NO_CHECKOUT = (
    f"{OMITTED_PATCH} and the checkout does not hold both commits to take it from git "
    "(check out with fetch-depth: 0)"
)
NOT_IN_CHECKOUT = f"{OMITTED_PATCH} and the checkout's git diff of the PR does not show it"
MODE_ONLY = "mode change only"
# A patch of one line on each side at most: what GitHub shows for a link or a submodule.
_ONE_LINE = re.compile(r"^@@ -\d+(?:,[01])? \+\d+(?:,[01])? @@[^\n]*(?:\n[^\n]*){1,2}$")


class PullDiff:
    """The raw diff to ingest, plus what ingest cannot know: skipped files and notes."""

    def __init__(self, text: str, skipped: Sequence[SkippedFile], notes: Sequence[str]) -> None:
        self.text = text
        self.skipped = tuple(skipped)
        self.notes = tuple(notes)


def _header(item: PullFile) -> list[str]:
    old = item.previous_path or item.path
    a, b = quote_path(f"a/{old}"), quote_path(f"b/{item.path}")
    lines = [f"diff --git {a} {b}"]
    if item.status == "added":
        return [*lines, "new file mode 100644", "--- /dev/null", f"+++ {b}"]
    if item.status == "removed":
        return [
            *lines,
            "deleted file mode 100644",
            f"--- {quote_path(f'a/{item.path}')}",
            "+++ /dev/null",
        ]
    if item.status in ("renamed", "copied") and item.previous_path:
        verb = "rename" if item.status == "renamed" else "copy"
        lines += [f"{verb} from {quote_path(old)}", f"{verb} to {quote_path(item.path)}"]
    return [*lines, f"--- {a}", f"+++ {b}"]


def git_sections(raw: str) -> dict[str, str]:
    """path → its section of a `git diff` output (names read by git's rules)."""
    return git_section_paths(raw)


def _needs_git_header(item: PullFile) -> bool:
    """Only git's own header can say what this file is: its patch was omitted, or it is a
    one-line change (a link's target, a submodule's commit, or just one line of text)."""
    return item.patch is None or bool(_ONE_LINE.match(item.patch.rstrip("\n")))


def build_pull_diff(
    files: Sequence[PullFile],
    *,
    changed_files: int,
    fallback: Callable[[], Mapping[str, str] | None] = lambda: None,
) -> PullDiff:
    """Assemble the diff; `fallback()` gives the checkout's git diff sections (read once,
    when a file needs them; None when the checkout cannot give them)."""
    parts: list[str] = []
    skipped: list[SkippedFile] = []
    notes: list[str] = []
    checkout: list[Mapping[str, str] | None] = []
    recovered = 0

    def section_of(path: str) -> str | None:
        if not checkout:
            checkout.append(fallback())
        return (checkout[0] or {}).get(path)

    for item in files:
        section = (
            section_of(item.path) if item.status != "removed" and _needs_git_header(item) else None
        )
        if section is not None:
            parts.append(section)
            recovered += item.patch is None and (item.additions > 0 or item.deletions > 0)
        elif item.patch is not None or item.status == "removed":
            parts += [*_header(item), *([item.patch] if item.patch else [])]
        elif item.additions == 0 and item.deletions == 0:
            if item.status in ("renamed", "copied", "added"):
                parts += _header(item)[:-2]  # a pure rename, an empty new file: headers only
            elif item.status == "changed":
                skipped.append(SkippedFile(path=item.path, reason=MODE_ONLY))
            else:
                a, b = quote_path(f"a/{item.path}"), quote_path(f"b/{item.path}")
                parts += [*_header(item)[:1], f"Binary files {a} and {b} differ"]
        else:
            reason = NOT_IN_CHECKOUT if checkout and checkout[0] is not None else NO_CHECKOUT
            skipped.append(SkippedFile(path=item.path, reason=reason))
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
    """Commentable new-side lines per hunk of the ingested diff, a hunk that ingest cut to
    fit a prompt counted whole again (the host's patch shows it whole); a link's target is
    line 1 of its file on GitHub, where consensus's own finding about the link may go."""
    hunks: dict[str, list[frozenset[int]]] = {
        link.path: [frozenset({1})] for link in diff.links if link.target is not None
    }
    hunks.update({changed.path: _whole_hunks(changed.hunks) for changed in diff.files})
    return hunks


def _whole_hunks(hunks: Sequence[Hunk]) -> list[frozenset[int]]:
    """New-side lines per hunk, the pieces of a cut hunk (each starts where the last ended,
    on both sides: git never writes two hunks that touch) joined."""
    joined: list[set[int]] = []
    previous: Hunk | None = None
    for hunk in hunks:
        lines = {line.new_line for line in hunk.lines if line.new_line is not None}
        touches = previous is not None and (
            hunk.old_start == previous.old_start + previous.old_length
            and hunk.new_start == previous.new_start + previous.new_length
        )
        if touches:
            joined[-1] |= lines
        else:
            joined.append(lines)
        previous = hunk
    return [frozenset(lines) for lines in joined]


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
