"""The judge presets side by side, in every condition a repository is in, and the rules'
frontier.

    python benchmarks/quality_bench.py --presets [--prs 1000] [--seeds 1,2,3]

The same synthetic PRs and reviewers as benchmarks/sim/quality_world.py; only the judges (the
preset: benchmarks/sim/judge_presets.py), what the product knows of them and the
verification rule change. The default rule (judges estimated from the run's votes) is
measured under each preset in three conditions:

- **cold**: the default configuration, no calibration, each PR alone, as a repository's
  first (the targets are for this condition);
- **warm**: the PRs of one repository in sequence, each run's estimate of its panel pooled
  into the next one's prior as `.consensus/learned.yml`'s `panel` pools the closed PRs'
  runs (model/history.py, capped at POOL_CAP claims' worth per family); here pooled at once,
  where the scheduled learnings run pools closed PRs in batches;
- **calibrated**: the product given the judges' calibration (what `consensus calibrate`
  would measure on 1,000 real and 1,000 false claims), its runs pooled as in warm (a
  repository with a calibration keeps its learnings too): warm against calibrated is what
  the unlabelled history learns of the judges against what labels say of them;
- **a few labels**: cold, but told what 10 real and 10 false labelled claims per family
  showed (an afternoon of labelling, as `consensus calibrate` measures it).

Beside them: a repository's first PRs, warm (25 new repositories of 40 PRs each, window by
window: how soon the pooled history reaches the warm figures); what the warm history holds of
each family beside the simulated judge; and the claims that reached consensus with no
outside judge speaking against them (`unopposed`): their precision, against the precision
target, and the inventions among them on clean PRs, against the clean-posts target. Nothing
in the votes tells those inventions from the real claims that look the same, so they are
what the panel leaves any rule that posts consensus to post.

The frontier (cold) adds, under each preset: consensus without verification,
first-to-ahead-by-k (every vote counts the same, k = 2), and weighed votes with the judges
assumed agreeable (the product before judges were estimated: its agreeable defaults, as a
calibration of 1,000 claims each way, so that nothing the run shows moves them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from benchmarks.sim.judge_presets import (
    AGREEABLE,
    DISCERNING,
    IMPARTIAL,
    MIXED,
    Judge,
    JudgePreset,
)
from benchmarks.sim.quality_world import (
    HEADLINE,
    Decisions,
    Outcome,
    SimParams,
    SimPR,
    Tally,
    about_bug,
    decide,
    make_pr,
    now,
    tally,
)
from consensus.model.base import VerdictKind
from consensus.model.findings import ScoredCluster
from consensus.model.history import PanelTally
from consensus.model.panel import PanelEstimate

CONSENSUS_ONLY = "consensus ≥ 0.75, no verification"
AHEAD_BY_K = "first-to-ahead-by-k, k=2 (every vote counts the same)"
ASSUMED = "weighed votes, judges assumed agreeable (before they were estimated)"
ESTIMATED = "weighed votes, judges estimated from the run (default)"
COLD, WARM, CALIBRATED, FEW = "cold", "warm", "calibrated", "a few labels"
CONDITIONS = (COLD, WARM, CALIBRATED, FEW)
FEW_LABELS = 10  # labelled claims of each kind per family in the `FEW` condition
FRONTIER = (CONSENSUS_ONLY, AHEAD_BY_K, ASSUMED, ESTIMATED)
PRESETS = (AGREEABLE, IMPARTIAL, DISCERNING, MIXED)


@dataclass(frozen=True)
class Rule:
    """One way of deciding: the code (None: no verification), the judges the product is
    told of (None: none), and whether runs pool their estimates PR after PR."""

    name: str
    code: Decisions | None
    labels: JudgePreset | None = None
    warm: bool = False
    label_cases: int = 1_000


def rules(preset: JudgePreset) -> tuple[Rule, ...]:
    """The frontier (cold) and the default rule warm and calibrated, under `preset`."""
    return (
        Rule(CONSENSUS_ONLY, None),
        Rule(AHEAD_BY_K, now(rule="ahead-by-k")),
        Rule(ASSUMED, now(), labels=AGREEABLE),
        Rule(ESTIMATED, now()),
        Rule(WARM, now(), warm=True),
        Rule(CALIBRATED, now(), labels=preset, warm=True),
        Rule(FEW, now(), labels=preset, label_cases=FEW_LABELS),
    )


@dataclass(frozen=True)
class Target:
    precision: float
    recall: float
    clean_per_100: float
    calls: float


TARGETS = {
    AGREEABLE.name: Target(0.95, 0.75, 5, 50),
    IMPARTIAL.name: Target(0.97, 0.88, 2, 40),
    DISCERNING.name: Target(0.97, 0.88, 2, 40),
    MIXED.name: Target(0.95, 0.85, 3, 50),
}
WARM_PRECISION, WARM_RECALL = 0.01, 0.02  # warm within these of calibrated


def clean_per_100(t: Tally) -> float:
    return 100 * t.clean_posted / t.clean_prs if t.clean_prs else 0.0


def unopposed_per_100(t: Tally) -> float:
    return 100 * t.clean_unopposed / t.clean_prs if t.clean_prs else 0.0


def unopposed_precision(t: Tally) -> float:
    total = t.unopposed_real + t.unopposed_invented
    return t.unopposed_real / total if total else 1.0


def calls_per_pr(t: Tally) -> float:
    return t.per_pr(t.verify_calls + t.same_calls)


def condition(rule: str) -> str:
    """The condition a rule's figures are of: the default rule's name is the cold one."""
    return COLD if rule == ESTIMATED else rule


async def _one_pr(
    params: SimParams, pr: SimPR, chosen: Sequence[Rule], pools: dict[str, PanelTally]
) -> list[Outcome]:
    """Every rule on one PR, one after the other: align and score once, for all of them."""
    threshold, k = HEADLINE
    fallback = now(asks=False)
    shared: dict[tuple[bool, float], tuple[list[ScoredCluster], int]] = {}

    def knowing(rule: Rule) -> SimParams:
        labelled = replace(params, calibrated=rule.labels is not None, labels=rule.labels,
                           label_cases=rule.label_cases)  # fmt: skip
        return replace(labelled, history=pools.get(rule.name)) if rule.warm else labelled

    outcomes = []
    for rule in chosen:
        code, depth = (rule.code, k) if rule.code else (fallback, None)
        outcomes.append(await decide(knowing(rule), pr, code, threshold, depth, shared=shared))
    return outcomes


def _says(judge: Judge, real: bool) -> dict[VerdictKind, float]:
    """How often the simulated `judge` gives each verdict on a real claim or an invention."""
    right = judge.tpr if real else judge.tnr
    wrong = 1 - right
    agrees, denies = (right, wrong * (1 - judge.uncertain)) if real else (
        wrong * (1 - judge.uncertain), right)  # fmt: skip
    return {VerdictKind.CONFIRMED: agrees, VerdictKind.REFUTED: denies,
            VerdictKind.UNCERTAIN: wrong * judge.uncertain}  # fmt: skip


def speaks_against(judge: Judge, verdict: VerdictKind | None) -> bool:
    """Whether the simulated `judge` says `verdict` more often of an invention than of a real
    claim (a failed call says nothing)."""
    if verdict is None:
        return False
    return _says(judge, real=True)[verdict] < _says(judge, real=False)[verdict]


def is_unopposed(item: ScoredCluster, judges: JudgePreset) -> bool:
    """A claim that reached consensus and whose outside judges (families that did not report
    it) all gave, on their first answer, a verdict their simulated judge gives no more often
    of an invention than of a real claim (or that no outside family judged). Nothing in the
    votes speaks against it: a rule posts it unless it rejects consensus claims on no
    evidence, the real ones that look the same with the invented ones."""
    threshold, _ = HEADLINE
    if item.agreement < threshold:
        return False
    votes = item.verification.votes if item.verification else ()
    first: dict[str, VerdictKind | None] = {}
    for vote in votes:
        if not vote.self_vote:
            first.setdefault(vote.family, vote.verdict)
    return not any(speaks_against(judges.judge(f), verdict) for f, verdict in first.items())


def unopposed(pr: SimPR, items: Sequence[ScoredCluster], judges: JudgePreset) -> tuple[int, int]:
    """The PR's unopposed claims (`is_unopposed`): (real, invented). Their precision is what a
    rule that posts what no vote speaks against starts from, and the invented ones on clean
    PRs, per 100 clean PRs, are what the panel leaves any such rule to post there."""
    real = invented = 0
    for item in items:
        if is_unopposed(item, judges):
            members = item.cluster.members
            path, line, end = members[0].path, item.cluster.line, item.cluster.end_line
            if about_bug(pr.bugs, path, line, end) is None:
                invented += 1
            else:
                real += 1
    return real, invented


def _totalled(pr: SimPR, outcome: Outcome, judges: JudgePreset) -> Tally:
    posted = [s.cluster for s in outcome.items if s.status.posted]
    t = tally(pr, posted, outcome.verify_calls, outcome.same_calls)
    t.unopposed_real, t.unopposed_invented = unopposed(pr, outcome.items, judges)
    t.clean_unopposed = t.unopposed_invented if pr.clean else 0
    return t


def _pooled(pools: dict[str, PanelTally], rule: Rule, outcome: Outcome) -> None:
    """A warm rule's estimate of its panel, added to its pool (as learned.yml pools it)."""
    if rule.warm and outcome.panel is not None:
        pools[rule.name] = pools.get(rule.name, PanelTally()).plus(outcome.panel.tally)


