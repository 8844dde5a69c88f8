"""`consensus review --dry-run`: the plan and its cost, before any provider is paid.

Pure: plans the review calls with `pipeline.plan_calls` (the very requests a run would
send), given the providers that cannot be reached, a TokenCounter and each model's price
(from litellm's price map, read by the llm adapter); returns a frozen DryRunPlan, rendered
as text or JSON. Prompt tokens are counted with each model's tokenizer over the text of
every message of every call. Verification calls depend on what the models find, so they
are not planned one by one: the worst case reserves a share for them, and the budget caps
them. A plan the real run could not finish as a consensus (fewer families than
`min_providers`, or over its caps) says so first: the face exits as that run would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from consensus.model.analysis import AnalyzerCheck
from consensus.model.base import Frozen
from consensus.model.diff import ReviewDiff, SkippedFile
from consensus.ports import CompletionRequest, ModelPrice, TokenCounter
from consensus.review.budget import RunBudget, dollars, round_up_dollars, round_up_tokens
from consensus.review.budget_plan import plan_run_budget
from consensus.review.pipeline import plan_calls
from consensus.settings.config import BudgetSettings, ProviderSettings
from consensus.settings.personas import Persona

OUTPUT_TOKENS_PER_CALL = 4_096  # the answer's room (pipeline.OUTPUT_RESERVE_TOKENS): an upper bound


class ProviderPlan(Frozen):
    model: str
    family: str
    status: str  # "planned", or "not called: <why>"
    chunks: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    cost_usd: float | None = None  # prompt tokens at the input price; None: no known price
    max_cost_usd: float | None = None  # plus every answer at its largest


class BudgetCheck(Frozen):
    """Whether the run fits its caps at its worst, and if not, what would let it finish."""

    fits: bool
    max_tokens: int | None
    max_cost_usd: float | None
    tokens_source: str
    cost_source: str
    needed_tokens: int
    needed_cost_usd: float | None
    advice: str  # what the run would do with these caps, and what finishes it
    notes: tuple[str, ...] = ()


class DryRunPlan(Frozen):
    files: list[str]
    skipped: list[SkippedFile]
    personas: list[str]
    providers: list[ProviderPlan]
    calls: int
    prompt_tokens: int
    cost_usd: float | None  # None when a planned provider has no known price
    max_cost_usd: float | None
    budget: BudgetCheck | None = None
    families: tuple[str, ...] = ()  # the families that would review
    min_providers: int = 1
    # the analyzers the configuration names: each would run here, or why not (never a stop)
    analyzers: tuple[AnalyzerCheck, ...] = ()
    note: str = (
        "verification calls (judges' votes on disputed findings) are not planned one by one: "
        "they depend on what the models find; the worst case reserves a share for them and "
        "the budget caps them"
    )

    def needing(self, min_providers: int) -> DryRunPlan:
        """The plan judged against the configuration's `min_providers`."""
        return DryRunPlan.model_validate({**dict(self), "min_providers": min_providers})

    def with_analyzers(self, checks: Sequence[AnalyzerCheck]) -> DryRunPlan:
        """The plan with what was found of the configured analyzers."""
        return DryRunPlan.model_validate({**dict(self), "analyzers": tuple(checks)})

    @property
    def advisory(self) -> str | None:
        """Why the real run would be advisory (exit 3) whatever the models answer; None:
        enough families to reach a consensus."""
        if len(self.families) >= self.min_providers:
            return None
        have = ", ".join(self.families) or "none"
        return (
            f"ADVISORY: {len(self.families)} "
            f"{'family' if len(self.families) == 1 else 'families'} would review ({have}); "
            f"a consensus needs {self.min_providers} (min_providers). The run would post "
            "nothing inline and exit 3. Add a provider of another family (e.g. set "
            "ANTHROPIC_API_KEY or GEMINI_API_KEY), or set min_providers: 1 in .consensus.yml "
            "to accept one family's review"
        )

    @property
    def would_finish(self) -> bool:
        """True when the real run could end as a complete consensus review (exit 0 or 1)."""
        return self.advisory is None and (self.budget is None or self.budget.fits)


def prompt_tokens(request: CompletionRequest, counter: TokenCounter) -> int:
    """Tokens of every message of a request, by the model's own tokenizer."""
    return sum(counter.count(request.model, message.content) for message in request.messages)


