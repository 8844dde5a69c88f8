"""Assemble the report from scored clusters and call results.

Finding ids follow one stated order, so the same replies always give the same ids:
posted findings first, then by severity (most severe first), path, line and title.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from consensus.decide.coverage import file_coverage, incompleteness
from consensus.ingest.risk import risk_order
from consensus.model.base import Status
from consensus.model.diff import MovedLines, ReviewDiff, moved_from
from consensus.model.findings import (
    Cluster,
    ModelFailure,
    ModelReview,
    ScoredCluster,
    Suggestion,
    Usage,
)
from consensus.model.panel import PanelEstimate
from consensus.model.report import (
    BudgetReport,
    FindingMember,
    ProviderReport,
    Quorum,
    Report,
    ReportFinding,
    Stats,
    Votes,
)

CallResult = ModelReview | ModelFailure
VerificationState = Literal["done", "skipped", "not_needed", "not_available"]


def finding_order(scored: ScoredCluster) -> tuple[int, int, str, int, str]:
    cluster = scored.cluster
    return (
        0 if scored.status.posted else 1,
        -cluster.severity.rank,
        cluster.path,
        cluster.line,
        cluster.title,
    )


def chosen_suggestion(cluster: Cluster) -> Suggestion | None:
    """One reporting provider's suggestion for exactly the finding's lines, verbatim.

    Only suggestions for `line`..`end_line` of the finding count (another range would
    replace other lines). Of those, the text the most providers wrote wins, then the
    provider first in name order: one model's words, never a blend of several.
    """
    offers = [
        (member.provider, member.family, member.suggestion)
        for member in cluster.members
        if member.suggestion is not None
        and (member.suggestion.line, member.suggestion.end_line) == (cluster.line, cluster.end_line)
    ]
    if not offers:
        return None
    backers: dict[str, set[str]] = defaultdict(set)
    for _, family, suggestion in offers:
        backers[suggestion.text].add(family)
    provider, _, suggestion = min(offers, key=lambda o: (-len(backers[o[2].text]), o[0]))
    return suggestion.model_copy(update={"provider": provider})


def report_findings(
    scored: Sequence[ScoredCluster], moved: Sequence[MovedLines] = ()
) -> list[ReportFinding]:
    ordered = sorted(scored, key=finding_order)
    return [
        ReportFinding(
            id=f"F{number}",
            fingerprint=item.cluster.fingerprint,
            path=item.cluster.path,
            line=item.cluster.line,
            end_line=item.cluster.end_line,
            severity=item.cluster.severity,
            category=item.cluster.category,
            title=item.cluster.title,
            body=item.cluster.body,
            agreement=item.agreement,
            votes=Votes(**{"for": item.votes_for, "of": item.votes_of}),
            providers=list(item.cluster.providers),
            personas=list(item.cluster.personas),
            status=item.status,
            reason=item.reason,
            verification=item.verification,
            suggestion=chosen_suggestion(item.cluster),
            members=tuple(
                FindingMember(
                    provider=m.provider,
                    family=m.family,
                    persona=m.persona,
                    line=m.line,
                    title=m.title,
                    source=m.source,
                    rule=m.rule,
                )
                for m in item.cluster.members
            ),
            moved_from=moved_from(
                moved, item.cluster.path, item.cluster.line, item.cluster.end_line
            ),
            ungrounded=item.cluster.ungrounded,
        )
        for number, item in enumerate(ordered, start=1)
    ]


def provider_reports(
    models: Sequence[tuple[str, str]],
    results: Sequence[CallResult],
    verification: Mapping[str, Usage] | None = None,
    unpriced: Collection[str] = (),
) -> list[ProviderReport]:
    """One entry per provider (model, family), in configuration order; verification calls
    (inspector and votes) count in its calls, tokens and cost."""
    verification = verification or {}
    by_model: dict[str, list[CallResult]] = defaultdict(list)
    for result in results:
        by_model[result.provider].append(result)
    reports = []
    for model, family in models:
        mine = by_model.get(model, [])
        ok = [r for r in mine if isinstance(r, ModelReview)]
        failed = [r for r in mine if isinstance(r, ModelFailure) and r.sent]
        unsent = [r for r in mine if isinstance(r, ModelFailure) and not r.sent]
        usage = sum((r.usage for r in mine), Usage()) + verification.get(model, Usage())
        usage_calls = usage.calls
        if ok:
            status = "ok"
        elif usage_calls or any(
            f.kind.value not in ("circuit_open", "budget") for f in (*failed, *unsent)
        ):
            status = "failed"
        else:
            status = "skipped"
        first_error = failed[0] if failed else unsent[0] if unsent else None
        reports.append(
            ProviderReport(
                model=model,
                family=family,
                status=status,
                error=f"{first_error.kind.value}: {first_error.message}" if first_error else None,
                # sent: every paid call, and each failed one that was never paid for
                calls=usage_calls + sum(1 for f in failed if not f.usage.calls),
                failed_calls=len(failed),
                not_sent=len(unsent),
                tokens_in=usage.tokens_in,
                tokens_out=usage.tokens_out,
                cost_usd=None if model in unpriced and usage_calls else round(usage.cost_usd, 6),
                latency_s=round(max((r.usage.latency_s for r in mine), default=0.0), 3),
                files_seen=sorted({path for r in ok for path in r.paths}),
                chunks=len({r.chunk for r in mine}),
            )
        )
    return reports


@dataclass(frozen=True)
class ReportParts:
    """What a run produced and under which rules, for `build_report`. `reviewed` False: the
    diff had no file to send to a model, so no quorum was needed (the report still lists
    the skipped files and consensus's own findings)."""

    run_id: str
    diff: ReviewDiff
    scored: Sequence[ScoredCluster]
    results: Sequence[CallResult]
    models: Sequence[tuple[str, str]]
    threshold: float
    min_providers: int
    wall_s: float
    notes: Sequence[str] = ()
    verification: VerificationState = "not_available"
    verification_usage: Mapping[str, Usage] | None = None
    budget_exhausted: bool = False
    reviewed: bool = True
    workflow: str | None = None
    budget: BudgetReport | None = None
    panel: PanelEstimate | None = None


def build_report(parts: ReportParts) -> Report:
    """The report of a run, from its parts."""
    run_id, diff, scored, results = parts.run_id, parts.diff, parts.scored, parts.results
    models, wall_s, verification_usage = parts.models, parts.wall_s, parts.verification_usage
    min_providers, reviewed, budget = parts.min_providers, parts.reviewed, parts.budget
    findings = report_findings(scored, diff.moved)
    providers = provider_reports(
        models, results, verification_usage, budget.unpriced if budget else ()
    )
    coverage = file_coverage(
        [f.path for f in risk_order(diff.files, {r.path for r in diff.redactions})],
        [model for model, _ in models],
        results,
    )
    stopped = sum(1 for s in scored if s.verification and s.verification.budget_stopped)
    answered = {r.family for r in results if isinstance(r, ModelReview)}
    dropped = [d for r in results if isinstance(r, ModelReview) for d in r.dropped]
    counts = {status: sum(1 for f in findings if f.status is status) for status in Status}
    stats = Stats(
        calls=sum(p.calls for p in providers),
        tokens_in=sum(p.tokens_in for p in providers),
        tokens_out=sum(p.tokens_out for p in providers),
        cost_usd=None
        if any(p.cost_usd is None for p in providers)
        else round(sum(p.cost_usd or 0.0 for p in providers), 6),
        wall_s=round(wall_s, 3),
        clusters=len(findings),
        consensus=counts[Status.CONSENSUS],
        verified=counts[Status.VERIFIED],
        rejected=counts[Status.REJECTED],
        undecided=counts[Status.UNDECIDED],
        unverified=counts[Status.UNVERIFIED],
        dropped=len(dropped),
    )
    return Report(
        run_id=run_id,
        workflow=parts.workflow,
        findings=findings,
        providers=providers,
        stats=stats,
        quorum=Quorum(
            families_answered=len(answered),
            min_providers=min_providers,
            met=len(answered) >= min_providers or not reviewed,
        ),
        threshold=parts.threshold,
        skipped_files=list(diff.skipped),
        redactions=list(diff.redactions),
        dropped_findings=dropped,
        notes=list(parts.notes),
        verification=parts.verification,
        budget_exhausted=parts.budget_exhausted,
        incomplete=incompleteness(coverage, results, budget=budget, verification_stopped=stopped)
        if reviewed
        else None,
        coverage=coverage if reviewed else [],
        budget=budget,
        panel=parts.panel,
    )
