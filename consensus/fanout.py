"""Fan-out: every (provider, persona, chunk) call, bounded, budgeted, circuit-broken.

Each call's reply is untrusted: it is parsed and validated, gets one repair turn that
quotes the validation error, and is then audited against the diff. A call ends as a
ModelReview or a ModelFailure, never as an exception, and results come back in the
order the calls were planned, whatever order they finished in.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from consensus.audit import audit
from consensus.config import BudgetSettings, ProviderSettings
from consensus.models import (
    Chunk,
    DroppedFinding,
    FailureKind,
    ModelFailure,
    ModelReview,
    ReviewDiff,
    Usage,
)
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError, ModelClient
from consensus.reply import ReplyError, parse_review, repair_prompt

BREAKER_AFTER = 3  # consecutive failed calls before a provider is not called again this run

CallResult = ModelReview | ModelFailure


@dataclass(frozen=True)
class ReviewCall:
    """One planned call: who reviews which chunk with which persona, and the request."""

    provider: ProviderSettings
    persona: str
    chunk: Chunk
    request: CompletionRequest


class FanoutObserver(Protocol):
    def call_started(self, call: ReviewCall) -> None: ...

    def call_finished(self, call: ReviewCall, result: CallResult) -> None: ...


@dataclass
class _Ledger:
    """What this run has spent, and which providers have tripped the breaker."""

    budget: BudgetSettings
    tokens: int = 0
    cost_usd: float = 0.0
    consecutive_failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def spend(self, usage: Usage) -> None:
        self.tokens += usage.tokens_in + usage.tokens_out
        self.cost_usd += usage.cost_usd

    def exhausted(self) -> str | None:
        if self.budget.max_tokens is not None and self.tokens >= self.budget.max_tokens:
            return f"token budget reached ({self.tokens:,} of {self.budget.max_tokens:,})"
        if self.budget.max_cost_usd is not None and self.cost_usd >= self.budget.max_cost_usd:
            return f"cost budget reached (${self.cost_usd:.2f} of ${self.budget.max_cost_usd:.2f})"
        return None

    def breaker_open(self, provider: str) -> bool:
        return self.consecutive_failures[provider] >= BREAKER_AFTER


async def fan_out(
    calls: Sequence[ReviewCall],
    client: ModelClient,
    diff: ReviewDiff,
    *,
    concurrency: int,
    budget: BudgetSettings,
    observer: FanoutObserver | None = None,
) -> list[CallResult]:
    """Run every call with at most `concurrency` in flight overall and per provider limits."""
    overall = asyncio.Semaphore(concurrency)
    per_provider = {c.provider.model: asyncio.Semaphore(c.provider.max_concurrency) for c in calls}
    ledger = _Ledger(budget=budget)

    async def run(call: ReviewCall) -> CallResult:
        # The provider's own slot first: a call waiting for its provider must not hold
        # one of the global slots that another provider could use meanwhile.
        async with per_provider[call.provider.model], overall:
            result = await _review(call, client, diff, ledger, observer)
        if observer is not None:
            observer.call_finished(call, result)
        return result

    return list(await asyncio.gather(*(run(call) for call in calls)))


async def _review(
    call: ReviewCall,
    client: ModelClient,
    diff: ReviewDiff,
    ledger: _Ledger,
    observer: FanoutObserver | None,
) -> CallResult:
    model = call.provider.model
    if ledger.breaker_open(model):
        return _failure(call, FailureKind.CIRCUIT_OPEN, "not called: provider failed repeatedly")
    reason = ledger.exhausted()
    if reason is not None:
        return _failure(call, FailureKind.BUDGET, f"not called: {reason}")
    if observer is not None:
        observer.call_started(call)

    usage = Usage()
    request = call.request
    problem = ""
    for turn in range(2):  # the first answer, then at most one repair turn
        try:
            completion = await client.complete(request)
        except ModelCallError as exc:
            ledger.consecutive_failures[model] += 1
            return _failure(call, exc.kind, exc.message, usage)
        ledger.consecutive_failures[model] = 0
        turn_usage = _usage(completion)
        ledger.spend(turn_usage)
        usage = usage + turn_usage
        try:
            parsed = parse_review(completion.text)
        except ReplyError as exc:
            problem = exc.problem
            request = _with_repair(request, completion.text, problem)
            continue
        findings, dropped = audit(
            parsed.reply,
            diff=diff,
            chunk_paths=call.chunk.paths,
            provider=model,
            family=call.provider.voter,
            persona=call.persona,
            chunk=call.chunk.index,
        )
        schema_drops = [
            DroppedFinding(
                provider=model,
                persona=call.persona,
                path="",
                line=0,
                title=f"finding #{index + 1} of the reply",
                reason=f"schema: {why}",
            )
            for index, why in parsed.invalid
        ]
        return ModelReview(
            provider=model,
            family=call.provider.voter,
            persona=call.persona,
            chunk=call.chunk.index,
            paths=call.chunk.paths,
            findings=tuple(findings),
            dropped=tuple(dropped) + tuple(schema_drops),
            usage=usage,
            repaired=turn > 0,
        )
    return _failure(call, FailureKind.INVALID_REPLY, f"invalid after one repair: {problem}", usage)


def _usage(completion: Completion) -> Usage:
    return Usage(
        tokens_in=completion.tokens_in,
        tokens_out=completion.tokens_out,
        cost_usd=completion.cost_usd,
        latency_s=completion.latency_s,
        calls=1,
    )


def _with_repair(request: CompletionRequest, reply: str, problem: str) -> CompletionRequest:
    messages = (
        *request.messages,
        Message(role="assistant", content=reply[:20_000]),
        Message(role="user", content=repair_prompt(problem)),
    )
    return request.model_copy(update={"messages": messages})


def _failure(
    call: ReviewCall, kind: FailureKind, message: str, usage: Usage | None = None
) -> ModelFailure:
    return ModelFailure(
        provider=call.provider.model,
        family=call.provider.voter,
        persona=call.persona,
        chunk=call.chunk.index,
        paths=call.chunk.paths,
        kind=kind,
        message=message,
        usage=usage or Usage(),
    )


def unreachable(call: ReviewCall, why: str) -> ModelFailure:
    """The failure of a call that was never made because its provider cannot be reached."""
    return _failure(call, FailureKind.AUTH, f"not called: {why}")
