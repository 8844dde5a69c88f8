"""The fake of the model port: `FakeModelClient` answers from canned replies per model (or
a function of the request) and records every call; a reply is a text, a whole `Completion`
(one that asks for tools, say) or a failure; `rate_limited` and `timed_out` are the
failures a provider answers with."""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from consensus.model.base import FailureKind
from consensus.ports import Completion, CompletionRequest, ModelCallError

Answer = str | Completion | ModelCallError


@dataclass
class FakeModelClient:
    """Answers from per-model queues (then `default`), or from `by_request` when given."""

    replies: dict[str, deque[Answer]] = field(default_factory=lambda: defaultdict(deque))
    default: Answer = '{"findings": []}'
    by_request: Callable[[CompletionRequest], Answer] | None = None
    latency_s: float = 0.0
    tokens_in: int = 100
    tokens_out: int = 20
    cost_usd: float = 0.001
    calls: list[CompletionRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    def queue(self, model: str, answers: Iterable[Answer]) -> FakeModelClient:
        self.replies[model].extend(answers)
        return self

    async def complete(self, request: CompletionRequest) -> Completion:
        self.calls.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            answer = self._answer(request)
        finally:
            self.in_flight -= 1
        if isinstance(answer, ModelCallError):
            raise answer
        if isinstance(answer, Completion):
            return answer
        return Completion(
            text=answer,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost_usd=self.cost_usd,
            latency_s=self.latency_s,
        )

    def _answer(self, request: CompletionRequest) -> Answer:
        if self.by_request is not None:
            return self.by_request(request)
        pending = self.replies.get(request.model)
        if pending:
            return pending.popleft()
        return self.default

    def calls_for(self, model: str) -> list[CompletionRequest]:
        return [call for call in self.calls if call.model == model]


def rate_limited(message: str = "429 Too Many Requests") -> ModelCallError:
    return ModelCallError(FailureKind.RATE_LIMITED, message)


def timed_out() -> ModelCallError:
    return ModelCallError(FailureKind.TIMEOUT, "no answer within 120 s")
