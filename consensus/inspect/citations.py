"""A verdict's evidence, checked: every citation against the tree and against what the
judge was shown.

A judge cites `{path, start_line, end_line, quote}` (and `side`, head unless it says
base). A citation holds when the path may be read (inspect/paths.py), the file is at
that side, the lines are in it, the quote is in those lines once whitespace is
normalised (runs of spaces, tabs and newlines read as one space; the text is the
redacted text the judge was shown), and every cited line was shown to this judge: in
the diff (`diff_spans`), the inline context, or a tool's answer of this conversation. A
verdict is grounded when it cites something and every citation holds; one that is not is
a blind vote.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus.inspect.paths import ToolRefusal, confine
from consensus.inspect.schema import READ_LINES
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.tool_results import Span
from consensus.model.base import Frozen
from consensus.model.diff import ChangedFile
from consensus.model.reply import Citation


class CitationCheck(Frozen):
    citation: Citation
    holds: bool
    reason: str  # "holds", or what is wrong, in words for the report


class CitationReport(Frozen):
    checks: tuple[CitationCheck, ...] = ()

    @property
    def grounded(self) -> bool:
        """It cites something and every citation holds; else the verdict is a blind vote."""
        return bool(self.checks) and all(check.holds for check in self.checks)


def check_citations(
    evidence: Sequence[Citation], snapshot: Snapshot, seen: Sequence[Span]
) -> CitationReport:
    """Each citation checked (see the module docstring), in the verdict's order."""
    return CitationReport(checks=tuple(_check(c, snapshot, seen) for c in evidence))


def diff_spans(files: Sequence[ChangedFile]) -> tuple[Span, ...]:
    """The lines a diff shows: its added and context lines at the head, its removed and
    context lines at the base."""
    spans: list[Span] = []
    for file in files:
        for hunk in file.hunks:
            new = [line.new_line for line in hunk.lines if line.new_line is not None]
            old = [line.old_line for line in hunk.lines if line.old_line is not None]
            if new:
                spans.append(Span(path=file.path, start_line=min(new), end_line=max(new)))
            if old:
                base = file.old_path or file.path
                spans.append(Span(path=base, side="base", start_line=min(old), end_line=max(old)))
    return tuple(spans)


def normalised(text: str) -> str:
    """Whitespace runs as one space, none at either end."""
    return " ".join(text.split())


def _check(citation: Citation, snapshot: Snapshot, seen: Sequence[Span]) -> CitationCheck:
    def failed(reason: str) -> CitationCheck:
        return CitationCheck(citation=citation, holds=False, reason=reason)

    side, start, end = citation.side, citation.start_line, citation.end_line
    if end < start:
        return failed(f"end_line {end} is before start_line {start}")
    if end - start + 1 > READ_LINES:
        return failed(f"cites {end - start + 1} lines: cite the few lines that show it")
    quote = normalised(citation.quote)
    if not quote:
        return failed("the quote is empty")
    try:
        name = confine(snapshot, citation.path, side)
    except ToolRefusal as exc:
        return failed(exc.message)
    lines = snapshot.lines(name, side) if snapshot.exists(name, side) else None
    if lines is None:
        return failed(f"{citation.path} is not a text file of the {side} tree")
    if end > len(lines):
        return failed(
            f"{citation.path} has {len(lines)} lines at the {side}: {end} is past its end"
        )
    if quote not in normalised("\n".join(lines[start - 1 : end])):
        return failed(f"the quote is not in {citation.path} lines {start}-{end} ({side})")
    unseen = [n for n in range(start, end + 1) if not any(s.covers(name, side, n) for s in seen)]
    if unseen:
        return failed(
            f"{citation.path} line {unseen[0]} ({side}) was never shown to this judge: cite "
            "the diff, the context or a tool's answer"
        )
    return CitationCheck(citation=citation, holds=True, reason="holds")
