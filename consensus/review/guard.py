"""The budget and the circuit breaker, as a ModelClient wrapper in front of the real one.

Every call of every phase passes through it: a call is refused (ModelCallError with kind
BUDGET or CIRCUIT_OPEN, nothing sent) when its worst case (review/budget.py) does not fit
under the run's caps or its provider has failed `BREAKER_AFTER` times in a row. The worst
case is reserved before the call is sent and what it did not use is released when it
returns, so calls in flight can never spend past a cap together; a call that would fit
once those in flight return waits for them. Being a client, its refusals are call
outcomes like any other, so a run journal records them and a replay reproduces them
exactly, whatever order calls happened to finish in.
"""

from __future__ import annotations

import asyncio
import math

from consensus.model.base import FailureKind
from consensus.model.findings import Usage
from consensus.ports import Completion, CompletionRequest, ModelCallError, ModelClient, TokenCounter
from consensus.review.budget import OUTPUT_TOKENS, Reservation, worst_case
from consensus.review.ledger import Ledger, Verdict

# Failures that say nothing about the provider's health (a model that takes no tools is
# asked again without them).
_NOT_THE_PROVIDERS_FAULT = frozenset(
    {FailureKind.BUDGET, FailureKind.CIRCUIT_OPEN, FailureKind.NO_TOOLS}
)
# Failures every later call to the provider would repeat: its breaker opens at once.
HOPELESS = frozenset({FailureKind.NOT_FOUND, FailureKind.AUTH})
CHARS_PER_TOKEN_FLOOR = 2  # without a tokenizer: no common tokenizer packs fewer characters


class GuardedClient:
    def __init__(
        self, inner: ModelClient, ledger: Ledger, counter: TokenCounter | None = None
    ) -> None:
        """`counter` counts prompts with each model's tokenizer and prices them; without
        one, a prompt's worst case is its characters / CHARS_PER_TOKEN_FLOOR, unpriced."""
        self._inner = inner
        self._ledger = ledger
        self._counter = counter
        self._returned: asyncio.Condition | None = None

    def worst_case(self, request: CompletionRequest) -> Reservation:
        if self._counter is not None:
            return worst_case(request, self._counter)
        chars = sum(len(m.content) for m in request.messages)
        answer = request.max_tokens or OUTPUT_TOKENS
        return Reservation(tokens=math.ceil(chars / CHARS_PER_TOKEN_FLOOR) + answer, cost_usd=None)

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._ledger.breaker_open(request.model):
            raise ModelCallError(FailureKind.CIRCUIT_OPEN, "not called: provider failed repeatedly")
        worst = self.worst_case(request)
        await self._reserve(worst)
        try:
            completion = await self._inner.complete(request)
        except ModelCallError as exc:
            await self._settle(worst, None)
            if exc.kind not in _NOT_THE_PROVIDERS_FAULT:
                self._ledger.failed(request.model, hopeless=exc.kind in HOPELESS)
            raise
        except BaseException:
            await self._settle(worst, None)
            raise
        self._ledger.answered(request.model)
        await self._settle(worst, completion.usage)
        return completion

    async def _reserve(self, worst: Reservation) -> None:
        returned = self._condition()
        async with returned:
            while (verdict := self._ledger.reserve(worst)) is Verdict.WAIT:
                await returned.wait()
        if verdict is Verdict.REFUSED:
            raise ModelCallError(FailureKind.BUDGET, f"not called: {self._ledger.refusal()}")

    async def _settle(self, worst: Reservation, usage: Usage | None) -> None:
        returned = self._condition()
        async with returned:
            self._ledger.settle(worst, usage)
            returned.notify_all()

    def _condition(self) -> asyncio.Condition:
        if self._returned is None:
            self._returned = asyncio.Condition()
        return self._returned
