"""The budget and the circuit breaker, as a ModelClient wrapper in front of the real one.

Every call of every phase passes through it: a call is refused (ModelCallError with kind
BUDGET or CIRCUIT_OPEN, nothing sent) when the run's budget is spent or its provider has
failed `BREAKER_AFTER` times in a row. Being a client, its refusals are call outcomes
like any other, so a run journal records them and a replay reproduces them exactly,
whatever order calls happened to finish in.
"""

from __future__ import annotations

from consensus.model.base import FailureKind
from consensus.ports import Completion, CompletionRequest, ModelCallError, ModelClient
from consensus.review.ledger import Ledger

# Failures that say nothing about the provider's health.
_NOT_THE_PROVIDERS_FAULT = frozenset({FailureKind.BUDGET, FailureKind.CIRCUIT_OPEN})


class GuardedClient:
    def __init__(self, inner: ModelClient, ledger: Ledger) -> None:
        self._inner = inner
        self._ledger = ledger

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._ledger.breaker_open(request.model):
            raise ModelCallError(FailureKind.CIRCUIT_OPEN, "not called: provider failed repeatedly")
        stop = self._ledger.exhausted()
        if stop is not None:
            raise ModelCallError(FailureKind.BUDGET, f"not called: {stop}")
        try:
            completion = await self._inner.complete(request)
        except ModelCallError as exc:
            if exc.kind not in _NOT_THE_PROVIDERS_FAULT:
                self._ledger.failed(request.model)
            raise
        self._ledger.answered(request.model)
        self._ledger.spend(completion.usage)
        return completion
