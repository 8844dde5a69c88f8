"""Judges that look, in the quality benchmark: the default rule, cold, under each judge
preset, with the judges offered the verification tools over each PR's simulated
repository, at three effects of looking, beside today's rule (the same PRs, judges blind).

    python benchmarks/quality_bench.py --looking-only [--prs 1000] [--seeds 1,2,3] [--workers 3]

The PRs are the quality simulation's (benchmarks/sim/quality_world.py) with every finding
quoting its code (`evidence_all`, a share of inventions fabricating it); each gets a
repository (benchmarks/sim/looking_world.py) whose trees the product's own tools answer
from (`Looker` over a `Snapshot` of `FakeTrees`, redacted as in a run). The judges are
benchmarks/sim/looking_verifier.py's. "Today's rule" is the same code with no tools
offered (today's verifier); at effect none the judges look and answer as blind, so its
figures differ from today's only by what the product makes of votes that cite.

Cost: judge calls plus tool rounds per PR (every model call of verification and of
"same problem?", each tool round one call) against today's judge calls; tokens per PR
estimated at four characters a token (the fake client reports none).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from benchmarks.sim.judge_presets import AGREEABLE, DISCERNING, EFFECTS, IMPARTIAL, MIXED
from benchmarks.sim.looking_verifier import LookingVerifier
from benchmarks.sim.looking_world import PLACES, Repo, repository
from benchmarks.sim.quality_world import (
    DEFAULT,
    HEADLINE,
    Outcome,
    SimParams,
    SimPR,
    Tally,
    decide,
    make_pr,
    now,
    tally,
)
from benchmarks.sim.sections import table
from consensus.inspect.snapshot import Snapshot, redactor
from consensus.model.findings import ScoredCluster
from consensus.review.judge_tools import Looker

PRESETS = (AGREEABLE, IMPARTIAL, DISCERNING, MIXED)
TODAY = "today's rule (blind)"


@dataclass(frozen=True)
class Target:
    precision: float
    recall: float
    clean_per_100: float


TARGETS = {
    AGREEABLE.name: Target(0.95, 0.75, 3),
    IMPARTIAL.name: Target(0.98, 0.90, 2),
    DISCERNING.name: Target(0.98, 0.90, 2),
    MIXED.name: Target(0.95, 0.80, 3),
}
NONE_WITHIN = 0.01  # effect none: precision and recall within this of today's rule …
CLEAN_WITHIN = 1.0  # … and posts per 100 clean PRs within this (0.01 a clean PR)
COST_LIMIT = 2.0  # judge calls plus tool rounds within this many times today's


@dataclass
class Run:
    """One (preset, effect) over one seed's PRs: the tally and what the judges did."""

    tally: Tally = field(default_factory=Tally)
    tokens: int = 0
    tool_calls: int = 0
    looked: int = 0  # verdicts given having read the deciding line
    blind: int = 0
    grounded: int = 0  # votes whose citations the product's check accepted
    votes: int = 0
    clean_unjudged: int = 0  # posts on clean PRs that no judge saw (consensus, unchecked)

    def add(self, other: Run) -> None:
        self.tally.add(other.tally)
        names = ("tokens", "tool_calls", "looked", "blind", "grounded", "votes", "clean_unjudged")
        for name in names:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Seed:
    seed: int
    runs: dict[tuple[str, str], Run]
    places: Counter[str]
    seconds: float


def looking_params(prs: int, seed: int) -> SimParams:
    return replace(DEFAULT, prs=prs, seed=seed, evidence_all=True, sweep=False)


async def _one_pr(params: SimParams, pr: SimPR, repo: Repo) -> dict[tuple[str, str], Run]:
    threshold, k = HEADLINE
    snapshot = Snapshot(repo.trees, redactor())
    shared: dict[tuple[bool, float], tuple[list[ScoredCluster], int]] = {}
    scoring = LookingVerifier(pr, params, repo, 0.0)  # "same problem?": one client for all
    await decide(params, pr, now(), threshold, k, client=scoring.client(), shared=shared)
    same_tokens = scoring.counts.same_tokens
    out: dict[tuple[str, str], Run] = {}
    for preset in PRESETS:
        judged = replace(params, judges=preset)
        for effect, share in ((TODAY, None), *EFFECTS):
            judge = LookingVerifier(pr, judged, repo, share or 0.0)
            looker = None if share is None else Looker(snapshot)
            outcome = await decide(judged, pr, now(), threshold, k, client=judge.client(),
                                   shared=shared, looker=looker)  # fmt: skip
            out[(preset.name, effect)] = _run(pr, outcome, judge, same_tokens)
    return out


def _run(pr: SimPR, outcome: Outcome, judge: LookingVerifier, same_tokens: int) -> Run:
    posted = [s.cluster for s in outcome.items if s.status.posted]
    unjudged = sum(1 for s in outcome.items if s.status.posted and s.verification is None)
    votes = [v for s in outcome.items if s.verification for v in s.verification.votes]
    return Run(
        tally=tally(pr, posted, outcome.verify_calls, outcome.same_calls),
        tokens=judge.counts.verify_tokens + same_tokens,
        tool_calls=judge.counts.tool_calls,
        looked=judge.counts.looked,
        blind=judge.counts.blind,
        grounded=sum(1 for v in votes if v.grounded),
        votes=len(votes),
        clean_unjudged=unjudged if pr.clean else 0,
    )


