"""Path audit: a model's findings → Finding anchored on the diff, or DroppedFinding.

Rules, applied to each reply finding in order:

1. path: must name a file of the reviewed chunk. A leading "/", "./", and one git
   "a/" or "b/" prefix are forgiven; otherwise the match is exact.
2. evidence (when it has 3+ non-space characters): must occur, whitespace-normalized,
   in the file's diff (new side, removed lines, or the raw diff lines); otherwise the
   model invented code and the finding is dropped.
3. anchor: end_line defaults to line; a reversed range is swapped. When the evidence
   is on the new side, the finding moves to the occurrence nearest the reported line
   (unless the reported range already holds it). Otherwise a line outside the diff
   snaps to the nearest commentable line within 3 (ties → lower), else to the first
   commentable line inside the reported range, else the finding is dropped.
4. end_line is clamped so the range stays on commentable lines of the anchor's hunk.

A kept finding keeps the lines the model named (`reported_line`): whether the claim is
grounded there, not where the audit moved it, is review/grounding.py's question.

Pure and deterministic: same reply and diff, same result.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from consensus.decide.quotes import QuotedRun, needles
from consensus.model.diff import ChangedFile, ReviewDiff
from consensus.model.findings import DroppedFinding, Finding, Suggestion
from consensus.model.reply import ReplyFinding, ReviewReply

SNAP_DISTANCE = 3
DROPPED_TITLE_CHARS = 100

PATH_NOT_IN_CHUNK = "path not in the reviewed chunk"
PATH_NOT_IN_DIFF = "path not in the diff"
EVIDENCE_NOT_FOUND = "evidence not found in the diff"


def audit(
    reply: ReviewReply,
    *,
    diff: ReviewDiff,
    chunk_paths: Sequence[str],
    provider: str,
    family: str,
    persona: str,
    chunk: int,
) -> tuple[list[Finding], list[DroppedFinding]]:
    """Split a reply's findings into kept (re-anchored) and dropped (with a reason)."""
    files = {changed.path: changed for changed in diff.files}
    in_chunk = frozenset(path for path in chunk_paths if path in files)
    views: dict[str, _FileView] = {}
    kept: list[Finding] = []
    dropped: list[DroppedFinding] = []

    def drop(item: ReplyFinding, path: str, line: int, reason: str) -> None:
        title = item.title
        if len(title) > DROPPED_TITLE_CHARS:
            title = title[: DROPPED_TITLE_CHARS - 1] + "…"
        dropped.append(
            DroppedFinding(
                provider=provider, persona=persona, path=path, line=line, title=title, reason=reason
            )
        )

    for item in reply.findings:
        flag = red_flag(item)
        if flag is not None:
            drop(item, item.path, item.line, flag)
            continue
        path = _resolve(item.path, in_chunk)
        if path is None:
            known = any(candidate in files for candidate in _path_candidates(item.path))
            drop(item, item.path, item.line, PATH_NOT_IN_CHUNK if known else PATH_NOT_IN_DIFF)
            continue
        if path not in views:
            views[path] = _FileView.of(files[path])
        anchored = _anchor(item, views[path])
        if isinstance(anchored, str):
            drop(item, path, item.line, anchored)
            continue
        line, end_line = anchored
        kept.append(
            Finding(
                provider=provider,
                family=family,
                persona=persona,
                chunk=chunk,
                path=path,
                line=line,
                end_line=end_line,
                severity=item.severity,
                category=item.category,
                title=item.title,
                body=item.body,
                evidence=item.evidence,
                confidence=item.confidence,
                reported_line=item.line,
                reported_end_line=item.end_line or item.line,
                suggestion=_suggestion(item),
            )
        )
    return kept, dropped


def _suggestion(item: ReplyFinding) -> Suggestion | None:
    """The reply's suggestion for the lines the model named (publish checks it still fits
    the lines the comment lands on: a re-anchored finding keeps none that applies)."""
    if item.suggestion is None:
        return None
    end = item.end_line or item.line
    return Suggestion(line=min(item.line, end), end_line=max(item.line, end), text=item.suggestion)


# --------------------------------------------------------------------------- red flags

_CODE_SPAN = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)
_MENTION = re.compile(r"(?<![\w/.@-])@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[\w.-]+)?\b")
_IMAGE = re.compile(r"!\[[^\]]*\]\s*\(|<\s*img\b", re.IGNORECASE)
_ACTIVE_HTML = re.compile(r"<\s*(?:script|iframe|object|embed|form|style)\b|\bon\w+\s*=", re.I)
_APPROVAL = re.compile(r"^\s*(?:lgtm|approved?|looks good to me)\b", re.IGNORECASE)


