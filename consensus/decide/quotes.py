"""Quoted code: a model's `evidence` normalised, and the lines it is looked for in.

Whitespace is normalised line by line (models re-indent what they quote), blank lines
left out, and a quote copied straight from a diff may keep its "+"/"-" markers or its
backticks. The audit looks for a quote in a file's diff (review/audit.py); grounding, in
the head file near the lines a finding names (review/grounding.py); score asks whether a
finding quoted anything at all (decide/score.py). Pure.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MIN_EVIDENCE_CHARS = 3  # non-space characters: a shorter quote says nothing
MAX_OCCURRENCES = 1_000  # per search: bounds the work a one-word evidence can cause


def normalize(text: str) -> str:
    return " ".join(text.split())


def needles(evidence: str | None) -> tuple[str, ...]:
    """Normalized forms of the evidence to look for; empty when it is trivial or absent."""
    if evidence is None or len("".join(evidence.split())) < MIN_EVIDENCE_CHARS:
        return ()
    sources = [evidence]
    stripped = evidence.strip()
    if len(stripped) > 1 and stripped[0] == stripped[-1] == "`":
        sources.append(stripped.strip("`"))  # quoted as inline code
    found: list[str] = []
    for source in sources:
        lines = [normalize(line) for line in source.split("\n")]  # as the diff's lines
        # Copied straight from the diff: "+" / "-" markers are not part of the code.
        unmarked = [normalize(line[1:]) if line.startswith(("+", "-")) else line for line in lines]
        for variant in (lines, unmarked):
            needle = "\n".join(line for line in variant if line)
            if needle and needle not in found:
                found.append(needle)
    return tuple(found)


@dataclass(frozen=True)
class QuotedRun:
    """Non-blank normalized lines of one hunk side joined by newlines, with their numbers."""

    text: str
    offsets: tuple[int, ...]
    numbers: tuple[int, ...]

    @classmethod
    def of(cls, lines: Iterable[tuple[int, str]]) -> QuotedRun:
        texts: list[str] = []
        offsets: list[int] = []
        numbers: list[int] = []
        position = 0
        for number, raw in lines:
            text = normalize(raw)
            if text:
                texts.append(text)
                offsets.append(position)
                numbers.append(number)
                position += len(text) + 1
        return cls("\n".join(texts), tuple(offsets), tuple(numbers))

    def find(self, needle: str) -> Iterator[tuple[int, int]]:
        """(first, last) line numbers of each occurrence of `needle`."""
        start = self.text.find(needle)
        for _ in range(MAX_OCCURRENCES):
            if start == -1:
                return
            first = bisect_right(self.offsets, start) - 1
            last = bisect_right(self.offsets, start + len(needle) - 1) - 1
            yield self.numbers[first], self.numbers[last]
            start = self.text.find(needle, start + 1)