@dataclass(frozen=True)
class Simulated:
    """Every rule's totals, and what the warm rule's last run held of the panel (its
    estimate with every earlier run's pooled in)."""

    totals: dict[str, Tally]
    learned: PanelEstimate | None


def simulate_rules(params: SimParams, chosen: Sequence[Rule]) -> Simulated:
    """Every rule on every PR of `params`, in sequence, totalled; each warm rule's estimates
    pooled PR after PR, in a pool of its own."""
    totals: dict[str, Tally] = {r.name: Tally() for r in chosen}
    pools: dict[str, PanelTally] = {}
    learned = None
    for index in range(params.prs):
        pr = make_pr(params, index)
        outcomes = asyncio.run(_one_pr(params, pr, chosen, pools))
        for rule, outcome in zip(chosen, outcomes, strict=True):
            totals[rule.name].add(_totalled(pr, outcome, params.judges))
            _pooled(pools, rule, outcome)
            if rule.name == WARM and outcome.panel is not None:
                learned = outcome.panel
    return Simulated(totals, learned)


# A repository's first PRs, warm: each window of its PRs (1-5, 6-10, 11-20, 21-40), over
# CURVE_REPOSITORIES repositories, each starting with no history.
CURVE_WINDOWS = ((1, 5), (6, 10), (11, 20), (21, 40))
CURVE_REPOSITORIES = 25