def run_seed(prs: int, seed: int) -> Seed:
    """Every preset and effect on one seed's PRs (one process)."""
    started = time.perf_counter()
    params = looking_params(prs, seed)
    runs: dict[tuple[str, str], Run] = {}
    places: Counter[str] = Counter()
    for index in range(prs):
        pr = make_pr(params, index)
        repo = repository(pr, seed, index)
        places.update(repo.places)
        for key, run in asyncio.run(_one_pr(params, pr, repo)).items():
            runs.setdefault(key, Run()).add(run)
    return Seed(seed, runs, places, time.perf_counter() - started)


def measure(prs: int, seeds: Sequence[int], workers: int = 1) -> list[Seed]:
    """One process a seed, `workers` at a time."""
    if workers <= 1:
        return [run_seed(prs, seed) for seed in seeds]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_seed, [prs] * len(seeds), seeds))


def _per_100(t: Tally) -> float:
    return 100 * t.clean_posted / t.clean_prs if t.clean_prs else 0.0


def _calls(t: Tally) -> float:
    return t.per_pr(t.verify_calls + t.same_calls)


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def figures(seeds: Sequence[Seed]) -> str:
    """The section's table: per preset, effect and seed, the figures beside the targets."""
    rows = []
    for preset in PRESETS:
        goal = TARGETS[preset.name]
        for seed in seeds:
            today = seed.runs[(preset.name, TODAY)]
            before = today.tally
            for effect in (TODAY, *(name for name, _ in EFFECTS)):
                run = seed.runs[(preset.name, effect)]
                t = run.tally
                cost = _calls(t) / _calls(before) if _calls(before) else 0.0
                if effect == TODAY:
                    verdict = "–"
                elif effect == "none":
                    same = (abs(t.precision - before.precision) <= NONE_WITHIN
                            and abs(t.recall - before.recall) <= NONE_WITHIN
                            and abs(_per_100(t) - _per_100(before)) <= CLEAN_WITHIN)  # fmt: skip
                    verdict = f"as today: {_mark(same)}; cost {_mark(cost <= COST_LIMIT)}"
                else:
                    met = (t.precision >= goal.precision and t.recall >= goal.recall
                           and _per_100(t) <= goal.clean_per_100)  # fmt: skip
                    verdict = f"targets {_mark(met)}; cost {_mark(cost <= COST_LIMIT)}"
                looked = run.looked / (run.looked + run.blind) if run.looked + run.blind else 0.0
                rows.append((
                    f"{preset.name}, {effect}, seed {seed.seed}",
                    f"{t.precision:.3f}", f"{t.recall:.3f}",
                    f"{_per_100(t):.1f} ({t.clean_posted} on {t.clean_prs}; "
                    f"{run.clean_unjudged} unjudged)",
                    f"{_calls(t):.1f} ({cost:.2f}×)", f"{t.per_pr(run.tool_calls):.1f}",
                    f"{t.per_pr(run.tokens):,.0f}", f"{looked:.2f}",
                    f"{run.grounded / run.votes if run.votes else 0.0:.2f}", verdict,
                ))  # fmt: skip
    head = (
        "judges, effect of looking, seed", "precision", "recall",
        "posted per 100 clean PRs (posts on clean PRs; of them no judge saw)",
        "judge calls + tool rounds / PR (× today)", "tool calls / PR", "tokens / PR (est.)",
        "verdicts having read the deciding line", "grounded votes", "",
    )  # fmt: skip
    return table(head, "lrrrrrrrrl", rows)


def targets_text() -> str:
    goals = "; ".join(
        f"{name}: precision ≥ {t.precision:g}, recall ≥ {t.recall:g}, ≤ {t.clean_per_100:g} "
        "per 100 clean PRs"
        for name, t in TARGETS.items()
    )
    return (
        f"Targets (stated and half effects): {goals}. At effect none: precision and recall "
        f"within {NONE_WITHIN:g} of today's rule, posts per 100 clean PRs within "
        f"{CLEAN_WITHIN:g}. Cost: judge calls plus tool rounds ≤ {COST_LIMIT:g}× today's."
    )


def places_text(seeds: Sequence[Seed]) -> str:
    total: Counter[str] = Counter()
    for seed in seeds:
        total.update(seed.places)
    n = sum(total.values()) or 1
    drawn = ", ".join(f"{place} {share:.0%}" for place, share in PLACES)
    got = ", ".join(f"{place} {total[place] / n:.0%}" for place, _ in PLACES)
    return (
        f"Where an invention's refutation lives, drawn: {drawn}; as placed ({n} inventions, "
        f"a guard with no room before the hunk moved on): {got}."
    )


def looking_figures(prs: int, seeds: Sequence[Seed], workers: int) -> dict[str, str]:
    """The judges section's block of judges that look (benchmarks/results/judges.md)."""
    return {"judges-looking": report(prs, seeds, workers)}


def report(prs: int, seeds: Sequence[Seed], workers: int) -> str:
    seconds = ", ".join(f"seed {s.seed} {s.seconds:.0f} s" for s in seeds)
    return "\n\n".join([
        f"{prs} PRs a seed, cold (no calibration, no history, the default configuration).",
        targets_text(), figures(seeds), places_text(seeds),
        f"Runtime: {seconds} ({workers} worker process{'es' if workers > 1 else ''}).",
    ])  # fmt: skip
