"""The run's budget from its plan, and its report: the caps, the cap that stopped it, and
what would finish the review. Read from the calls' outcomes, so a replay agrees."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.model.base import FailureKind
from consensus.model.diff import ReviewDiff
from consensus.model.findings import ModelFailure, ScoredCluster
from consensus.model.report import BudgetReport
from consensus.ports import TokenCounter
from consensus.review.budget import (
    Ceiling,
    RunBudget,
    plan_budget,
    round_up_dollars,
    round_up_tokens,
    worst_case,
)
from consensus.review.fanout import CallResult, ReviewCall
from consensus.review.ledger import Ledger, Limit, limits_named
from consensus.review.tally import MAX_CALLS_PER_FINDING
from consensus.settings.config import BudgetSettings


def plan_run_budget(
    settings: BudgetSettings,
    calls: Sequence[ReviewCall],
    counter: TokenCounter,
    diff: ReviewDiff,
    ceiling: Ceiling | None = None,
) -> RunBudget:
    """The run's caps, from `settings` and the worst case of the review calls it will send,
    never above `ceiling`."""
    models = dict.fromkeys(c.provider.model for c in calls)
    return plan_budget(
        settings,
        [worst_case(c.request, counter) for c in calls],
        unpriced=[m for m in models if counter.price(m) is None],
        changed_lines=sum(f.added + f.removed for f in diff.files),
        ceiling=ceiling,
    )


def budget_report(
    budget: RunBudget,
    ledger: Ledger,
    results: Sequence[CallResult],
    scored: Sequence[ScoredCluster],
) -> BudgetReport:
    """The caps, the one that stopped the run, and what finishes the review: the plan's
    worst case, or for a stop during verification what was spent plus each unfinished
    finding's verification at its longest (the per-finding call cap), rounded up."""
    unfinished = sum(1 for s in scored if s.verification and s.verification.budget_stopped)
    largest = ledger.largest_refused if ledger.largest_refused else None
    tokens = budget.needed_tokens
    cost = budget.needed_cost_usd
    if unfinished and largest is not None:
        tokens = max(tokens, ledger.tokens + unfinished * MAX_CALLS_PER_FINDING * largest.tokens)
        if cost is not None and largest.cost_usd is not None:
            cost = max(
                cost, ledger.cost_usd + unfinished * MAX_CALLS_PER_FINDING * largest.cost_usd
            )
    return BudgetReport(
        max_tokens=budget.max_tokens,
        max_cost_usd=budget.max_cost_usd,
        tokens_source=budget.tokens_source,
        cost_source=budget.cost_source,
        needed_tokens=round_up_tokens(tokens),
        needed_cost_usd=None if cost is None else round_up_dollars(cost),
        stopped_by=sorted(limit.value for limit in _stopped_by(results, scored)),
        unpriced=list(budget.unpriced),
    )


def _stopped_by(results: Sequence[CallResult], scored: Sequence[ScoredCluster]) -> set[Limit]:
    """The caps that refused a call, read from the outcomes (so a replay agrees)."""
    named = [
        r.message for r in results if isinstance(r, ModelFailure) and r.kind is FailureKind.BUDGET
    ]
    named += [
        s.verification.note for s in scored if s.verification and s.verification.budget_stopped
    ]
    return {limit for message in named for limit in limits_named(message)}
