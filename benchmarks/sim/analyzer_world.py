"""A simulated static analyzer beside the quality benchmark's panel (benchmarks/sim/
quality_world.py): what a family that never invents but sees only what its rules see adds
to what is posted.

The analyzer ("ruff") covers Python, as the world's files are. It reports a true bug only
when the bug's kind is one a linter's rules catch (`CAUGHT`: an f-string query, a
hard-coded key, a mutable default, `is` with a literal, a swallowed exception, a request
without a timeout, a file opened without `with`), with recall `recall` on those, at the
bug's own line (an analyzer does not misplace lines), under the rule a real ruff would
name. It is blind to logic bugs (an off-by-one, a None dereference, a race, a missed
await, …). Its false positives are few (`fp_per_pr`, a rule firing on code that is fine).

The decision is the product's REAL code (review/vote.align_and_score: align with the
"same problem?" questions put to the world's simulated verifier, score with the analyzer
among the file's reviewers, the scan's and the analyzer's settle); no verification, so
that the figure is what the vote itself does with the extra family.

    python benchmarks/analyzer_quality_bench.py [--prs 300] [--seed 1]
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.sim import quality_world as world
from consensus.decide.analyzers import analyzer_finding
from consensus.model.analysis import AnalyzerResult, AnalyzerRun, Posting
from consensus.model.base import Severity
from consensus.review.ledger import Ledger
from consensus.review.vote import Ballot, align_and_score
from consensus.settings.config import BudgetSettings, ProviderSettings, Settings

# The bug kinds of the world's catalogue a linter's rules catch, and the rule ruff names.
CAUGHT: dict[str, tuple[str, str]] = {
    "sql": ("S608", "Possible SQL injection vector through string-based query construction"),
    "secret": ("S105", "Possible hardcoded password assigned to a variable"),
    "mutable-default": ("B006", "Do not use mutable data structures for argument defaults"),
    "is-literal": ("F632", "Use `==` to compare constant literals"),
    "swallow": ("S110", "`try`-`except`-`pass` detected, consider logging the exception"),
    "timeout": ("S113", "Probable use of `requests` call without timeout"),
    "leak": ("SIM115", "Use a context manager for opening files"),
}
NOISE_RULE = ("PLW2901", "`for` loop variable overwritten by assignment target")


@dataclass(frozen=True)
class Analyzer:
    """The simulated analyzer: its recall on the kinds it catches, its false positives."""

    name: str = "ruff"
    recall: float = 0.6
    fp_per_pr: float = 0.1
    posting: Posting = Posting.WITH_MODELS


def analyzer_run(pr: world.SimPR, analyzer: Analyzer, seed: int, index: int) -> AnalyzerRun:
    """What the analyzer reports on one simulated PR: a function of the seed."""
    rng = random.Random(f"analyzer:{seed}:{index}")
    results = []
    for bug in pr.bugs:
        caught = CAUGHT.get(bug.kind.name)
        if caught is None or rng.random() >= analyzer.recall:
            continue
        rule, message = caught
        results.append(_result(rule, message, bug.path, bug.line, Severity.HIGH))
    spots = [
        (changed.path, line.new_line)
        for changed in pr.diff.files
        for hunk in changed.hunks
        for line in hunk.lines
        if line.kind == "+" and line.new_line is not None
    ]
    fine = [(p, n) for p, n in spots if world.about_bug(pr.bugs, p, n, n) is None]
    for _ in range(_count(rng, analyzer.fp_per_pr)):
        if fine:
            path, line = rng.choice(fine)
            results.append(_result(*NOISE_RULE, path, line, Severity.LOW))
    return AnalyzerRun(
        name=analyzer.name, covers=("Python",), results=tuple(results), posting=analyzer.posting
    )


def _result(rule: str, message: str, path: str, line: int, severity: Severity) -> AnalyzerResult:
    return AnalyzerResult(
        rule=rule, path=path, line=line, end_line=line, message=message, severity=severity
    )


def _count(rng: random.Random, mean: float) -> int:
    whole = int(mean)
    return whole + (1 if rng.random() < mean - whole else 0)


async def posted(
    params: world.SimParams,
    pr: world.SimPR,
    runs: Sequence[AnalyzerRun],
    threshold: float = 0.75,
) -> world.Tally:
    """The PR's posted findings, through the product's vote, counted against the truth."""
    settings = Settings(
        threshold=threshold,
        budget=BudgetSettings(max_cost_usd=None, max_tokens=None),
        concurrency=params.concurrency,
    )
    client = world.verifier(pr, params)
    panel = [ProviderSettings(model=r.model, family=r.family) for r in params.reviewers]
    ballot = Ballot(pr.diff, settings, client, Ledger(settings.budget), panel)
    scored, _ = await align_and_score(ballot, world.results_of(params, pr), runs, ask=True)
    shown = [s.cluster for s in scored if s.status.posted]
    return world.tally(pr, shown, same=len(client.calls))


@dataclass(frozen=True)
class Row:
    method: str
    tally: world.Tally


def simulate(params: world.SimParams, analyzer: Analyzer = Analyzer()) -> list[Row]:
    """The same PRs decided without the analyzer, with it posting on a model's agreement,
    with it posting on its own, and the analyzer's own results alone."""
    alone = Analyzer(analyzer.name, analyzer.recall, analyzer.fp_per_pr, Posting.ALONE)
    methods = {
        "the models only": None,
        f"+ {analyzer.name}, posted with a model's agreement": analyzer,
        f"+ {analyzer.name}, posted on its own": alone,
    }
    totals = {name: world.Tally() for name in methods}
    own = world.Tally()
    for index in range(params.prs):
        pr = world.make_pr(params, index)
        for name, chosen in methods.items():
            runs = () if chosen is None else (analyzer_run(pr, chosen, params.seed, index),)
            totals[name].add(asyncio.run(posted(params, pr, runs)))
        run = analyzer_run(pr, analyzer, params.seed, index)
        own.add(world.tally(pr, [analyzer_finding(run, r) for r in run.results]))
    rows = [Row(name, tally) for name, tally in totals.items()]
    return [*rows, Row(f"{analyzer.name} alone (every result)", own)]


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| method | precision | recall | F1 | posted per PR | false per PR |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        t = row.tally
        lines.append(
            f"| {row.method} | {t.precision:.3f} | {t.recall:.3f} | {t.f1:.3f} | "
            f"{t.per_pr(t.tp + t.fp):.2f} | {t.per_pr(t.fp):.2f} |"
        )
    return "\n".join(lines)
