"""What a bench run found: every configuration's figures, every judgement, and the
published figures beside them. Pure: judged findings in, one frozen BenchResult out (the
JSON file is its dump)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consensus.bench.judge import BenchFinding, GoldenMatch
from consensus.bench.martian import PublishedFigures
from consensus.bench.precision import (
    Figure,
    SeverityRow,
    by_group,
    by_severity,
    count_pr,
    figure,
)
from consensus.bench.suite import Suite
from consensus.model.base import Frozen
from consensus.model.report import ReportFinding

CONSENSUS = "consensus"
NO_VERIFY = "consensus-no-verify"
SOLO = "solo:"  # + the provider's model


def variant_label(name: str) -> str:
    if name == CONSENSUS:
        return "consensus (with verification)"
    if name == NO_VERIFY:
        return "consensus without verification"
    return f"{name.removeprefix(SOLO)} alone"


class PRRun(Frozen):
    """What reviewing one pull request took (the consensus run; the others are derived
    from its journal), and what judging it took."""

    pr: str
    group: str
    run_id: str
    cost_usd: float | None  # None: a model without a known price was called
    wall_s: float
    calls: int
    judge_cost_usd: float
    judge_calls: int
    incomplete: bool  # budget reached, or no quorum: fewer findings than the panel could give


class PRFigures(Frozen):
    pr: str
    findings: int
    tp: int
    fp: int
    fn: int
    cost_usd: float | None
    duplicates: int = 0  # of fp: a second finding on a golden already matched
    clean: bool = False  # no golden: every finding is a false positive


class VariantResult(Frozen):
    name: str
    label: str
    overall: Figure
    by_repository: dict[str, Figure]
    by_severity: list[SeverityRow]
    per_pr: list[PRFigures]
    # what reviewing with this configuration alone costs (its calls' prices); None: unknown
    cost_usd: float | None


class JudgedFinding(Frozen):
    """One judgement, and which configurations posted the finding."""

    pr: str
    finding: BenchFinding
    verdict: str  # match | no_match | failed
    golden: int | None  # 1-based, as in the suite
    golden_comment: str
    reason: str
    judge: str
    posted_by: list[str]


class BenchResult(Frozen):
    suite: str
    source: str
    licence: str
    judge: str
    prs: int
    goldens: int
    variants: list[VariantResult]
    clean_prs: int = 0  # pull requests of the suite without a golden
    runs: list[PRRun]
    judgements: list[JudgedFinding]
    published_judge: str | None = None
    published: tuple[PublishedFigures, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def total_cost_usd(self) -> float | None:
        return known_total(
            [*(r.cost_usd for r in self.runs), *(r.judge_cost_usd for r in self.runs)]
        )


def known_total(costs: Sequence[float | None]) -> float | None:
    """The sum of costs, or None when one is unknown: an unknown price is not zero."""
    if any(c is None for c in costs):
        return None
    return round(sum(c for c in costs if c is not None), 6)


@dataclass
class Tally:
    """What a bench gathers, pull request by pull request, before it is scored."""

    runs: list[PRRun] = field(default_factory=list)
    # variant → PR key → the findings it posted; variant → PR key → its cost in USD
    posted: dict[str, dict[str, list[BenchFinding]]] = field(default_factory=dict)
    costs: dict[str, dict[str, float | None]] = field(default_factory=dict)
    judgements: dict[tuple[str, str], GoldenMatch] = field(default_factory=dict)  # (PR, finding)
    # (PR key, origin, the consensus run's findings, path → that file's diff), for labels
    reviewed: list[tuple[str, str, Sequence[ReportFinding], Mapping[str, str]]] = field(
        default_factory=list
    )
    notes: list[str] = field(default_factory=list)


def build_result(
    suite: Suite,
    *,
    judge: str,
    tally: Tally,
    published_judge: str | None,
    published: Sequence[PublishedFigures],
) -> BenchResult:
    """The figures of every configuration, and every judgement, from what was gathered."""
    posted, costs, judgements, notes = tally.posted, tally.costs, tally.judgements, tally.notes
    variants = []
    for name, by_pr in posted.items():
        counts = []
        rows = []
        for pr in suite.prs:
            findings = by_pr.get(pr.key, ())
            mine = {
                f.key: judgements[(pr.key, f.key)]
                for f in findings
                if (pr.key, f.key) in judgements
            }
            counted = count_pr(pr, findings, mine)
            counts.append(counted)
            cost = costs.get(name, {}).get(pr.key, 0.0)
            rows.append(
                PRFigures(pr=pr.key, findings=len(findings), tp=counted.tp, fp=counted.fp,
                          fn=counted.fn, cost_usd=None if cost is None else round(cost, 6),
                          duplicates=counted.duplicates, clean=counted.clean)
            )  # fmt: skip
        variants.append(
            VariantResult(
                name=name,
                label=variant_label(name),
                overall=figure(counts),
                by_repository=by_group(counts),
                by_severity=by_severity(counts),
                per_pr=rows,
                cost_usd=known_total([r.cost_usd for r in rows]),
            )
        )
    failed = sum(1 for j in judgements.values() if j.matched is None)
    if failed:
        notes = [*notes, f"{failed} judgement(s) failed and count as matching no golden "
                 "(their reasons are in bench.json)"]  # fmt: skip
    return BenchResult(
        suite=suite.name,
        source=suite.source,
        licence=suite.licence.strip().splitlines()[0] if suite.licence.strip() else "",
        judge=judge,
        prs=len(suite.prs),
        goldens=sum(len(pr.goldens) for pr in suite.prs),
        clean_prs=sum(1 for pr in suite.prs if not pr.goldens),
        variants=variants,
        runs=list(tally.runs),
        judgements=_judged(judgements, posted),
        published_judge=published_judge,
        published=tuple(published),
        notes=tuple(notes),
    )


def _judged(
    judgements: Mapping[tuple[str, str], GoldenMatch],
    posted: Mapping[str, Mapping[str, Sequence[BenchFinding]]],
) -> list[JudgedFinding]:
    who: dict[tuple[str, str], list[str]] = {}
    for name, by_pr in posted.items():
        for pr, findings in by_pr.items():
            for finding in findings:
                who.setdefault((pr, finding.key), []).append(name)
    rows = []
    for (pr, key), judgement in judgements.items():
        verdict = "match" if judgement.hit else "no_match"
        if judgement.matched is None:
            verdict = "failed"
        rows.append(
            JudgedFinding(
                pr=pr,
                finding=judgement.finding,
                verdict=verdict,
                golden=None if judgement.golden is None else judgement.golden + 1,
                golden_comment=judgement.golden_comment,
                reason=judgement.reason,
                judge=judgement.judge,
                posted_by=sorted(set(who.get((pr, key), []))),
            )
        )
    return rows
