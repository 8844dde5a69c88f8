"""The judge presets side by side, and the rules' precision/recall/calls frontier.

    python benchmarks/quality_bench.py --presets [--prs 1000] [--seed 1]

The same synthetic PRs and reviewers as benchmarks/sim/quality_world.py; only the judges (the
preset: benchmarks/sim/judge_presets.py) and the verification rule change. For each preset, the
product's default (weighed votes, target precision 0.9) against the issue's targets; then,
under each preset, every rule: consensus without verification, first-to-ahead-by-k (every
vote counts the same, k = 2), veto only (one independent judge per consensus finding, no
disputed finding verified) and weighed votes at three target precisions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace

from benchmarks.sim.judge_presets import AGREEABLE, IMPARTIAL, SELF_PREFERRING, JudgePreset
from benchmarks.sim.quality_world import (
    HEADLINE,
    Decisions,
    SimParams,
    SimPR,
    Tally,
    decide,
    make_pr,
    now,
    tally,
)

CONSENSUS_ONLY = "consensus ≥ 0.75, no verification"
AHEAD_BY_K = "first-to-ahead-by-k, k=2 (every vote counts the same)"
VETO = "veto only (one independent judge per consensus finding)"
WEIGHED = "weighed votes, target precision 0.9 (default)"
RULES: tuple[tuple[str, Decisions | None], ...] = (
    (CONSENSUS_ONLY, None),
    (AHEAD_BY_K, now(rule="ahead-by-k")),
    (VETO, now(rule="veto")),
    ("weighed votes, target precision 0.8", now(rule="weighed", target=0.8)),
    (WEIGHED, now(rule="weighed")),
    ("weighed votes, target precision 0.95", now(rule="weighed", target=0.95)),
)


@dataclass(frozen=True)
class Target:
    precision: float
    recall: float
    clean_per_100: float
    calls: float


TARGETS = {
    AGREEABLE.name: Target(0.93, 0.75, 5, 60),
    IMPARTIAL.name: Target(0.99, 0.92, 0, 35),
    SELF_PREFERRING.name: Target(0.90, 0.70, 8, 60),
}


def clean_per_100(t: Tally) -> float:
    return 100 * t.clean_posted / t.clean_prs if t.clean_prs else 0.0


def calls_per_pr(t: Tally) -> float:
    return t.per_pr(t.verify_calls + t.same_calls)


async def _rules(
    params: SimParams, pr: SimPR, rules: Sequence[tuple[str, Decisions | None]]
) -> dict[str, Tally]:
    threshold, k = HEADLINE
    fallback = now(asks=False)
    outcomes = await asyncio.gather(
        *(decide(params, pr, code or fallback, threshold, k if code else None) for _, code in rules)
    )
    out = {}
    for (name, _), outcome in zip(rules, outcomes, strict=True):
        posted = [s.cluster for s in outcome.items if s.status.posted]
        out[name] = tally(pr, posted, outcome.verify_calls, outcome.same_calls)
    return out


def simulate_rules(
    params: SimParams, rules: Sequence[tuple[str, Decisions | None]] = RULES
) -> dict[str, Tally]:
    """Every rule on every PR of `params`, totalled."""
    totals: dict[str, Tally] = {name: Tally() for name, _ in rules}
    for index in range(params.prs):
        for name, value in asyncio.run(_rules(params, make_pr(params, index), rules)).items():
            totals[name].add(value)
    return totals


def row(name: str, t: Tally) -> str:
    return (
        f"| {name} | {t.precision:.3f} | {t.recall:.3f} | {clean_per_100(t):.1f} "
        f"({t.clean_posted} on {t.clean_prs}) | {calls_per_pr(t):.1f} |"
    )


HEAD = (
    "| {what} | precision | recall | posted per 100 clean PRs | verification calls / PR |\n"
    "|---|---:|---:|---:|---:|"
)


def verdicts(preset: JudgePreset, t: Tally) -> str:
    goal = TARGETS[preset.name]
    checks = [
        (f"P ≥ {goal.precision:g}", t.precision >= goal.precision),
        (f"R ≥ {goal.recall:g}", t.recall >= goal.recall),
        (f"clean ≤ {goal.clean_per_100:g}/100", clean_per_100(t) <= goal.clean_per_100),
        (f"calls ≤ {goal.calls:g}", calls_per_pr(t) <= goal.calls),
    ]
    return ", ".join(f"{what} {'met' if ok else 'NOT MET'}" for what, ok in checks)


UNCALIBRATED = f"{IMPARTIAL.name}, not calibrated (judged by the agreeable defaults)"


@dataclass(frozen=True)
class RulesRun:
    """One seed's totals: the default rule under every preset (and under impartial judges
    the product was not told about), every rule under the first preset."""

    seed: int
    prs: int
    presets: tuple[JudgePreset, ...]
    results: dict[str, dict[str, Tally]]  # preset name or UNCALIBRATED → rule → totals


def measure(params: SimParams, presets: Sequence[JudgePreset]) -> RulesRun:
    default = [(WEIGHED, now(rule="weighed"))]
    headline, *others = presets
    results = {headline.name: simulate_rules(replace(params, judges=headline))}
    for preset in others:
        results[preset.name] = simulate_rules(replace(params, judges=preset), default)
    results[UNCALIBRATED] = simulate_rules(
        replace(params, judges=IMPARTIAL, calibrated=False), default
    )
    return RulesRun(params.seed, params.prs, tuple(presets), results)


def report(run: RulesRun) -> str:
    """The default rule under every preset, the targets, then every rule under the first
    preset (the headline: agreeable)."""
    headline = run.presets[0]
    lines = [
        f"{run.prs} PRs, seed {run.seed}. The product's default rule (weighed votes, "
        "target precision 0.9) under each judge preset, the product given the judges' "
        "calibration:",
        "",
        HEAD.format(what="judges (preset)"),
    ]
    lines += [row(name, tallies[WEIGHED]) for name, tallies in run.results.items()]
    lines += ["", "Against the targets:", ""]
    lines += [f"- {p.name}: {verdicts(p, run.results[p.name][WEIGHED])}" for p in run.presets]
    lines += ["", f"Every rule under {headline.name} judges ({headline.describe()}):", ""]
    lines += [HEAD.format(what="rule")]
    lines += [row(name, run.results[headline.name][name]) for name, _ in RULES]
    return "\n".join(lines)


# --------------------------------------------------------------------------- judges section


def _cells(t: Tally) -> list[str]:
    return [
        f"{t.precision:.3f}",
        f"{t.recall:.3f}",
        f"{clean_per_100(t):.1f} ({t.clean_posted} on {t.clean_prs})",
        f"{calls_per_pr(t):.1f}",
    ]


def _bold(cell: str) -> str:
    """`6.1 (11 on 181)` → `**6.1** (11 on 181)`: the figure, not its detail."""
    figure, space, detail = cell.partition(" (")
    return f"**{figure}**{space}{detail}"


def _row(name: str, t: Tally, bold: bool = False) -> str:
    cells = [f"**{name}**", *map(_bold, _cells(t))] if bold else [name, *_cells(t)]
    return "| " + " | ".join(cells) + " |"


def _against(runs: Sequence[RulesRun], preset: JudgePreset) -> list[str]:
    """One column of the targets table: each figure of the default rule, seed by seed."""
    goal = TARGETS[preset.name]
    figures = (
        ("≥", goal.precision, lambda t: t.precision, "{:.3f}"),
        ("≥", goal.recall, lambda t: t.recall, "{:.3f}"),
        ("≤", goal.clean_per_100, clean_per_100, "{:.1f}"),
        ("≤", goal.calls, calls_per_pr, "{:.1f}"),
    )
    cells = []
    for op, target, value, fmt in figures:
        marks = []
        for run in runs:
            v = value(run.results[preset.name][WEIGHED])
            ok = v >= target if op == "≥" else v <= target
            marks.append((ok, fmt.format(v)))
        (ok, first), rest = marks[0], marks[1:]
        others = ", ".join(text if good else f"not {text}" for good, text in rest)
        limit = f"{target:g} / 100" if value is clean_per_100 else f"{target:g}"
        cells.append(
            f"{op} {limit}: {'met' if ok else 'NOT MET'} {first}" + (f" ({others})" if rest else "")
        )
    return cells


def judges_figures(runs: Sequence[RulesRun]) -> dict[str, str]:
    """The figures blocks of benchmarks/results/judges.md, from one run per seed (the first
    seed is the headline; the others are shown beside it)."""
    first = runs[0]
    headline = first.presets[0]
    presets = [
        HEAD.format(what="judges (preset), seed"),
        *(
            _row(f"{name}, seed {run.seed}", run.results[name][WEIGHED],
                 bold=name == headline.name and run is first)
            for name in first.results
            for run in runs
        ),
    ]  # fmt: skip
    names = [f"{p.name} (headline)" if p is headline else p.name for p in first.presets]
    columns = [_against(runs, p) for p in first.presets]
    targets = [
        "| figure | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
        *(
            f"| {figure} | " + " | ".join(column[n] for column in columns) + " |"
            for n, figure in enumerate(
                ("precision", "recall", "posted on clean PRs", "verification calls / PR")
            )
        ),
    ]
    rules = [
        HEAD.format(what="rule"),
        *(
            _row(name, first.results[headline.name][name], bold=name == WEIGHED)
            for name, _ in RULES
        ),
    ]
    for run in runs[1:]:
        figures = []
        for name, _ in RULES:
            t = run.results[headline.name][name]
            text = (f"{t.precision:.3f} / {t.recall:.3f} / {clean_per_100(t):.1f} / "
                    f"{calls_per_pr(t):.1f}")  # fmt: skip
            figures.append(f"**{text}**" if name == WEIGHED else text)
        rules += ["", f"Seed {run.seed}: " + "; ".join(figures) + "."]
    if runs[1:]:
        rules += ["", "(precision / recall / per 100 clean PRs / calls per PR, rules in the "
                      "order above)"]  # fmt: skip
    return {
        "judges-presets": "\n".join(presets),
        "judges-targets": "\n".join(targets),
        "judges-rules": "\n".join(rules),
    }
