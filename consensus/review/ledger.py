"""What a run has spent and holds in reserve, and which providers have failed too often.

Fan-out and verification draw on one budget and one circuit breaker, so a run never
spends past `budget` whatever phase it is in, and a provider that is down is not asked
to vote after it failed to review. A call reserves its worst case before it is sent
(`reserve`) and gives back what it did not use when it returns (`settle`): spent plus
reserved never passes a cap, however many calls are in flight.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from enum import Enum

from consensus.model.findings import Usage
from consensus.review.budget import Reservation
from consensus.settings.config import BudgetSettings

BREAKER_AFTER = 3  # consecutive failed calls before a provider is not called again this run


class Limit(str, Enum):
    """The cap that refused a call: named as the flag and the setting that raise it."""

    TOKENS = "max_tokens"
    COST = "max_cost_usd"


# How a refusal names each cap (`refusal`); read back from recorded refusals by
# `limits_named`, so that a replay, which refuses nothing itself, names the same caps.
_WORDS = {Limit.TOKENS: "token budget reached", Limit.COST: "cost budget reached"}


def limits_named(message: str) -> set[Limit]:
    """The caps a recorded budget refusal names."""
    return {limit for limit, words in _WORDS.items() if words in message}


class Verdict(str, Enum):
    """What `reserve` says of a call: go, wait for calls in flight, or refused."""

    GO = "go"
    WAIT = "wait"
    REFUSED = "refused"


@dataclass
class Ledger:
    budget: BudgetSettings  # resolved caps: a number or None (no limit), never "auto"
    tokens: int = 0
    cost_usd: float = 0.0
    reserved_tokens: int = 0
    reserved_cost_usd: float = 0.0
    stopped_by: set[Limit] = field(default_factory=set)
    consecutive_failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # Spend outside the fan-out (verification), per model, for the providers' report.
    verification: dict[str, Usage] = field(default_factory=lambda: defaultdict(Usage))

    largest_refused: Reservation | None = None  # the largest call a cap refused

    def without_plan(self) -> None:
        """For runs that plan no review (calibration): an `auto` cap is no cap, a set one holds."""
        data = self.budget.model_dump()
        resolved = {
            k: None if data[k] == "auto" else data[k] for k in ("max_tokens", "max_cost_usd")
        }
        self.budget = BudgetSettings.model_validate({**data, **resolved})

    def hold_to(self, budget: BudgetSettings) -> None:
        """The caps the plan resolved (`auto` no more): from now on, these hold."""
        self.budget = budget

    @property
    def max_tokens(self) -> int | None:
        cap = self.budget.max_tokens
        if cap == "auto":
            raise ValueError("the ledger's caps are not resolved: plan the budget first")
        return cap

    @property
    def max_cost_usd(self) -> float | None:
        cap = self.budget.max_cost_usd
        if cap == "auto":
            raise ValueError("the ledger's caps are not resolved: plan the budget first")
        return cap

    def spend(self, usage: Usage) -> None:
        self.tokens += usage.tokens_in + usage.tokens_out
        self.cost_usd += usage.cost_usd

    def credit(self, model: str, usage: Usage) -> None:
        """A call served from the journal: paid by an earlier attempt of this run, so it
        counts toward the run's budget, and its provider answered."""
        self.spend(usage)
        self.answered(model)

    def note_verification(self, model: str, usage: Usage) -> None:
        """Remember what verification spent with `model` (already spent through the guard)."""
        self.verification[model] = self.verification[model] + usage

    def reserve(self, worst: Reservation) -> Verdict:
        """Hold `worst` for a call about to be sent, if every cap allows it.

        WAIT: it would fit once the calls in flight have returned what they did not use;
        REFUSED: it cannot fit even then (the cap that refused it is remembered)."""
        over = self._over(worst, in_flight=True)
        if not over:
            self.reserved_tokens += worst.tokens
            self.reserved_cost_usd += worst.cost_usd or 0.0
            return Verdict.GO
        if self._over(worst, in_flight=False):
            self.stopped_by |= self._over(worst, in_flight=False)
            if self.largest_refused is None or worst.tokens > self.largest_refused.tokens:
                self.largest_refused = worst
            return Verdict.REFUSED
        return Verdict.WAIT

    def settle(self, worst: Reservation, usage: Usage | None) -> None:
        """The call returned: release its reservation and spend what it used."""
        self.reserved_tokens -= worst.tokens
        self.reserved_cost_usd -= worst.cost_usd or 0.0
        if usage is not None:
            self.spend(usage)

    def refusal(self) -> str:
        """Why calls are refused, naming each cap that refused one."""
        parts = []
        if Limit.TOKENS in self.stopped_by and self.max_tokens is not None:
            parts.append(f"{_WORDS[Limit.TOKENS]} ({self.tokens:,} of {self.max_tokens:,})")
        if Limit.COST in self.stopped_by and self.max_cost_usd is not None:
            spent, cap = self.cost_usd, self.max_cost_usd
            parts.append(f"{_WORDS[Limit.COST]} (${spent:.2f} of ${cap:.2f})")
        return "; ".join(parts) or "budget reached"

    def _over(self, worst: Reservation, *, in_flight: bool) -> set[Limit]:
        held_tokens = self.reserved_tokens if in_flight else 0
        held_cost = self.reserved_cost_usd if in_flight else 0.0
        over = set()
        if (
            self.max_tokens is not None
            and self.tokens + held_tokens + worst.tokens > self.max_tokens
        ):
            over.add(Limit.TOKENS)
        cap = self.max_cost_usd
        if (
            cap is not None
            and worst.cost_usd is not None
            and self.cost_usd + held_cost + worst.cost_usd > cap + 1e-12
        ):
            over.add(Limit.COST)
        return over

    def failed(self, provider: str, *, hopeless: bool = False) -> None:
        """One more failure in a row; a `hopeless` one (no such model, a refused key) opens
        the breaker at once: every later call would fail the same way."""
        self.consecutive_failures[provider] += BREAKER_AFTER if hopeless else 1

    def answered(self, provider: str) -> None:
        self.consecutive_failures[provider] = 0

    def breaker_open(self, provider: str) -> bool:
        return self.consecutive_failures[provider] >= BREAKER_AFTER
