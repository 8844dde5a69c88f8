"""One judge asked about one claim: the question (the claim, the code around it, the hunk),
the call through the guarded client, the verdict read back, and a red-flagged verdict
asked again (at most RESAMPLES times a slot, within the claim's call cap).

Each vote is its own request (its slot number is in the prompt), so a journal keeps every
answer apart and a replay serves each the same; each call's seed comes from the claim's
fingerprint and the vote's slot (`sampling_seed`), so a run on the same code asks the same
way too, where the provider honours seeds. The prompt never says who reported the claim.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.ingest.redact import redact_text
from consensus.ingest.view import render_file
from consensus.model.base import FailureKind, VerdictKind
from consensus.model.claim import Claim
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Vote
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient, SourceReader
from consensus.review.context import code_context
from consensus.review.ledger import Ledger
from consensus.review.prompt import language_note, template, verdict_schema
from consensus.review.reply import ReplyError, parse_verdict
from consensus.review.tally import RESAMPLES, Tally
from consensus.settings.config import ProviderSettings

VOTER_TEMPERATURE = 0.3
Asked = Sequence[tuple[ProviderSettings, str]]  # (judge, "inspector" | "voter")


def sampling_seed(fingerprint: str, model: str, role: str, check: int) -> int:
    """The seed of one verification call: derived from the finding's fingerprint and the
    vote's slot, so that the same question is asked the same way on every run (where the
    provider honours seeds), while each vote stays its own sample."""
    payload = "\0".join((fingerprint, model, role, str(check)))
    return int.from_bytes(hashlib.sha256(payload.encode("utf-8")).digest()[:4], "big") >> 1


@dataclass(frozen=True)
class Case:
    """What every judge of one claim is shown."""

    claim: Claim
    context: str
    hunk: str
    nonce: str


class Asker:
    """Asks judges, sharing the run's concurrency slots and each provider's own. The client
    is guarded: the budget and the breaker refuse calls there."""

    def __init__(
        self,
        client: ModelClient,
        ledger: Ledger,
        panel: Sequence[ProviderSettings],
        concurrency: int,
        language: str,
    ) -> None:
        self._client = client
        self._ledger = ledger
        self._language = language
        self._slots = asyncio.Semaphore(concurrency)
        self._per_provider = {p.model: asyncio.Semaphore(p.max_concurrency) for p in panel}

    async def ask(self, case: Case, asked: Asked, tally: Tally) -> bool:
        """Ask `asked` at once; False when a note (the budget) stops verification."""
        first = len(tally.votes) + 1
        answers = await asyncio.gather(
            *(self._vote(case, p, role, first + n, tally) for n, (p, role) in enumerate(asked))
        )
        for answer, dropped in answers:
            tally.discarded += dropped
            if isinstance(answer, str):
                tally.note = answer
            else:
                tally.votes.append(answer)
        return not tally.note

    async def _vote(
        self, case: Case, provider: ProviderSettings, role: str, check: int, tally: Tally
    ) -> tuple[Vote | str, int]:
        """One vote slot: asked again while the verdict is red-flagged, at most RESAMPLES
        times. A budget refusal comes back as the note that stops verification."""
        request = _request(case, provider, role, check, self._language)
        discarded = 0
        for resample in range(RESAMPLES + 1):
            if tally.spent:
                break
            tally.calls_left -= 1
            slot = self._per_provider.setdefault(
                provider.model, asyncio.Semaphore(provider.max_concurrency)
            )
            async with slot, self._slots:
                try:
                    completion = await self._client.complete(
                        _resampled(request, resample) if resample else request
                    )
                except ModelCallError as exc:
                    if exc.kind is FailureKind.BUDGET:
                        why = exc.message.removeprefix("not called: ")
                        return f"verification stopped: {why}", discarded
                    failure = f"{exc.kind.value}: {exc.message}"
                    return _vote(case, provider, role, None, failure), discarded
            self._ledger.note_verification(provider.model, completion.usage)
            try:
                verdict = parse_verdict(completion.text)
            except ReplyError:
                discarded += 1
                continue
            return _vote(
                case, provider, role, VerdictKind(verdict.verdict), verdict.reason
            ), discarded
        why = "every verdict was malformed" if discarded else "not asked: calls ran out"
        return _vote(case, provider, role, None, why), discarded


def _resampled(request: CompletionRequest, attempt: int) -> CompletionRequest:
    """The same question asked again: its own request, so a journal keeps both answers."""
    last = request.messages[-1]
    again = last.model_copy(update={"content": f"{last.content}\n(Asked again: {attempt}.)"})
    return request.model_copy(update={"messages": (*request.messages[:-1], again)})


def _vote(
    case: Case, provider: ProviderSettings, role: str, verdict: VerdictKind | None, reason: str
) -> Vote:
    return Vote(
        model=provider.model,
        family=provider.voting_family,
        role="inspector" if role == "inspector" else "voter",
        verdict=verdict,
        reason=reason[:1_000],
        self_vote=provider.voting_family in case.claim.families,
    )


def _request(
    case: Case, provider: ProviderSettings, role: str, check: int, language: str
) -> CompletionRequest:
    claim = case.claim
    system = template("verify_system.j2").render(nonce=case.nonce)
    user = template("verify.j2").render(
        nonce=case.nonce,
        check=check,  # makes each vote its own request: independent, and journaled apart
        title=claim.title,
        path=claim.path,
        line=claim.line,
        end_line=claim.end_line,
        severity=claim.severity.value,
        category=claim.category.value,
        body=claim.body,
        context=case.context,
        hunk=case.hunk,
        language_note=language_note(language, 'the "reason"'),
    )
    return CompletionRequest(
        model=provider.model,
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        response_schema=verdict_schema(),
        schema_name="verdict",
        api_base=provider.api_base,
        api_key_env=provider.api_key_env,
        timeout_s=provider.timeout_s,
        temperature=0.0 if role == "inspector" else VOTER_TEMPERATURE,
        max_tokens=600,
        seed=sampling_seed(claim.fingerprint, provider.model, role, check),
    )


def case_of(claim: Claim, diff: ReviewDiff, head: str | None) -> Case:
    """The claim with the hunk it is in and the code around it in the head version."""
    changed = diff.file(claim.path)
    hunk = ""
    if changed is not None:
        index = next(
            (
                n
                for n, h in enumerate(changed.hunks)
                if h.new_start <= claim.line < h.new_start + max(h.new_length, 1)
            ),
            None,
        )
        hunk = render_file(changed, [index] if index is not None else None)
    if head is None:
        context = "(the file could not be read; the change below is all there is)"
    else:
        context = code_context(head, claim.line, claim.end_line)
    nonce = hashlib.sha256((context + hunk).encode("utf-8", "replace")).hexdigest()[:12]
    return Case(claim=claim, context=context, hunk=hunk, nonce=nonce)


def head_files(
    paths: Sequence[str], source: SourceReader | None, redact: Sequence[str]
) -> dict[str, str | None]:
    """The head version of each file, read once and redacted as the diff was: it is read
    afresh from the tree, and no provider may see a secret in it."""
    heads: dict[str, str | None] = {}
    for path in paths:
        if path not in heads:
            text = source.read(path) if source is not None else None
            heads[path] = None if text is None else redact_text(text, redact)[0]
    return heads


def request_text(claim: Claim, diff: ReviewDiff, provider: ProviderSettings) -> str:
    """The text of the question a voter is asked about `claim` (to count its tokens)."""
    request = _request(case_of(claim, diff, None), provider, "voter", 1, "en")
    return "\n".join(m.content for m in request.messages)
