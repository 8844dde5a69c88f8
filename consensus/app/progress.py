"""What a running review shows: a live bar on a TTY, plain log lines in CI.

Both read the same observer events from the fan-out; neither decides anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from consensus.model.findings import ModelReview
from consensus.ports import Log
from consensus.review.fanout import CallResult, ReviewCall

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class Totals:
    """Calls done, tokens and cost so far; the cost is unknown once a model without a known
    price has answered (its calls cost something, but not a number we can add)."""

    def __init__(self, priced: Callable[[str], bool] = lambda model: True) -> None:
        self._priced = priced
        self.done = 0
        self.tokens = 0
        self.cost = 0.0
        self.unpriced = False

    def add(self, call: ReviewCall, result: CallResult) -> None:
        self.done += 1
        self.tokens += result.usage.tokens_in + result.usage.tokens_out
        self.cost += result.usage.cost_usd
        self.unpriced = self.unpriced or not self._priced(call.provider.model)

    def cost_text(self) -> str:
        if not self.unpriced:
            return f"${self.cost:.4f}"
        return f"${self.cost:.4f} + unpriced models" if self.cost else "cost unknown"


def _describe(call: ReviewCall, result: CallResult) -> str:
    where = f"{call.provider.model} · {call.persona} · chunk {call.chunk.index + 1}"
    if isinstance(result, ModelReview):
        tokens = result.usage.tokens_in + result.usage.tokens_out
        count = len(result.findings)
        findings = f"{count} finding{'' if count == 1 else 's'}"
        repaired = " (repaired)" if result.repaired else ""
        return (
            f"ok   {where}: {findings}, {tokens:,} tokens, {result.usage.latency_s:.1f} s{repaired}"
        )
    return f"FAIL {where}: {result.kind.value}: {result.message}"


class LogProgress:
    """One line per event through a `Log`: readable in CI logs, greppable. In the Action the
    log is the runner-safe writer, so a finding's title or a provider's error written here
    never becomes a workflow command."""

    def __init__(self, log: Log) -> None:
        self._log = log
        self._total = 0
        self._totals = Totals()

    def phase(self, name: str, detail: str = "") -> None:
        self._log(name + (f": {detail}" if detail else ""))

    def planned(self, total: int) -> None:
        self._total = total

    def call_started(self, call: ReviewCall) -> None:
        return None

    def call_finished(self, call: ReviewCall, result: CallResult) -> None:
        self._totals.add(call, result)
        self._log(f"[{self._totals.done}/{self._total}] {_describe(call, result)}")

    def close(self) -> None:
        return None


class RichProgress:
    """A live progress bar on a terminal: phase, calls done/total, tokens, cost (unknown
    once a model `priced` says has no price answers)."""

    def __init__(self, stream: IO[str], priced: Callable[[str], bool] = lambda m: True) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichBar

        self._console = Console(file=stream, stderr=True)
        self._bar: Progress = RichBar(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[tokens]:,} tokens · {task.fields[cost]}"),
            TimeElapsedColumn(),
            console=self._console,
            transient=True,
        )
        self._task: TaskID | None = None
        self._totals = Totals(priced)

    def phase(self, name: str, detail: str = "") -> None:
        self._console.print(f"[dim]consensus:[/dim] {name}" + (f": {detail}" if detail else ""))

    def planned(self, total: int) -> None:
        self._bar.start()
        self._task = self._bar.add_task("reviewing", total=total, tokens=0, cost="$0.0000")

    def call_started(self, call: ReviewCall) -> None:
        return None

    def call_finished(self, call: ReviewCall, result: CallResult) -> None:
        self._totals.add(call, result)
        if not isinstance(result, ModelReview):
            self._bar.console.print(f"[yellow]{_describe(call, result)}[/yellow]")
        if self._task is not None:
            self._bar.update(
                self._task,
                completed=self._totals.done,
                tokens=self._totals.tokens,
                cost=self._totals.cost_text(),
            )

    def close(self) -> None:
        self._bar.stop()
