"""VERIFY: claims → an inspector, then redundancy voting, until the rule decides.

What a judge is asked about is a `Claim` (model/claim.py), built from a live cluster here
(`claim_of`) or from a finding the summary state recorded (`/consensus verify`), and what
must be settled is a `Check`: a disputed claim is posted only when verified; a consensus
claim is posted unless a family that did not report it vetoes it.

The default rule (`inspector.rule: weighed`, decide/evidence.py) weighs each verdict by
its judge family's TPR/TNR from a prior set by who reported the claim, and stops at a
bound set by `inspector.target_precision`; votes go out in parallel only as far as none
can be wasted. `ahead-by-k` (decide/ahead_by.py), its symmetric case, and `veto` (one
independent judge per consensus finding, nothing else verified) are settings too.

A failed call uses a vote slot but counts for neither side: an outage can only leave a
finding undecided. A malformed verdict is asked again, at most `RESAMPLES` times a slot,
within the finding's call cap (review/tally.py): "verdicts malformed" says so.

Who may judge (`judges`): votes must be independent for voting to mean
anything, and a model asked about its own claim mostly confirms it. So the judges of a
finding are the configured inspector and voters (every reviewing provider when no voters
are configured) *minus the families that reported it*; when fewer than k providers are
left, the panel's other providers of non-reporting families join them. The inspector is
the configured one when its family did not report the finding, else the first judge: it
is always of a non-reporting family when one answered. Voters rotate over the judges,
the inspector last; asking one independent provider several times (its own request each
time, at temperature VOTER_TEMPERATURE, as MAKER samples) counts as separate votes. Only
when every family that answered reported the finding (`check_consensus: true` on a
unanimous one) may reporters judge: their votes are marked `self_vote`; their
confirmations weigh nothing (weighed) or the lead needed is k + 1 (ahead-by-k). The
prompt never says who reported, and judges, votes and their order
depend on the finding and the panel only, so a replay asks the same questions; each call's
seed comes from the finding's fingerprint and the vote's slot (`sampling_seed`), so a run
on the same code asks them the same way too, where the provider honours seeds.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.decide.ahead_by import (
    ahead_by_for,
    decide,
    lead_for,
    max_votes_for,
    tally_votes,
)
from consensus.decide.evidence import (
    WEIGHED_CAP,
    Bounds,
    belief,
    bounds,
    decide_weighed,
    in_words,
    prior,
    probability,
    votes_that_cannot_decide,
)
from consensus.decide.judgement import Judgement, check_of, claim_of, settled
from consensus.ingest.detections import is_detection
from consensus.ingest.redact import redact_text
from consensus.ingest.view import render_file
from consensus.model.base import FailureKind, Status, VerdictKind
from consensus.model.claim import Check, Claim
from consensus.model.diff import ReviewDiff
from consensus.model.findings import ScoredCluster, Verification, Vote
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient, SourceReader
from consensus.review.context import code_context
from consensus.review.judges import Judges, judges, reporters_may_judge
from consensus.review.ledger import Ledger
from consensus.review.prompt import language_note, template, verdict_schema
from consensus.review.reply import ReplyError, parse_verdict
from consensus.review.tally import EXTRA_CALLS_PER_FINDING, RESAMPLES, Tally
from consensus.settings.config import InspectorSettings, ProviderSettings, Settings

VOTER_TEMPERATURE = 0.3


# --------------------------------------------------------------------------- pure rules


def sampling_seed(fingerprint: str, model: str, role: str, check: int) -> int:
    """The seed of one verification call: derived from the finding's fingerprint and the
    vote's slot, so that the same question is asked the same way on every run (where the
    provider honours seeds), while each vote stays its own sample."""
    payload = "\0".join((fingerprint, model, role, str(check)))
    return int.from_bytes(hashlib.sha256(payload.encode("utf-8")).digest()[:4], "big") >> 1


def needs_check(item: ScoredCluster, inspector: InspectorSettings) -> bool:
    """Disputed findings, severe consensus ones not every family reported (score marks
    both), and every consensus one when asked; never what the diff proves itself. The
    `veto` rule verifies no disputed finding."""
    if is_detection(item.cluster):
        return False
    if inspector.rule == "veto" and item.status is not Status.CONSENSUS:
        return False
    return item.needs_verification or (
        inspector.check_consensus and item.status is Status.CONSENSUS
    )


# --------------------------------------------------------------------------- orchestration


@dataclass(frozen=True)
class _Case:
    """What every verifier of one claim is shown, and what must be settled."""

    claim: Claim
    check: Check
    context: str
    hunk: str
    nonce: str


class _Verifier:
    """Runs the rule for every claim that needs it, sharing the concurrency slots. The
    client is guarded: the budget and the breaker refuse calls there."""

    def __init__(
        self,
        client: ModelClient,
        ledger: Ledger,
        panel: Sequence[ProviderSettings],
        settings: Settings,
        independent: bool,
    ) -> None:
        self._client = client
        self._ledger = ledger
        self._panel = panel
        self._inspector = settings.inspector
        self._calibration = settings.judged_by()
        self._language = settings.response_language
        self._independent = independent
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._per_provider = {p.model: asyncio.Semaphore(p.max_concurrency) for p in panel}

    def _judges(self, claim: Claim) -> Judges:
        k = ahead_by_for(claim, self._inspector.ahead_by)
        if self._independent:
            return judges(claim.families, self._panel, self._inspector, k)
        return reporters_may_judge(claim.families, self._panel, self._inspector)

    async def run(self, case: _Case) -> Judgement:
        chosen = self._judges(case.claim)
        if self._inspector.rule == "ahead-by-k":
            return await self._ahead_by_k(case, chosen)
        return await self._weighed(case, chosen)

    async def _ahead_by_k(self, case: _Case, chosen: Judges) -> Judgement:
        lead = lead_for(case.claim, self._inspector, self_judged=chosen.self_judged)
        cap = max_votes_for(lead.verify, self._inspector.max_votes)
        tally = Tally([], calls_left=cap + EXTRA_CALLS_PER_FINDING)
        turn = 0
        while (outcome := decide(tally.votes, lead, cap) or tally.out_of_calls()) is None:
            width = min(lead.reject, cap) if not tally.votes else 1
            asked = _asked(chosen, turn, width, first=not tally.votes)
            turn += sum(1 for _, role in asked if role == "voter")
            if not await self.ask(case, asked, tally):
                break
        confirmed, refuted, uncertain = tally_votes(tally.votes)
        score, bad = f"{confirmed} confirmed, {refuted + uncertain} against", tally.malformed()
        reason = {
            None: f"{tally.note} ({score})",
            Status.UNDECIDED: f"undecided: {score} after {len(tally.votes)} votes (cap)" + bad,
            Status.VERIFIED: f"verified: {score} (ahead by {lead.verify})",
            Status.REJECTED: f"rejected: {score} (behind by {lead.reject})",
        }[outcome]
        return _judgement(outcome, tally, lead.verify, None, reason)

    async def _weighed(self, case: _Case, chosen: Judges) -> Judgement:
        """The weighed rule (decide/evidence.py); `veto` is its one-judge special case."""
        calibration = self._calibration
        start = prior(case.claim, calibration)
        limits = bounds(start, self._inspector.target_precision)
        cap = self._inspector.max_votes or WEIGHED_CAP
        if self._inspector.rule == "veto" and case.check is Check.VETO:  # one judge may stop it
            limits, cap = Bounds(verify=float("-inf"), reject=float("-inf")), 1
        rates = [calibration.judge(p.voting_family) for p in (chosen.inspector, *chosen.voters)]
        tally = Tally([], calls_left=cap + EXTRA_CALLS_PER_FINDING)
        turn = 0
        while (
            outcome := decide_weighed(start, tally.votes, limits, cap, calibration, case.check)
            or tally.out_of_calls()
        ) is None:
            level = belief(start, tally.votes, calibration)
            width = votes_that_cannot_decide(level, limits, rates, case.check)
            asked = _asked(chosen, turn, min(width, cap - len(tally.votes)), first=not tally.votes)
            turn += sum(1 for _, role in asked if role == "voter")
            if not await self.ask(case, asked, tally):
                break
        level = belief(start, tally.votes, calibration)
        words, bad = in_words(case.claim, tally.votes, level), tally.malformed()
        reason = {
            None: f"{tally.note} ({words})",
            Status.UNDECIDED: f"undecided after {len(tally.votes)} votes (cap): {words}{bad}",
            Status.VERIFIED: f"verified: {words}",
            Status.REJECTED: f"rejected: {words}",
        }[outcome]
        return _judgement(outcome, tally, 0, probability(level), reason)

    async def ask(
        self, case: _Case, asked: Sequence[tuple[ProviderSettings, str]], tally: Tally
    ) -> bool:
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
        self, case: _Case, provider: ProviderSettings, role: str, check: int, tally: Tally
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


def _asked(
    chosen: Judges, turn: int, width: int, *, first: bool
) -> list[tuple[ProviderSettings, str]]:
    """Who is asked next: first the inspector with `width` - 1 voters beside it, then
    `width` voters in rotation."""
    rotation = chosen.voters
    asked = [(chosen.inspector, "inspector")] if first else []
    asked += [(rotation[(turn + n) % len(rotation)], "voter") for n in range(width - len(asked))]
    return asked


def _judgement(
    outcome: Status | None, tally: Tally, ahead_by: int, level: float | None, reason: str
) -> Judgement:
    confirmed, refuted, uncertain = tally_votes(tally.votes)
    record = Verification(
        confirmed=confirmed,
        refuted=refuted,
        uncertain=uncertain,
        ahead_by=ahead_by,
        votes=tuple(tally.votes),
        discarded=tally.discarded,
        note=tally.note,
        budget_stopped=outcome is None and "budget reached" in tally.note,
        belief=level,
    )
    return Judgement(outcome=outcome, verification=record, reason=reason)


def _resampled(request: CompletionRequest, attempt: int) -> CompletionRequest:
    """The same question asked again: its own request, so a journal keeps both answers."""
    last = request.messages[-1]
    again = last.model_copy(update={"content": f"{last.content}\n(Asked again: {attempt}.)"})
    return request.model_copy(update={"messages": (*request.messages[:-1], again)})


def _vote(
    case: _Case, provider: ProviderSettings, role: str, verdict: VerdictKind | None, reason: str
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
    case: _Case, provider: ProviderSettings, role: str, check: int, language: str
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


def _settle(item: ScoredCluster, judgement: Judgement) -> ScoredCluster:
    agreed = item.reason.split(";")[0]
    status, reason = settled(item.status, item.needs_verification, judgement, agreed)
    return item.model_copy(
        update={"status": status, "reason": reason, "verification": judgement.verification}
    )


def _case(claim: Claim, check: Check, diff: ReviewDiff, head: str | None) -> _Case:
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
    return _Case(claim=claim, check=check, context=context, hunk=hunk, nonce=nonce)


def _head_files(
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


@dataclass(frozen=True)
class Bench:
    """Where judges sit: the diff, the panel, the settings, the guarded client and its
    ledger, and the head tree to read code around a claim from."""

    diff: ReviewDiff
    panel: Sequence[ProviderSettings]
    settings: Settings
    client: ModelClient
    ledger: Ledger
    source: SourceReader | None
    independent: bool = True


async def judge_claims(checks: Sequence[tuple[Claim, Check]], bench: Bench) -> list[Judgement]:
    """Every claim judged by the rule, sharing the concurrency slots; in order."""
    verifier = _Verifier(bench.client, bench.ledger, bench.panel, bench.settings, bench.independent)
    heads = _head_files([c.path for c, _ in checks], bench.source, bench.settings.redact)
    return list(
        await asyncio.gather(
            *(
                verifier.run(_case(claim, check, bench.diff, heads[claim.path]))
                for claim, check in checks
            )
        )
    )


async def verify(
    scored: Sequence[ScoredCluster],
    *,
    diff: ReviewDiff,
    panel: Sequence[ProviderSettings],
    settings: Settings,
    client: ModelClient,
    ledger: Ledger,
    source: SourceReader | None,
    independent: bool = True,
) -> list[ScoredCluster]:
    """Verify every cluster that needs it; the rest come back unchanged, in order.

    `independent` False lets reporters judge their own claims: only for the quality
    benchmark's comparison."""
    if not panel:
        return list(scored)
    wanted = {n: item for n, item in enumerate(scored) if needs_check(item, settings.inspector)}
    bench = Bench(diff, panel, settings, client, ledger, source, independent)
    checks = [(claim_of(item), check_of(item)) for item in wanted.values()]
    judged = dict(zip(wanted, await judge_claims(checks, bench), strict=True))
    return [_settle(item, judged[n]) if n in judged else item for n, item in enumerate(scored)]


async def poll(claim: Claim, bench: Bench) -> tuple[list[Vote], str]:
    """Each provider of the panel asked once about `claim`, with the voters' prompt and
    schema (`consensus calibrate`); the votes, and the note that stopped them (the
    budget), if any. The claim's code is the change in `bench.diff`."""
    verifier = _Verifier(bench.client, bench.ledger, bench.panel, bench.settings, True)
    case = _case(claim, Check.DISPUTED, bench.diff, None)
    tally = Tally([], calls_left=len(bench.panel) * (RESAMPLES + 1))
    await verifier.ask(case, [(p, "voter") for p in bench.panel], tally)
    return tally.votes, tally.note


def verification_request(claim: Claim, diff: ReviewDiff, provider: ProviderSettings) -> str:
    """The text of the question `poll` puts to `provider` (to count its tokens)."""
    request = _request(_case(claim, Check.DISPUTED, diff, None), provider, "voter", 1, "en")
    return "\n".join(m.content for m in request.messages)
