"""Who reviewed which file, and whether the review is complete: one truth for every output.

Pure. From the review calls' outcomes: per changed file and provider, `reviewed` (a valid
review of a chunk holding it), `failed` (calls about it were sent, none gave a valid
review) or `not asked: <why>` (no call about it was sent: the budget, the circuit
breaker, a missing key). A review is incomplete when a planned call was never sent or a
file was reviewed by no model; `incompleteness` words it once, with the exact flag or
setting that completes it, and every renderer starts with those words.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from consensus.model.base import FailureKind
from consensus.model.findings import ModelFailure, ModelReview
from consensus.model.report import BudgetReport, FileCoverage, Incomplete

CallResult = ModelReview | ModelFailure
NOT_A_CLEAN_BILL = "What was not reviewed may still hold problems."
FAILURE_FIX = (
    "Run again when the providers answer (each provider's error is in the report); calls "
    "already answered are not paid again."
)
# Failures that running again cannot mend: the configuration must change first.
CONFIG_FAILURES = frozenset({FailureKind.NOT_FOUND, FailureKind.AUTH, FailureKind.BAD_REQUEST})
CONFIG_FIX = (
    "Running again as it is fails the same way: correct the providers named in the report "
    "(a model the server does not have, a key it refuses); `consensus doctor` checks each."
)
_WHY = {
    FailureKind.BUDGET: "budget",
    FailureKind.CIRCUIT_OPEN: "circuit breaker: the provider failed repeatedly",
}


def not_asked_reason(failure: ModelFailure) -> str:
    return _WHY.get(failure.kind, failure.message.removeprefix("not called: "))


def file_coverage(
    paths: Sequence[str], models: Sequence[str], results: Sequence[CallResult]
) -> list[FileCoverage]:
    """Each of `paths` (in the order given) with each model's state for it."""
    outcomes: dict[tuple[str, str], list[CallResult]] = defaultdict(list)
    for result in results:
        for path in result.paths:
            outcomes[(path, result.provider)].append(result)
    coverage = []
    for path in paths:
        states = {}
        for model in models:
            mine = outcomes.get((path, model), [])
            if any(isinstance(r, ModelReview) for r in mine):
                states[model] = "reviewed"
            elif any(isinstance(r, ModelFailure) and r.sent for r in mine):
                states[model] = "failed"
            else:
                unsent = [r for r in mine if isinstance(r, ModelFailure)]
                why = not_asked_reason(unsent[0]) if unsent else "no call planned"
                states[model] = f"not asked: {why}"
        coverage.append(FileCoverage(path=path, providers=states))
    return coverage


def incompleteness(
    coverage: Sequence[FileCoverage],
    results: Sequence[CallResult],
    *,
    budget: BudgetReport | None,
    verification_stopped: int,
) -> Incomplete | None:
    """The words that open every output of an incomplete review; None when complete."""
    unreviewed = [c.path for c in coverage if not c.reviewed]
    unsent = [r for r in results if isinstance(r, ModelFailure) and not r.sent]
    budget_hit = any(r.kind is FailureKind.BUDGET for r in unsent) or verification_stopped > 0
    if not unreviewed and not budget_hit:
        return None
    cause = "budget reached" if budget_hit else _cause(coverage, unreviewed)
    if unreviewed:
        what = (
            f"{len(unreviewed)} of {len(coverage)} file{'s' if len(coverage) != 1 else ''} "
            f"{'was' if len(unreviewed) == 1 else 'were'} not reviewed by any model ({cause})"
        )
    elif any(r.kind is FailureKind.BUDGET for r in unsent):
        calls = len(results)
        what = (
            f"{len(unsent)} of {calls} review calls were not sent ({cause}); every file was "
            "reviewed by at least one model, not by every model and persona"
        )
    else:
        what = (
            f"{verification_stopped} finding{'s' if verification_stopped != 1 else ''} "
            f"could not be verified ({cause})"
        )
    return Incomplete(
        headline=f"Incomplete: {what}. {NOT_A_CLEAN_BILL}",
        fix=completion_fix(budget) if budget_hit else _failure_fix(results),
        unreviewed=unreviewed,
    )


def _failure_fix(results: Sequence[CallResult]) -> str:
    """Run again, unless every failed call failed for a reason running again cannot mend."""
    sent = [r for r in results if isinstance(r, ModelFailure) and r.sent]
    if sent and all(r.kind in CONFIG_FAILURES for r in sent):
        return CONFIG_FIX
    return FAILURE_FIX


def completion_fix(budget: BudgetReport | None) -> str:
    """The flags (and settings) that let the run finish, with the values from the plan."""
    if budget is None:
        return "Run again with a higher budget (--max-tokens, --max-cost) to finish."
    flags, settings = [], []
    if budget.max_tokens is not None and budget.needed_tokens > budget.max_tokens:
        flags.append(f"--max-tokens {budget.needed_tokens}")
        settings.append(f"max_tokens: {budget.needed_tokens}")
    cost = budget.needed_cost_usd
    if budget.max_cost_usd is not None and cost is not None and cost > budget.max_cost_usd:
        flags.append(f"--max-cost {cost:.2f}")
        settings.append(f"max_cost_usd: {cost:.2f}")
    if not flags:  # the stop came from the verification share: give it room
        flags.append(f"--max-tokens {budget.needed_tokens}")
        settings.append(f"max_tokens: {budget.needed_tokens}")
    if "pr" in (budget.tokens_source, budget.cost_source):
        return (
            "Stopped by what is left of this pull request's budget. A maintainer can run the "
            "review with `/consensus review`, or raise budget.max_cost_usd_per_pr in "
            ".consensus.yml on the base branch."
        )
    stopped = " and ".join(
        {"max_tokens": "the token cap", "max_cost_usd": "the cost cap"}[s]
        for s in budget.stopped_by
    )
    return (
        f"Stopped by {stopped or 'the budget'}. To finish, run again with {' '.join(flags)} "
        f"(or budget: {{{', '.join(settings)}}} in .consensus.yml); calls already answered "
        "are not paid again."
    )


def _cause(coverage: Sequence[FileCoverage], unreviewed: Sequence[str]) -> str:
    states = {state for c in coverage if c.path in unreviewed for state in c.providers.values()}
    if states and all(s == "failed" for s in states):
        return "every call about them failed"
    return "no provider could review them"
