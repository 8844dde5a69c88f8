"""Fan-out: every (provider, persona, chunk) call, bounded overall and per provider.

Each call's reply is untrusted: it is parsed and validated, gets one repair turn that
quotes the validation error, and is then audited against the diff. A call ends as a
ModelReview or a ModelFailure, never as an exception, and results come back in the
order the calls were planned, whatever order they finished in. The budget and the
circuit breaker are the client's business (guard.py): their refusals arrive here as
failures like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from consensus.model.base import FailureKind
from consensus.model.diff import Chunk, ReviewDiff
from consensus.model.findings import DroppedFinding, ModelFailure, ModelReview, Usage
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.review.audit import audit
from consensus.review.reply import ReplyError, parse_review, repair_prompt
from consensus.settings.config import ProviderSettings

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


async def fan_out(
    calls: Sequence[ReviewCall],
    client: ModelClient,
    diff: ReviewDiff,
    *,
    concurrency: int,
    observer: FanoutObserver | None = None,
) -> list[CallResult]:
    """Run every call with at most `concurrency` in flight overall and per provider limits."""
    overall = asyncio.Semaphore(concurrency)
    per_provider = {c.provider.model: asyncio.Semaphore(c.provider.max_concurrency) for c in calls}

    async def run(call: ReviewCall) -> CallResult:
        # The provider's own slot first: a call waiting for its provider must not hold
        # one of the global slots that another provider could use meanwhile.
        async with per_provider[call.provider.model], overall:
            result = await _review(call, client, diff, observer)
        if observer is not None:
            observer.call_finished(call, result)
        return result

    return list(await asyncio.gather(*(run(call) for call in calls)))


async def _review(
    call: ReviewCall,
    client: ModelClient,
    diff: ReviewDiff,
    observer: FanoutObserver | None,
) -> CallResult:
    model = call.provider.model
    if observer is not None:
        observer.call_started(call)

    usage = Usage()
    request = call.request
    problem = ""
    for turn in range(2):  # the first answer, then at most one repair turn
        try:
            completion = await client.complete(request)
        except ModelCallError as exc:
            return _failure(call, exc.kind, exc.message, usage)
        usage = usage + completion.usage
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
            family=call.provider.voting_family,
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
            family=call.provider.voting_family,
            persona=call.persona,
            chunk=call.chunk.index,
            paths=call.chunk.paths,
            findings=tuple(findings),
            dropped=tuple(dropped) + tuple(schema_drops),
            usage=usage,
            repaired=turn > 0,
        )
    return _failure(call, FailureKind.INVALID_REPLY, f"invalid after one repair: {problem}", usage)


def _with_repair(request: CompletionRequest, reply: str, problem: str) -> CompletionRequest:
    messages = (
        *request.messages,
        Message(role="assistant", content=reply[:20_000]),
        Message(role="user", content=repair_prompt(problem)),
    )
    return request.model_copy(update={"messages": messages})


_NOT_SENT = frozenset({FailureKind.BUDGET, FailureKind.CIRCUIT_OPEN})


def _failure(
    call: ReviewCall,
    kind: FailureKind,
    message: str,
    usage: Usage | None = None,
    *,
    sent: bool | None = None,
) -> ModelFailure:
    return ModelFailure(
        provider=call.provider.model,
        family=call.provider.voting_family,
        persona=call.persona,
        chunk=call.chunk.index,
        paths=call.chunk.paths,
        kind=kind,
        message=message,
        usage=usage or Usage(),
        # A refused repair turn still sent the first one.
        sent=sent if sent is not None else (kind not in _NOT_SENT or bool(usage and usage.calls)),
    )


def unreachable(call: ReviewCall, why: str) -> ModelFailure:
    """The failure of a call that was never made because its provider cannot be reached."""
    return _failure(call, FailureKind.AUTH, f"not called: {why}", sent=False)
