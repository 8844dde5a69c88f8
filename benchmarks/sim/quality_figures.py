"""The figures blocks of the quality section (benchmarks/results/quality.md), rendered from
one run of the quality simulation and the figures recorded at earlier commits.

`quality_figures` is pure: `python benchmarks/quality_bench.py --markdown PATH` writes what
it returns with `write_figures` (benchmarks/sim/sections.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.sim.quality_world import (
    HEADLINE,
    NO_ASKING,
    SimResult,
    Tally,
    describe,
    diagnosis_lines,
    independence,
    table,
    with_voting,
)
from benchmarks.sim.recorded import Recorded
from benchmarks.sim.sections import verdict


@dataclass(frozen=True)
class Row:
    recorded: str  # the figure's name in recorded.json
    label: Callable[[Tally], str]
    value: Callable[[Tally], float]
    digits: int
    target: str  # "" when the figure has none
    met: Callable[[Tally, float], bool]  # (now, the first recorded commit's calls per PR)


def _calls(t: Tally) -> float:
    return t.per_pr(t.verify_calls + t.same_calls)


ROWS = (
    Row("duplicates posted / PR", lambda t: "duplicates posted / PR",
        lambda t: t.per_pr(t.duplicates), 3, "≤ 0.02", lambda t, _: t.per_pr(t.duplicates) <= 0.02),
    Row("posted findings on the clean PRs",
        lambda t: f"posted findings on the {t.clean_prs} clean PRs",
        lambda t: float(t.clean_posted), 0, "0", lambda t, _: t.clean_posted == 0),
    Row("… of them posted without any verification",
        lambda t: "… of them posted without any verification",
        lambda t: float(t.clean_unchecked), 0, "0", lambda t, _: t.clean_unchecked == 0),
    Row("precision", lambda t: "precision", lambda t: t.precision, 3, "≥ 0.95",
        lambda t, _: t.precision >= 0.95),
    Row("recall", lambda t: "recall", lambda t: t.recall, 3, "≥ 0.93",
        lambda t, _: t.recall >= 0.93),
    Row("F1", lambda t: "F1", lambda t: t.f1, 3, "", lambda t, _: True),
    Row("verification calls / PR",
        lambda t: 'verification calls / PR (inspector, votes, "same problem?")',
        _calls, 2, "≤ 1.3 ×", lambda t, first: _calls(t) <= 1.3 * first),
)  # fmt: skip


def _cell(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def headline_block(result: SimResult, recorded: Recorded) -> str:
    """One problem, one comment: each recorded commit, then this run without asking "same
    problem?" and as configured, against the targets (calls: 1.3 × the first commit's)."""
    t, k = HEADLINE
    now, no_asking = result.tallies[with_voting(t, k)], result.tallies[with_voting(t, k, NO_ASKING)]
    records = recorded.records
    first = records[0]
    first_calls = float(first.figures["verification calls / PR"])
    heads = " | ".join(f"`{r.commit}` (recorded)" for r in records)
    lines = [
        f"| figure (consensus ≥ {t:g}, k={k}) | {heads} | now, without asking | now | target | |",
        "|---|" + "---:|" * (len(records) + 2) + "---|---|",
    ]
    for row in ROWS:
        then = [_cell(r.figures.get(row.recorded), row.digits) for r in records]
        target = row.target
        if target == "≤ 1.3 ×":
            target = f"≤ 1.3 × `{first.commit}` = {1.3 * first_calls:.2f}"
        mark = verdict(row.met(now, first_calls)) if target else ""
        cells = [
            row.label(now),
            *then,
            _cell(row.value(no_asking), row.digits),
            _cell(row.value(now), row.digits),
            target,
            mark,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def independence_block(result: SimResult) -> str:
    """Reporters may judge against independent judges, with the default judges and with
    the configured inspector and voters."""
    inspector, voters = result.params.configured_judges
    t, k = HEADLINE
    parts = []
    for configured, intro in (
        (False, "With the product's default judges (no inspector or voters configured):"),
        (
            True,
            f"With a configured inspector ({inspector}) and voters ({', '.join(voters)}), "
            "who are also reviewers:",
        ),
    ):
        lines = [
            f"| figure (consensus ≥ {t:g}, k={k}) | reporters may judge | independent judges "
            "(now) | target | |",
            "|---|---:|---:|---|---|",
        ]
        for f in independence(result, configured):
            target = f.target.replace("before", "reporters may judge")
            lines.append(
                f"| {f.name} | {_cell(f.today, f.digits)} | {_cell(f.values[0], f.digits)} "
                f"| {target} | {verdict(f.met) if target else ''} |"
            )
        parts += [intro, "\n".join(lines)]
    return "\n\n".join(parts)


def methods_block(result: SimResult) -> str:
    return "\n\n".join(["All methods:", table(result), "\n".join(diagnosis_lines(result))])


def quality_figures(result: SimResult, recorded: Recorded) -> dict[str, str]:
    return {
        "quality-parameters": f"Parameters of the run below: {describe(result.params)}",
        "quality-headline": headline_block(result, recorded),
        "quality-independence": independence_block(result),
        "quality-methods": methods_block(result),
    }
