"""Committable suggestions: a finding's replacement text as a ```` ```suggestion ```` block
that GitHub applies with one click. Pure.

A suggestion is posted only when it applies cleanly: it was written for exactly the
RIGHT-side lines its comment lands on (`start_line`..`line`), the head version of those
lines is known from the diff and holds no redacted secret, and it changes them. It is model
text, so it must also hold no control or bidirectional-override characters, no redaction
placeholder, and not be the diff as the prompt shows it (line numbers and +/- markers).
Inside the block Markdown is not rendered (no mention pings, no link, no HTML), and the
fence is longer than any run of backticks in the text, so nothing in it can close it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from consensus.model.diff import ReviewDiff
from consensus.model.findings import Suggestion

HeadLines = Mapping[str, Mapping[int, str]]  # path → new-side line number → its text

REDACTED = "«redacted:"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]")
_BIDI = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_DIFF_ROW = re.compile(r"^\s*\d+ [+ -](?: |$)")  # `41 + added line`, as ingest/view.py shows it
_BACKTICKS = re.compile(r"`+")


def head_lines(diff: ReviewDiff) -> dict[str, dict[int, str]]:
    """The new-side text of every line the diff shows (added and context lines)."""
    return {
        changed.path: {
            line.new_line: line.text
            for hunk in changed.hunks
            for line in hunk.lines
            if line.new_line is not None
        }
        for changed in diff.files
    }


def suggestion_problem(
    suggestion: Suggestion, start: int, end: int, head: Mapping[int, str] | None
) -> str | None:
    """Why `suggestion` must not be posted on a comment over `start`..`end`, or None."""
    if (suggestion.line, suggestion.end_line) != (start, end):
        return (
            f"it replaces lines {suggestion.line}-{suggestion.end_line}, "
            f"the comment is on {start}-{end}"
        )
    current = [head.get(n) for n in range(start, end + 1)] if head is not None else [None]
    if any(text is None for text in current):
        return "the head version of those lines is not in the diff"
    if any(REDACTED in (text or "") for text in current):
        return "those lines hold a redacted secret"
    text = suggestion.text
    if REDACTED in text:
        return "it holds a redaction placeholder"
    if _CONTROL.search(text) or _BIDI.search(text):
        return "it holds control or bidirectional-override characters"
    lines = text.split("\n") if text else []
    written = [line for line in lines if line.strip()]
    if written and all(_DIFF_ROW.match(line) for line in written):
        return "it quotes the diff with line numbers and markers, not code"
    if lines == current:
        return "it changes nothing"
    return None


def suggestion_block(suggestion: Suggestion) -> str:
    """The fenced block; an empty suggestion deletes the lines, as on GitHub."""
    longest = max((len(run) for run in _BACKTICKS.findall(suggestion.text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = f"{suggestion.text}\n" if suggestion.text else ""
    return f"{fence}suggestion\n{body}{fence}"