def learning_curve(params: SimParams, repositories: int = CURVE_REPOSITORIES) -> list[Tally]:
    """The default rule warm over `repositories` repositories of CURVE_WINDOWS[-1][1] PRs
    each, every one starting cold: totals per window of their PRs (the first window's first
    PR is a cold one). Their PRs follow the main run's (indices from `params.prs`)."""
    rule = next(r for r in rules(params.judges) if r.name == WARM)
    length = CURVE_WINDOWS[-1][1]
    windows = [Tally() for _ in CURVE_WINDOWS]
    for repository in range(repositories):
        pools: dict[str, PanelTally] = {}
        for n in range(1, length + 1):
            pr = make_pr(params, params.prs + repository * length + n - 1)
            (outcome,) = asyncio.run(_one_pr(params, pr, [rule], pools))
            at = next(i for i, (low, high) in enumerate(CURVE_WINDOWS) if low <= n <= high)
            windows[at].add(_totalled(pr, outcome, params.judges))
            _pooled(pools, rule, outcome)
    return windows


@dataclass(frozen=True)
class RulesRun:
    """One seed's totals: every rule under every preset."""

    seed: int
    prs: int
    presets: tuple[JudgePreset, ...]
    results: dict[str, dict[str, Tally]]  # preset name → rule name → totals
    curves: dict[str, list[Tally]]  # preset name → its learning curve's windows
    learned: dict[str, PanelEstimate] = field(default_factory=dict)  # … → warm's last estimate


def measure(params: SimParams, presets: Sequence[JudgePreset] = PRESETS) -> RulesRun:
    runs = {p.name: simulate_rules(replace(params, judges=p), rules(p)) for p in presets}
    curves = {p.name: learning_curve(replace(params, judges=p)) for p in presets}
    learned = {name: run.learned for name, run in runs.items() if run.learned is not None}
    results = {name: run.totals for name, run in runs.items()}
    return RulesRun(params.seed, params.prs, tuple(presets), results, curves, learned)


HEAD = (
    "| {what} | precision | recall | posted per 100 clean PRs | verification calls / PR |\n"
    "|---|---:|---:|---:|---:|"
)


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


def _checks(goal: Target, t: Tally) -> list[tuple[str, float, bool]]:
    return [
        (f"P ≥ {goal.precision:g}", t.precision, t.precision >= goal.precision),
        (f"R ≥ {goal.recall:g}", t.recall, t.recall >= goal.recall),
        (f"clean ≤ {goal.clean_per_100:g}/100", clean_per_100(t),
         clean_per_100(t) <= goal.clean_per_100),
        (f"calls ≤ {goal.calls:g}", calls_per_pr(t), calls_per_pr(t) <= goal.calls),
    ]  # fmt: skip


