"""What a tool answers: its text, and the exact lines of the trees that text shows.

The spans are what a citation is checked against (inspect/citations.py): a judge may cite
a line it was shown, in the diff, the inline context or a tool's answer, and no other. A
`Shown` builds both together, so a result cut at its size cap records only the lines it
kept.
"""

from __future__ import annotations

from pydantic import Field

from consensus.model.base import Frozen
from consensus.ports import Side

MAX_LINE_CHARS = 400  # a longer line is shown cut, with its length


class Span(Frozen):
    """Lines `start_line`..`end_line` (1-based, inclusive) of `path` at `side`."""

    path: str
    side: Side = "head"
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)

    def covers(self, path: str, side: Side, line: int) -> bool:
        return self.path == path and self.side == side and self.start_line <= line <= self.end_line


class ToolResult(Frozen):
    """One tool call's answer as the model reads it; `error` when the call was refused or
    could not run (the text says why and what to do instead)."""

    tool: str
    text: str
    spans: tuple[Span, ...] = ()
    error: bool = False


def refused(tool: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, text=f"error: {message}", error=True)


class Shown:
    """A result being written: lines of the trees (recorded as spans) and notes, within
    `max_chars`; past it, the rest is left out with a note saying so."""

    def __init__(self, tool: str, max_chars: int) -> None:
        self.tool = tool
        self.max_chars = max_chars
        self.full = False
        self._parts: list[str] = []
        self._size = 0
        self._lines: dict[tuple[str, Side], set[int]] = {}

    def note(self, text: str) -> None:
        """A line that is no line of a file (a header, a count, a hint). Always kept."""
        self._parts.append(text)
        self._size += len(text) + 1

    def line(self, path: str, side: Side, number: int, text: str, *, label: str) -> bool:
        """Show one line of a file as `label` + its text; False once the cap is reached."""
        if self.full:
            return False
        shown = label + clipped(text)
        if self._size + len(shown) + 1 > self.max_chars:
            self.full = True
            self.note(f"[cut: the answer reached {self.max_chars} characters; ask for less]")
            return False
        self._parts.append(shown)
        self._size += len(shown) + 1
        self._lines.setdefault((path, side), set()).add(number)
        return True

    def has(self, path: str, side: Side, number: int) -> bool:
        """Whether this result already shows that line."""
        return number in self._lines.get((path, side), ())

    def result(self) -> ToolResult:
        return ToolResult(tool=self.tool, text="\n".join(self._parts), spans=self.spans())

    def spans(self) -> tuple[Span, ...]:
        found: list[Span] = []
        for (path, side), numbers in sorted(self._lines.items()):
            ordered = sorted(numbers)
            start = previous = ordered[0]
            for number in [*ordered[1:], None]:
                if number is not None and number == previous + 1:
                    previous = number
                    continue
                found.append(Span(path=path, side=side, start_line=start, end_line=previous))
                if number is not None:
                    start = previous = number
        return tuple(found)


def clipped(text: str) -> str:
    """A line as a result shows it: a very long one cut, with its length."""
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}… [{len(text)} characters]"