def plan_dry_run(
    diff: ReviewDiff,
    *,
    providers: Sequence[ProviderSettings],
    personas: Sequence[Persona],
    unavailable: Mapping[str, str],
    counter: TokenCounter,
    prices: Mapping[str, ModelPrice | None],
    default_window: int,
    budget: BudgetSettings | None = None,
) -> DryRunPlan:
    """What a review of `diff` would send, provider by provider, and what it would cost."""
    calls = plan_calls(
        diff,
        providers=providers,
        personas=personas,
        counter=counter,
        default_window=default_window,
    )
    plans = []
    for provider in providers:
        mine = [call for call in calls if call.provider.model == provider.model]
        if provider.model in unavailable:
            status = f"not called: {unavailable[provider.model]}"
            plans.append(
                ProviderPlan(model=provider.model, family=provider.voting_family, status=status)
            )
            continue
        tokens = sum(prompt_tokens(call.request, counter) for call in mine)
        price = prices.get(provider.model)
        cost = max_cost = None
        if price is not None:
            cost = round(tokens * price.input_per_token, 6)
            output = len(mine) * OUTPUT_TOKENS_PER_CALL * price.output_per_token
            max_cost = round(tokens * price.input_per_token + output, 6)
        plans.append(
            ProviderPlan(
                model=provider.model,
                family=provider.voting_family,
                status="planned",
                chunks=len({call.chunk.index for call in mine}),
                calls=len(mine),
                prompt_tokens=tokens,
                cost_usd=cost,
                max_cost_usd=max_cost,
            )
        )
    planned = [p for p in plans if p.status == "planned"]
    sent = [call for call in calls if call.provider.model not in unavailable]
    run_budget = plan_run_budget(budget or BudgetSettings(), sent, _Priced(counter, prices), diff)
    priced = all(p.cost_usd is not None for p in planned)
    return DryRunPlan(
        files=[changed.path for changed in diff.files],
        skipped=list(diff.skipped),
        personas=[persona.id for persona in personas],
        providers=plans,
        calls=sum(p.calls for p in planned),
        prompt_tokens=sum(p.prompt_tokens for p in planned),
        cost_usd=round(sum(p.cost_usd or 0.0 for p in planned), 6) if priced else None,
        max_cost_usd=round(sum(p.max_cost_usd or 0.0 for p in planned), 6) if priced else None,
        budget=_check(run_budget),
        families=tuple(sorted({p.family for p in planned})),
    )


class _Priced:
    """The counter, with prices from the map the dry run was given."""

    def __init__(self, counter: TokenCounter, prices: Mapping[str, ModelPrice | None]) -> None:
        self._counter = counter
        self._prices = prices

    def count(self, model: str, text: str) -> int:
        return self._counter.count(model, text)

    def context_window(self, model: str) -> int | None:
        return self._counter.context_window(model)

    def price(self, model: str) -> ModelPrice | None:
        return self._prices.get(model)


def _check(budget: RunBudget) -> BudgetCheck:
    needed_tokens = round_up_tokens(budget.needed_tokens)
    needed_cost = (
        None if budget.needed_cost_usd is None else round_up_dollars(budget.needed_cost_usd)
    )
    caps = []
    if budget.max_tokens is not None:
        caps.append(f"{budget.max_tokens:,} tokens ({budget.tokens_source})")
    if budget.max_cost_usd is not None:
        caps.append(f"{dollars(budget.max_cost_usd)} ({budget.cost_source})")
    worst = f"{budget.needed_tokens:,} tokens" + (
        f" and {dollars(needed_cost)}"
        if needed_cost is not None
        else f" (cost unknown: no known price for {', '.join(budget.unpriced)})"
        if budget.unpriced
        else ""
    )
    if budget.fits:
        advice = (
            f"fits: at its worst (every answer at its longest, plus a share for "
            f"verification) the review needs at most {worst}, within the caps: "
            f"{', '.join(caps) or 'no cap'}"
        )
    else:
        flags = []
        if budget.max_tokens is not None and budget.needed_tokens > budget.max_tokens:
            flags.append(f"--max-tokens {needed_tokens}")
        if (
            budget.max_cost_usd is not None
            and needed_cost is not None
            and needed_cost > budget.max_cost_usd
        ):
            flags.append(f"--max-cost {needed_cost:.2f}")
        advice = (
            f"does NOT fit: at its worst the review needs at most {worst}, over the caps "
            f"({', '.join(caps)}); the run would stop before every file is reviewed, "
            f"riskiest files first. To finish it: {' '.join(flags)}"
        )
    return BudgetCheck(
        fits=budget.fits,
        max_tokens=budget.max_tokens,
        max_cost_usd=budget.max_cost_usd,
        tokens_source=budget.tokens_source,
        cost_source=budget.cost_source,
        needed_tokens=needed_tokens,
        needed_cost_usd=needed_cost,
        advice=advice,
        notes=tuple(budget.notes()),
    )