def warm_against_calibrated(results: dict[str, Tally]) -> tuple[float, float, bool]:
    """(precision and recall of warm minus calibrated, whether they are within the target)."""
    warm, calibrated = results[WARM], results[CALIBRATED]
    dp, dr = warm.precision - calibrated.precision, warm.recall - calibrated.recall
    close = abs(dp) <= WARM_PRECISION + 1e-9 and abs(dr) <= WARM_RECALL + 1e-9
    return dp, dr, close


def report(run: RulesRun) -> str:
    """What one seed measured, as the benchmark prints it."""
    lines = [f"{run.prs} PRs, seed {run.seed}.", ""]
    for preset in run.presets:
        results = run.results[preset.name]
        lines += [f"{preset.name} judges ({preset.describe()}):", "", HEAD.format(what="rule")]
        lines += [_row(name, results[name]) for name in (*FRONTIER, WARM, CALIBRATED, FEW)]
        goal = TARGETS[preset.name]
        marks = [f"{what} {'met' if ok else 'NOT MET'}" for what, _, ok in
                 _checks(goal, results[ESTIMATED])]  # fmt: skip
        dp, dr, ok = warm_against_calibrated(results)
        cold = results[ESTIMATED]
        lines += ["", f"cold against the targets: {', '.join(marks)}",
                  f"claims that reached consensus, no outside judge against: precision "
                  f"{unopposed_precision(cold):.3f} (P ≥ {goal.precision:g}); on clean PRs "
                  f"{unopposed_per_100(cold):.1f} per 100 (clean ≤ {goal.clean_per_100:g})",
                  f"warm against calibrated: precision {dp:+.3f}, recall {dr:+.3f}: "
                  f"{'met' if ok else 'NOT MET'}",
                  "a repository's first PRs, warm: " + "; ".join(
                      f"PRs {low}-{high} P {t.precision:.3f} R {t.recall:.3f}"
                      for (low, high), t in zip(CURVE_WINDOWS, run.curves[preset.name],
                                                strict=True)), ""]  # fmt: skip
    return "\n".join(lines)


# --------------------------------------------------------------------------- judges section


def judges_figures(runs: Sequence[RulesRun]) -> dict[str, str]:
    """The figures blocks of benchmarks/results/judges.md, from one run per seed (the first
    seed is shown in full, the others beside it)."""
    first = runs[0]
    conditions = [HEAD.format(what="judges (preset), condition, seed")]
    for preset in first.presets:
        for name in (ESTIMATED, WARM, CALIBRATED, FEW):
            for run in runs:
                label = f"{preset.name}, {condition(name)}, seed {run.seed}"
                cold = name == ESTIMATED and run is first
                conditions.append(_row(label, run.results[preset.name][name], bold=cold))
    return {
        "judges-conditions": "\n".join(conditions),
        "judges-targets": _targets(runs),
        "judges-curve": _curve(runs),
        "judges-learned": _learned(first),
        "judges-rules": _frontier(runs),
    }


def _targets(runs: Sequence[RulesRun]) -> str:
    """Each preset's cold figures against its targets, seed by seed, and warm against
    calibrated."""
    first = runs[0]
    seeds = ", ".join(str(run.seed) for run in runs)
    lines = [
        f"| preset | target | cold, seeds {seeds} | |",
        "|---|---|---|---|",
    ]
    for preset in first.presets:
        goal = TARGETS[preset.name]
        per_seed = [_checks(goal, run.results[preset.name][ESTIMATED]) for run in runs]
        for n, (what, _, _) in enumerate(per_seed[0]):
            figures = [checks[n] for checks in per_seed]
            values = ", ".join(f"{value:.3f}" if value < 1.5 else f"{value:.1f}"
                               for _, value, _ in figures)  # fmt: skip
            met = all(ok for _, _, ok in figures)
            lines.append(f"| {preset.name} | {what} | {values} | {'met' if met else 'NOT MET'} |")
            lines += _unopposed_rows(preset.name, n, goal, [
                run.results[preset.name][ESTIMATED] for run in runs])  # fmt: skip
        gaps = [warm_against_calibrated(run.results[preset.name]) for run in runs]
        shown = ", ".join(f"{dp:+.3f} / {dr:+.3f}" for dp, dr, _ in gaps)
        met = all(ok for _, _, ok in gaps)
        lines.append(
            f"| {preset.name} | warm within {WARM_PRECISION:g} precision and {WARM_RECALL:g} "
            f"recall of calibrated | {shown} | {'met' if met else 'NOT MET'} |"
        )
    return "\n".join(lines)


