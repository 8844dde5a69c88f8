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
from consensus.inspect.tool_results import Span
from consensus.model.base import FailureKind, VerdictKind
from consensus.model.claim import Claim
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Vote
from consensus.model.reply import Citation
from consensus.ports import (
    Completion,
    CompletionRequest,
    Message,
    ModelCallError,
    ModelClient,
    SourceReader,
)
from consensus.review.context import code_context
from consensus.review.judge_tools import Conversation, Looker, Question
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
    """What every judge of one claim is shown: the code around it and its hunk, and the
    lines those are (`shown`), which a judge may cite without reading them again."""

    claim: Claim
    context: str
    hunk: str
    nonce: str
    shown: tuple[Span, ...] = ()
    analyzed: str = ""  # the static analyzers' results on its lines, one a line


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
        looker: Looker | None = None,
    ) -> None:
        """With a `looker`, every judge is offered its tools over the pull request's trees
        (or given their evidence inline) and its citations are checked."""
        self._client = client
        self._looker = looker
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
        discarded = 0
        for resample in range(RESAMPLES + 1):
            if tally.spent:
                break
            tally.calls_left -= 1
            slot = self._per_provider.setdefault(
                provider.model, asyncio.Semaphore(provider.max_concurrency)
            )

            def question(evidence: str = "", resample: int = resample) -> CompletionRequest:
                """The question of this slot, with the evidence given inline, if any."""
                asked = _request(case, provider, role, check, self._language, evidence)
                return _resampled(asked, resample) if resample else asked

            async with slot, self._slots:
                try:
                    completion, talk = await self._ask(question, case, provider)
                except ModelCallError as exc:
                    if exc.kind is FailureKind.BUDGET:
                        why = exc.message.removeprefix("not called: ")
                        return f"verification stopped: {why}", discarded
                    failure = f"{exc.kind.value}: {exc.message}"
                    return _vote(case, provider, role, None, failure), discarded
            try:
                verdict = parse_verdict(completion.text)
            except ReplyError:
                discarded += 1
                continue
            cited: tuple[Citation, ...] = ()
            if self._looker is not None and talk is not None:
                cited = self._looker.grounded(verdict.evidence, talk)
            kind = VerdictKind(verdict.verdict)
            return _vote(case, provider, role, kind, verdict.reason, talk, cited), discarded
        why = "every verdict was malformed" if discarded else "not asked: calls ran out"
        return _vote(case, provider, role, None, why), discarded

    async def _ask(
        self, question: Question, case: Case, provider: ProviderSettings
    ) -> tuple[Completion, Conversation | None]:
        """One question answered: straight, or through the looker's tool rounds (each
        round's usage noted as it ends, so a later round's failure keeps it)."""

        def noted(completion: Completion) -> None:
            self._ledger.note_verification(provider.model, completion.usage)

        if self._looker is None:
            completion = await self._client.complete(question(""))
            noted(completion)
            return completion, None
        return await self._looker.ask(self._client, question, case.claim, case.shown, noted)


def _resampled(request: CompletionRequest, attempt: int) -> CompletionRequest:
    """The same question asked again: its own request, so a journal keeps both answers."""
    last = request.messages[-1]
    again = last.model_copy(update={"content": f"{last.content}\n(Asked again: {attempt}.)"})
    return request.model_copy(update={"messages": (*request.messages[:-1], again)})


def _vote(
    case: Case,
    provider: ProviderSettings,
    role: str,
    verdict: VerdictKind | None,
    reason: str,
    talk: Conversation | None = None,
    cited: tuple[Citation, ...] = (),
) -> Vote:
    """A judge's vote; grounded when it cited lines and every one was checked (`cited`),
    else a blind one."""
    return Vote(
        model=provider.model,
        family=provider.voting_family,
        role="inspector" if role == "inspector" else "voter",
        verdict=verdict,
        reason=reason[:1_000],
        self_vote=provider.voting_family in case.claim.families,
        grounded=bool(cited),
        evidence=cited,
        looked=tuple(talk.looked) if talk is not None else (),
    )


def _request(
    case: Case, provider: ProviderSettings, role: str, check: int, language: str, evidence: str = ""
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
        evidence=evidence,
        analyzed=case.analyzed,
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


def case_of(claim: Claim, diff: ReviewDiff, head: str | None, analyzed: str = "") -> Case:
    """The claim with the hunk it is in and the code around it in the head version, and
    what the static analyzers report on its lines (`analyzed`)."""
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
    shown: list[Span] = []
    if changed is not None and index is not None:
        shown_hunk = changed.hunks[index]
        end = shown_hunk.new_start + max(shown_hunk.new_length, 1) - 1
        shown.append(Span(path=claim.path, start_line=shown_hunk.new_start, end_line=end))
    if head is None:
        context = "(the file could not be read; the change below is all there is)"
    else:
        context = code_context(head, claim.line, claim.end_line)
        shown.extend(_numbered_span(claim.path, context))
    nonce = hashlib.sha256((context + hunk + analyzed).encode("utf-8", "replace")).hexdigest()[:12]
    return Case(
        claim=claim, context=context, hunk=hunk, nonce=nonce, shown=tuple(shown), analyzed=analyzed
    )


def _numbered_span(path: str, context: str) -> list[Span]:
    """The lines code_context numbered: from its first number to its last."""
    numbers = [
        line.split(maxsplit=1)[0].rstrip(">") for line in context.splitlines() if line.strip()
    ]
    lines = [int(n) for n in numbers if n.isdigit()]
    return [Span(path=path, start_line=lines[0], end_line=lines[-1])] if lines else []


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
