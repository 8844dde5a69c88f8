"""The code a verifier sees around a finding: the enclosing function, or ±30 lines.

Pure: takes the head version of the file as text (the caller reads it from the working
tree or the contents API, and redacts it) and returns numbered lines.
"""

from __future__ import annotations

import re

from consensus.inspect.snapshot import split_lines

RADIUS = 30
MAX_FUNCTION_LINES = 120  # beyond this, the window around the finding is more useful

# A line that opens a function or class in the common languages.
_DEFINITION = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|func|fn|sub|impl|interface|struct)\b"
    r"|^\s*(?:public|private|protected|internal|static|override|final)\b.*[({]\s*$"
)


def code_context(text: str, line: int, end_line: int, radius: int = RADIUS) -> str:
    """Numbered lines around [line, end_line]: from the enclosing definition when it is
    close enough, else `radius` lines each side."""
    lines = split_lines(text)
    if not lines:
        return ""
    last = len(lines)
    line = min(max(line, 1), last)
    end_line = min(max(end_line, line), last)
    start = max(1, line - radius)
    definition = _enclosing_definition(lines, line)
    if definition is not None and end_line - definition < MAX_FUNCTION_LINES:
        start = definition
    stop = min(last, end_line + radius)
    width = len(str(stop))
    return "\n".join(
        f"{n:>{width}}{'>' if line <= n <= end_line else ' '} {lines[n - 1]}"
        for n in range(start, stop + 1)
    )


def _enclosing_definition(lines: list[str], line: int) -> int | None:
    """The nearest definition line at or above `line` whose indentation encloses it."""
    target_indent = _indent(lines[line - 1]) if lines[line - 1].strip() else None
    for n in range(line, max(0, line - MAX_FUNCTION_LINES), -1):
        text = lines[n - 1]
        if _DEFINITION.match(text) and (
            target_indent is None or _indent(text) <= target_indent or n == line
        ):
            return n
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())
