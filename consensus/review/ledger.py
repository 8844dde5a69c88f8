"""What a run has spent, and which providers have failed too often: shared by every phase.

Fan-out and verification draw on one budget and one circuit breaker, so a run never
spends past `budget` whatever phase it is in, and a provider that is down is not asked
to vote after it failed to review.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from consensus.model.findings import Usage
from consensus.settings.config import BudgetSettings

BREAKER_AFTER = 3  # consecutive failed calls before a provider is not called again this run


@dataclass
class Ledger:
    budget: BudgetSettings
    tokens: int = 0
    cost_usd: float = 0.0
    consecutive_failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # Spend outside the fan-out (verification), per model, for the providers' report.
    verification: dict[str, Usage] = field(default_factory=lambda: defaultdict(Usage))

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

    def exhausted(self) -> str | None:
        """Why no new call may start, or None while there is budget left."""
        if self.budget.max_tokens is not None and self.tokens >= self.budget.max_tokens:
            return f"token budget reached ({self.tokens:,} of {self.budget.max_tokens:,})"
        if self.budget.max_cost_usd is not None and self.cost_usd >= self.budget.max_cost_usd:
            return f"cost budget reached (${self.cost_usd:.2f} of ${self.budget.max_cost_usd:.2f})"
        return None

    def failed(self, provider: str) -> None:
        self.consecutive_failures[provider] += 1

    def answered(self, provider: str) -> None:
        self.consecutive_failures[provider] = 0

    def breaker_open(self, provider: str) -> bool:
        return self.consecutive_failures[provider] >= BREAKER_AFTER
