"""`consensus bench --dry-run`: what a bench will ask and cost, before anything is spent.

Per pull request the review is planned as `consensus review --dry-run` plans it (the very
requests, counted with each model's tokenizer, priced from litellm's price map) when its
diff is at hand (inline, cached, or read from GitHub for free). A PR whose diff could not
be read is estimated from assumptions, said in the output: ASSUMED_DIFF_TOKENS of diff
(the benchmark's PRs touch 4.7 files on average, by its own labels, at about 1,200 tokens
of diff a file) in one chunk per provider, PROMPT_TOKENS around it per call. The judge is
asked once per judged finding: ASSUMED_JUDGED findings per PR (the union of what every
configuration reported), each call the PR's goldens plus ASSUMED_FINDING_TOKENS of
finding and hunk; never on a clean PR (no golden: its findings are false positives).
Verification votes are not included (they depend on what the models find; the budget
caps them), nor are single-model variants: they reuse the consensus run's calls. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus.model.base import Frozen

ASSUMED_DIFF_TOKENS = 6_000
PROMPT_TOKENS = 3_000  # system prompt, persona and schema around the diff (a reserve)
ASSUMED_JUDGED = 12
ASSUMED_FINDING_TOKENS = 900
JUDGE_OUTPUT_TOKENS = 400


class PRPlan(Frozen):
    pr: str
    calls: int
    prompt_tokens: int
    cost_usd: float | None  # None: a planned model has no known price
    max_cost_usd: float | None
    assumed: bool  # no diff at hand: estimated from ASSUMED_DIFF_TOKENS


class JudgePlan(Frozen):
    model: str
    calls: int
    prompt_tokens: int
    cost_usd: float | None
    max_cost_usd: float | None


class BenchEstimate(Frozen):
    suite: str
    prs: list[PRPlan]
    judge: JudgePlan
    providers: list[str]
    personas: list[str]
    unavailable: dict[str, str]
    clean_prs: int = 0  # PRs without a golden: reviewed, not judged

    @property
    def calls(self) -> int:
        return sum(p.calls for p in self.prs) + self.judge.calls

    @property
    def prompt_tokens(self) -> int:
        return sum(p.prompt_tokens for p in self.prs) + self.judge.prompt_tokens

    def cost(self, *, most: bool) -> float | None:
        values = [p.max_cost_usd if most else p.cost_usd for p in self.prs]
        values.append(self.judge.max_cost_usd if most else self.judge.cost_usd)
        if any(v is None for v in values):
            return None
        return round(sum(v or 0.0 for v in values), 4)


def assumed_plan(
    pr: str,
    *,
    calls_per_provider: int,
    prices: Sequence[tuple[float, float] | None],
    output_tokens: int,
) -> PRPlan:
    """A PR without its diff: one chunk per provider, ASSUMED_DIFF_TOKENS each call.
    `prices`: (input, output) US dollars per token of each planned provider."""
    per_call = ASSUMED_DIFF_TOKENS + PROMPT_TOKENS
    calls = calls_per_provider * len(prices)
    cost = most = None
    if all(p is not None for p in prices):
        cost = sum(per_call * calls_per_provider * p[0] for p in prices if p)
        most = cost + sum(output_tokens * calls_per_provider * p[1] for p in prices if p)
    return PRPlan(
        pr=pr,
        calls=calls,
        prompt_tokens=per_call * calls,
        cost_usd=None if cost is None else round(cost, 6),
        max_cost_usd=None if most is None else round(most, 6),
        assumed=True,
    )


def judge_plan(
    model: str, golden_tokens: Sequence[int], system_tokens: int, price: tuple[float, float] | None
) -> JudgePlan:
    """ASSUMED_JUDGED calls per PR; `golden_tokens`: each judged PR's goldens, in tokens
    (a clean PR is not judged, and not in it)."""
    per_pr = [system_tokens + g + ASSUMED_FINDING_TOKENS for g in golden_tokens]
    calls = ASSUMED_JUDGED * len(per_pr)
    tokens = ASSUMED_JUDGED * sum(per_pr)
    cost = most = None
    if price is not None:
        cost = round(tokens * price[0], 6)
        most = round(cost + calls * JUDGE_OUTPUT_TOKENS * price[1], 6)
    return JudgePlan(
        model=model, calls=calls, prompt_tokens=tokens, cost_usd=cost, max_cost_usd=most
    )


def _unjudged(clean_prs: int) -> str:
    if clean_prs == 1:
        return "; 1 clean PR is not judged"
    return f"; {clean_prs} clean PRs are not judged" if clean_prs else ""


def render_estimate(plan: BenchEstimate) -> str:
    assumed = [p for p in plan.prs if p.assumed]
    reviews = sum(p.calls for p in plan.prs)
    cost, most = plan.cost(most=False), plan.cost(most=True)
    unjudged = _unjudged(plan.clean_prs)
    lines = [
        f"bench {plan.suite}: {len(plan.prs)} pull request{'s' if len(plan.prs) != 1 else ''} "
        "(dry run: nothing is sent)",
        f"panel: {', '.join(plan.providers)}; personas: {', '.join(plan.personas)}",
        *(f"  {model} will not be called: {why}" for model, why in plan.unavailable.items()),
        f"review calls: {reviews:,} ({sum(p.prompt_tokens for p in plan.prs):,} prompt tokens)",
        f"judge calls:  {plan.judge.calls:,} with {plan.judge.model} "
        f"({plan.judge.prompt_tokens:,} prompt tokens; {ASSUMED_JUDGED} judged findings "
        f"a PR assumed{unjudged})",
        f"total: {plan.calls:,} calls, {plan.prompt_tokens:,} prompt tokens",
        "estimated cost: "
        + (
            f"${cost:.2f} for the prompts, at most ${most:.2f} with every answer at its longest"
            if cost is not None and most is not None
            else "unknown (a model has no price in litellm's price map)"
        ),
    ]
    if assumed:
        lines.append(
            f"{len(assumed)} of {len(plan.prs)} diffs were not at hand: estimated at "
            f"{ASSUMED_DIFF_TOKENS:,} tokens of diff each, in one chunk per provider"
        )
    lines.append(
        "not included: verification votes on disputed findings (the budget caps them); "
        "single-model and no-verification figures reuse the consensus run's calls"
    )
    return "\n".join(lines) + "\n"
