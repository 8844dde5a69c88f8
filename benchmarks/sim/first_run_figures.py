"""The figures block of the first-run section: a newcomer's first commands, timed.

`benchmarks/first_run_bench.py` runs each command as a fresh process and hands its times
here as `FirstRunResults`; `first_run_figures` is pure (one run's results → the markdown
of the block), so the table is testable without running anything. Each verdict is on the
median of the command's runs; the worst run is shown beside it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from benchmarks.sim.sections import Machine, machine_line, table, verdict

NO_MODEL_TARGET_S = 1.0  # every command that calls no model
DEMO_TARGET_S = 30.0  # `consensus demo`, the first run: litellm, its calls, the HTML report


@dataclass(frozen=True)
class CommandTimes:
    """One command as the table names it, with the wall time and exit code of each run."""

    command: str
    seconds: tuple[float, ...]
    exits: tuple[int, ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)

    @property
    def worst_s(self) -> float:
        return max(self.seconds)


@dataclass(frozen=True)
class FirstRunResults:
    demo: CommandTimes
    reference: CommandTimes  # `python -c "import litellm"`, measured in the same run
    commands: tuple[CommandTimes, ...]  # the commands that call no model
    machine: Machine


def _row(c: CommandTimes, target: str) -> tuple[str, ...]:
    exits = ",".join(str(code) for code in sorted(set(c.exits)))
    figures = (f"{c.median_s:.2f}", f"{c.worst_s:.2f}", exits, str(len(c.seconds)))
    return (c.command, *figures, target)


def _under(c: CommandTimes, target_s: float) -> str:
    return f"< {target_s:g} s: {verdict(c.median_s < target_s)}"


def first_run_figures(r: FirstRunResults) -> dict[str, str]:
    rows = [
        _row(r.demo, _under(r.demo, DEMO_TARGET_S)),
        _row(r.reference, "the reference"),
        *(_row(c, _under(c, NO_MODEL_TARGET_S)) for c in r.commands),
    ]
    head = ("command", "median (s)", "worst (s)", "exit", "runs", "target")
    slowest = max(r.commands, key=lambda c: c.median_s)
    under = sum(c.median_s < NO_MODEL_TARGET_S for c in r.commands)
    summary = (
        f"Commands that call no model under {NO_MODEL_TARGET_S:g} s: {under} of "
        f"{len(r.commands)} ({verdict(under == len(r.commands))}). The slowest, at "
        f"{slowest.median_s:.2f} s ({slowest.median_s / r.reference.median_s:.2f} × `import "
        f"litellm` alone): {slowest.command}. `consensus demo`: {r.demo.median_s:.1f} s "
        f"(target < {DEMO_TARGET_S:g} s: {verdict(r.demo.median_s < DEMO_TARGET_S)})."
    )
    text = "\n\n".join([machine_line(r.machine), table(head, "lrrrrl", rows), summary])
    return {"first-run": text}