def _unopposed_rows(preset: str, check: int, goal: Target, cold: Sequence[Tally]) -> list[str]:
    """Under the precision target, the precision of the claims no vote speaks against (a
    rule that posts them starts from it); under the clean-posts one, the inventions among
    them on clean PRs (what the panel leaves any such rule to post there)."""
    unopposed = "the claims that reached consensus with no outside judge against them"
    if check == 0:
        shares = [unopposed_precision(t) for t in cold]
        under = all(share < goal.precision for share in shares)
        return [f"| {preset} | … the precision of {unopposed} | "
                f"{', '.join(f'{share:.3f}' for share in shares)} | "
                f"{'below the target' if under else 'above the target'} |"]  # fmt: skip
    if check == 2:
        floors = [unopposed_per_100(t) for t in cold]
        above = all(floor > goal.clean_per_100 for floor in floors)
        return [f"| {preset} | … of them, inventions among {unopposed} | "
                f"{', '.join(f'{floor:.1f}' for floor in floors)} | "
                f"{'above the target for every rule' if above else 'within reach'} |"]  # fmt: skip
    return []


def _curve(runs: Sequence[RulesRun]) -> str:
    """A repository's first PRs, warm, window by window, every seed's repositories together,
    beside the default rule cold and warm over each seed's 1,000 PRs."""
    first = runs[0]
    windows = " | ".join(f"PRs {low}-{high}" for low, high in CURVE_WINDOWS)
    lines = [
        f"| preset | {windows} | cold, all PRs | warm, all PRs |",
        "|---|" + "---:|" * (len(CURVE_WINDOWS) + 2),
    ]
    for preset in first.presets:
        cells = []
        for at in range(len(CURVE_WINDOWS)):
            t = Tally()
            for run in runs:
                t.add(run.curves[preset.name][at])
            cells.append(f"{t.precision:.3f} / {t.recall:.3f}")
        for name in (ESTIMATED, WARM):
            t = Tally()
            for run in runs:
                t.add(run.results[preset.name][name])
            cells.append(f"{t.precision:.3f} / {t.recall:.3f}")
        lines.append(f"| {preset.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _learned(run: RulesRun) -> str:
    """What the warm history holds of each family after `run`'s PRs, beside the simulated
    judge's rates (TNR as the product reads it: a false claim refuted or doubted)."""
    lines = [
        "| preset | family | TPR: simulated, warm estimate | TNR: simulated, warm estimate |",
        "|---|---|---|---|",
    ]
    for preset in run.presets:
        panel = run.learned.get(preset.name)
        for family in panel.families if panel else ():
            judge = preset.judge(family.family)
            doubted = judge.tnr + (1 - judge.tnr) * judge.uncertain
            lines.append(
                f"| {preset.name} | {family.family} | {judge.tpr:.2f}, {family.tpr.value:.2f} "
                f"({family.tpr.low:.2f}-{family.tpr.high:.2f}) | {doubted:.2f}, "
                f"{family.tnr.value:.2f} ({family.tnr.low:.2f}-{family.tnr.high:.2f}) |"
            )
    return "\n".join(lines)


def _frontier(runs: Sequence[RulesRun]) -> str:
    """Every rule of the frontier under every preset (cold; the first seed), the other
    seeds' figures in a line under each preset's table."""
    first = runs[0]
    parts = []
    for preset in first.presets:
        lines = [f"Under **{preset.name}** judges ({preset.describe()}):", "",
                 HEAD.format(what="rule")]  # fmt: skip
        lines += [_row(name, first.results[preset.name][name], bold=name == ESTIMATED)
                  for name in FRONTIER]  # fmt: skip
        for run in runs[1:]:
            figures = []
            for name in FRONTIER:
                t = run.results[preset.name][name]
                text = (f"{t.precision:.3f} / {t.recall:.3f} / {clean_per_100(t):.1f} / "
                        f"{calls_per_pr(t):.1f}")  # fmt: skip
                figures.append(f"**{text}**" if name == ESTIMATED else text)
            lines += ["", f"Seed {run.seed}: " + "; ".join(figures) + "."]
        parts.append("\n".join(lines))
    if runs[1:]:
        parts.append("(precision / recall / per 100 clean PRs / calls per PR, rules in the "
                     "order of the tables)")  # fmt: skip
    return "\n\n".join(parts)