def red_flag(item: ReplyFinding) -> str | None:
    """Why a finding reads like a reply that follows injected instructions, or None.

    A reviewer's finding has no reason to ping people, show images, carry active HTML or
    announce an approval; text in the diff asking for exactly that is the usual injection.
    Code spans are left out: a finding may quote `@decorator` or `<script>` from the code.
    """
    prose = _CODE_SPAN.sub(" ", f"{item.title}\n{item.body}")
    if _MENTION.search(prose):
        return "red-flag: mentions a user or team"
    if _IMAGE.search(prose):
        return "red-flag: carries an image"
    if _ACTIVE_HTML.search(prose):
        return "red-flag: carries active HTML"
    if _APPROVAL.search(item.title):
        return "red-flag: an approval, not a finding"
    return None


# --------------------------------------------------------------------------- paths


def _path_candidates(raw: str) -> Iterator[str]:
    """The path as given, then without "/", "./", then without a git "a/" or "b/"."""
    path = raw.strip()
    yield path
    while path.startswith(("./", "/")):
        path = path[1:] if path.startswith("/") else path[2:]
    yield path
    if path.startswith(("a/", "b/")):
        yield path[2:]


def _resolve(raw: str, in_chunk: frozenset[str]) -> str | None:
    return next((path for path in _path_candidates(raw) if path in in_chunk), None)


# --------------------------------------------------------------------------- lines


def _anchor(item: ReplyFinding, view: _FileView) -> tuple[int, int] | str:
    """(line, end_line) on commentable lines of one hunk, or the reason to drop."""
    line, end = item.line, item.end_line or item.line
    if end < line:
        line, end = end, line
    quoted = needles(item.evidence)
    if quoted:
        spots = [spot for needle in quoted for spot in view.find_new(needle)]
        if spots:
            start, stop = min(spots, key=lambda spot: (_distance(spot, line), spot))
            holds = line <= start and stop <= end and view.hunk_of(line) == view.hunk_of(start)
            if not holds:
                line, end = start, stop
            return line, view.clamp(line, end)
        if not any(view.exists(needle) for needle in quoted):
            return EVIDENCE_NOT_FOUND
    anchor = _snap(line, view.commentable) or _first_in_range(line, end, view.ordered)
    if anchor is None:
        return f"line {line} is not in the diff of {view.path}"
    return anchor, view.clamp(anchor, max(end, anchor))


def _snap(line: int, commentable: frozenset[int]) -> int | None:
    """`line` if commentable, else the nearest commentable line within SNAP_DISTANCE."""
    if line in commentable:
        return line
    for distance in range(1, SNAP_DISTANCE + 1):
        for candidate in (line - distance, line + distance):  # lower first: ties go down
            if candidate in commentable:
                return candidate
    return None


def _first_in_range(line: int, end: int, ordered: tuple[int, ...]) -> int | None:
    """The first commentable line of [line, end]: a range that starts before its hunk."""
    index = bisect_left(ordered, line)
    return ordered[index] if index < len(ordered) and ordered[index] <= end else None


def _distance(spot: tuple[int, int], line: int) -> int:
    start, stop = spot
    return 0 if start <= line <= stop else min(abs(start - line), abs(stop - line))


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class _FileView:
    """One changed file, indexed for anchoring and evidence search."""

    path: str
    hunks: tuple[frozenset[int], ...]  # new-side lines of each hunk
    new_runs: tuple[QuotedRun, ...]  # added and context lines, per hunk
    other_runs: tuple[QuotedRun, ...]  # old side, and every diff line, per hunk
    commentable: frozenset[int]
    ordered: tuple[int, ...]  # commentable lines, ascending

    @classmethod
    def of(cls, changed: ChangedFile) -> _FileView:
        new_runs: list[QuotedRun] = []
        other_runs: list[QuotedRun] = []
        for hunk in changed.hunks:
            new_runs.append(
                QuotedRun.of((d.new_line, d.text) for d in hunk.lines if d.new_line is not None)
            )
            other_runs.append(
                QuotedRun.of((d.old_line or 0, d.text) for d in hunk.lines if d.kind != "+")
            )
            # A snippet that mixes removed and added lines, as the model saw the diff.
            other_runs.append(QuotedRun.of((0, d.text) for d in hunk.lines))
        hunks = tuple(
            frozenset(d.new_line for d in hunk.lines if d.new_line is not None)
            for hunk in changed.hunks
        )
        commentable = frozenset[int]().union(*hunks)
        return cls(
            changed.path,
            hunks,
            tuple(new_runs),
            tuple(other_runs),
            commentable,
            tuple(sorted(commentable)),
        )

    def hunk_of(self, line: int) -> int | None:
        return next((index for index, lines in enumerate(self.hunks) if line in lines), None)

    def clamp(self, line: int, end: int) -> int:
        """The last line of [line, end] reachable from `line` without leaving its hunk."""
        index = self.hunk_of(line)
        lines = self.hunks[index] if index is not None else frozenset()
        last = line
        while last < end and last + 1 in lines:
            last += 1
        return last

    def find_new(self, needle: str) -> Iterator[tuple[int, int]]:
        for run in self.new_runs:
            yield from run.find(needle)

    def exists(self, needle: str) -> bool:
        return any(needle in run.text for run in self.other_runs)
