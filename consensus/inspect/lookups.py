"""What one judge may look up about one claim: its budget of tool calls, and the calls made.

A `Lookups` is one judge's conversation about one claim: every call it makes goes through
`call` (parsed as untrusted input, run, its answer capped at `ToolBudget.result_chars`),
and every call counts, a refused one too, so a model cannot loop on errors. Once the
budget is spent, a call is answered with a tool error telling the judge to answer with
what it has; the caller stops offering tools then. What the calls showed (`seen`) is what
the judge may cite (inspect/citations.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from consensus.inspect import tools
from consensus.inspect.paths import ToolRefusal
from consensus.inspect.schema import CallProblem, parse_call
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.tool_results import Span, ToolResult, refused

DEFAULT_CALLS = 6
DEFAULT_RESULT_CHARS = 12_000  # about 3,000 tokens: six answers stay under 20,000

TOOLS: dict[str, Callable[[Snapshot, Any, int], ToolResult]] = {
    "read_file": tools.read_file,
    "search": tools.search,
    "find_definition": tools.find_definition,
    "find_references": tools.find_references,
    "list_tests": tools.list_tests,
}


@dataclass(frozen=True)
class ToolBudget:
    """Tool calls one judge may make about one claim, and the characters of one answer."""

    calls: int = DEFAULT_CALLS
    result_chars: int = DEFAULT_RESULT_CHARS

    def __post_init__(self) -> None:
        if self.calls < 0 or self.result_chars < 200:
            raise ValueError(f"a tool budget of {self.calls} calls, {self.result_chars} chars")


class Lookups:
    """One judge's tool calls about one claim, within its budget."""

    def __init__(self, snapshot: Snapshot, budget: ToolBudget | None = None) -> None:
        self.snapshot = snapshot
        self.budget = budget or ToolBudget()
        self.spent = 0
        self.results: list[ToolResult] = []

    @property
    def left(self) -> int:
        return max(0, self.budget.calls - self.spent)

    @property
    def exhausted(self) -> bool:
        """No call left: the judge answers with what it has (offer no more tools)."""
        return self.left == 0

    def call(self, name: object, arguments: object) -> ToolResult:
        """Run one tool call as the model made it; never raises for what the model sent."""
        tool = name if isinstance(name, str) and name in TOOLS else "unknown"
        if self.exhausted:
            return refused(
                tool,
                f"the budget of {self.budget.calls} tool calls for this claim is spent: "
                "answer now with what you have, citing what you were shown",
            )
        self.spent += 1
        parsed = parse_call(name, arguments)
        if isinstance(parsed, CallProblem):
            result = refused(tool, parsed.message)
        else:
            try:
                result = TOOLS[tool](self.snapshot, parsed, self.budget.result_chars)
            except ToolRefusal as exc:
                result = refused(tool, exc.message)
        self.results.append(result)
        return result

    def seen(self) -> tuple[Span, ...]:
        """Every span the calls showed, in call order."""
        return tuple(span for result in self.results for span in result.spans)
