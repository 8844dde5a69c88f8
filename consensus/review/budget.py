"""The budget of one run: the worst case of a call, the caps in force, and what would finish.

Pure. Every call's worst case is its prompt, counted with the model's tokenizer plus a
margin (`PROMPT_MARGIN`: providers count a little differently), and its whole answer
(the request's `max_tokens`); its cost is that at the model's price, unknown when the
price is. The guard reserves a call's worst case before sending it, so a run never spends
past a cap however many calls are in flight.

The default caps (`auto`) come from the plan: the worst case of every planned review call,
plus `VERIFY_SHARE` of it (at least `VERIFY_FLOOR` tokens) for the calls whose number
depends on what the models find (verification, "same problem?" questions). For a change
of more than `REFERENCE_LINES` changed lines the default is that worst case scaled to
`REFERENCE_LINES`: the default panel finishes any review up to that size, and a bigger one
is reviewed riskiest files first until the cap, and says what would finish it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from consensus.model.base import Frozen
from consensus.ports import CompletionRequest, TokenCounter
from consensus.settings.config import BudgetSettings

OUTPUT_TOKENS = 4_096  # a review call's answer at its longest (its request's max_tokens)
PROMPT_MARGIN = 1.1  # tokenizers disagree a little
MESSAGE_OVERHEAD = 8  # tokens a chat format adds around each message
REFERENCE_LINES = 2_000  # the default budget finishes a review of a change up to this size
VERIFY_SHARE = 0.25  # of the review calls' worst case, for calls the plan cannot count
VERIFY_FLOOR = 50_000
# unknown: auto, but a model has no price; pr: what is left of the pull request's budget
Source = Literal["set", "auto", "none", "unknown", "pr"]


class Ceiling(Frozen):
    """What a run may spend at most whatever its own caps say (the PR's allowance left)."""

    tokens: int | None = None
    cost_usd: float | None = None


class Reservation(Frozen):
    """A call's worst case: tokens, and dollars (None: the model has no known price)."""

    tokens: int
    cost_usd: float | None


def worst_case(request: CompletionRequest, counter: TokenCounter) -> Reservation:
    """The most `request` can spend: its prompt (with the margin) and its longest answer."""
    counted = sum(counter.count(request.model, m.content) for m in request.messages)
    prompt = math.ceil(counted * PROMPT_MARGIN) + MESSAGE_OVERHEAD * len(request.messages)
    answer = request.max_tokens or OUTPUT_TOKENS
    price = counter.price(request.model)
    cost = (
        None if price is None else prompt * price.input_per_token + answer * price.output_per_token
    )
    return Reservation(tokens=prompt + answer, cost_usd=cost)


class RunBudget(Frozen):
    """The caps a run holds to, where each came from, and what the whole review needs.

    `needed_*`: the plan's worst case, every planned call answered at its longest, plus the
    share for verification: a budget at least this large finishes the review."""

    max_tokens: int | None
    max_cost_usd: float | None
    tokens_source: Source
    cost_source: Source
    needed_tokens: int
    needed_cost_usd: float | None  # None: a planned model has no known price
    unpriced: tuple[str, ...] = ()  # models without a known price
    changed_lines: int = 0

    @property
    def fits(self) -> bool:
        """Whether the plan's worst case fits under every cap in force."""
        tokens_fit = self.max_tokens is None or self.needed_tokens <= self.max_tokens
        cost_fit = (
            self.max_cost_usd is None
            or self.needed_cost_usd is None
            or self.needed_cost_usd <= self.max_cost_usd
        )
        return tokens_fit and cost_fit

    @property
    def cost_enforced(self) -> bool:
        """A cost cap holds only when every model called has a price."""
        return self.max_cost_usd is not None and not self.unpriced

    def limits(self) -> BudgetSettings:
        """The caps in force, for the ledger (a cost cap only where it can be enforced)."""
        return BudgetSettings(
            max_tokens=self.max_tokens,
            max_cost_usd=self.max_cost_usd,
            max_cost_usd_per_pr=None,
        )

    def notes(self) -> list[str]:
        """What a reader needs to know about the caps: where they come from, what cannot hold."""
        out = []
        if self.cost_source == "unknown" and self.unpriced:
            out.append(
                f"no cost cap: no known price for {', '.join(self.unpriced)}, so the cost "
                "cannot be derived or enforced in money; the token cap holds"
                + (f" ({self.max_tokens:,} tokens)" if self.max_tokens is not None else "")
            )
        if self.max_cost_usd is not None and self.unpriced:
            out.append(
                f"the cost cap ({dollars(self.max_cost_usd)}) cannot be enforced in money: no "
                f"known price for {', '.join(self.unpriced)}; the token cap holds"
                + (f" ({self.max_tokens:,} tokens)" if self.max_tokens is not None else "")
            )
        return out


def plan_budget(
    settings: BudgetSettings,
    planned: Sequence[Reservation],
    *,
    unpriced: Sequence[str],
    changed_lines: int,
    ceiling: Ceiling | None = None,
) -> RunBudget:
    """The run's caps: the user's where set, else derived from the plan's worst case; never
    above `ceiling` (what is left of the pull request's budget)."""
    tokens = sum(r.tokens for r in planned)
    needed_tokens = tokens + max(VERIFY_FLOOR, math.ceil(tokens * VERIFY_SHARE))
    needed_cost: float | None = None
    if not unpriced and tokens:  # nothing planned: no price to scale, the tokens hold
        cost = sum(r.cost_usd or 0.0 for r in planned)
        needed_cost = cost * (needed_tokens / tokens)
    scale = min(1.0, REFERENCE_LINES / changed_lines) if changed_lines else 1.0
    max_tokens: int | None
    max_cost: float | None
    tokens_source: Source
    if settings.max_tokens == "auto":
        max_tokens, tokens_source = math.ceil(needed_tokens * scale), "auto"
    else:
        max_tokens = settings.max_tokens
        tokens_source = "set" if max_tokens is not None else "none"
    if settings.max_cost_usd == "auto":
        max_cost = None if needed_cost is None else round_up_dollars(needed_cost * scale)
        cost_source: Source = "auto" if max_cost is not None else "unknown"
    else:
        max_cost = settings.max_cost_usd
        cost_source = "set" if max_cost is not None else "none"
    cap = ceiling or Ceiling()
    if cap.tokens is not None and (max_tokens is None or cap.tokens < max_tokens):
        max_tokens, tokens_source = max(0, cap.tokens), "pr"
    if cap.cost_usd is not None and not unpriced and (max_cost is None or cap.cost_usd < max_cost):
        max_cost, cost_source = max(0.0, cap.cost_usd), "pr"
    return RunBudget(
        max_tokens=max_tokens,
        max_cost_usd=max_cost,
        tokens_source=tokens_source,
        cost_source=cost_source,
        needed_tokens=needed_tokens,
        needed_cost_usd=None if needed_cost is None else round(needed_cost, 6),
        unpriced=tuple(sorted(set(unpriced))),
        changed_lines=changed_lines,
    )


def round_up_tokens(tokens: int) -> int:
    """A number a user can type: up to the next 10,000."""
    return -(-tokens // 10_000) * 10_000


def round_up_dollars(usd: float) -> float:
    """Up to the next cent."""
    return math.ceil(usd * 100 - 1e-9) / 100


def dollars(usd: float | None) -> str:
    """A cost as a user reads it: "unknown" when it is not known, never $0 for unknown."""
    if usd is None:
        return "unknown"
    return f"${usd:.2f}" if usd >= 1 or usd == 0 else f"${usd:.4f}"
