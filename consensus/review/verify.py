"""VERIFY: disputed clusters → an inspector, then first-to-ahead-by-k redundancy voting.

The rule (MAKER's first-to-ahead-by-k): the inspector's verdict is the first vote; then
independent verifier calls, rotating across the voting panel, until `confirmed` leads
`refuted + uncertain` by k (verified: posted, marked verified) or trails by k (rejected:
kept for audit, never posted), capped at `max_votes` (undecided: summary only). The
first k votes go out in parallel, then one at a time. `uncertain` counts against: the
phase fails closed.

Where the evidence is weakest the lead to verify is wider (`lead_for`): a finding that
only one provider family reported (most of them are that model's inventions) is verified
only when `confirmed` leads by k + `inspector.single_family_extra_lead` (default 1), and
rejected, as any other, when it trails by k. A wrong "verified" posts a comment; a wrong
"rejected" keeps a finding in the report: so the extra lead is on the side that posts.
Two independent wrong confirmations in a row happen to about 1 invention in 180 at
verifier accuracy 0.85; three, to about 1 in 2,000. The cap is 2 × the lead to verify + 3.

A failed call uses up a vote slot but counts for neither side, so an outage can only ever
leave a finding undecided. A malformed or over-long verdict is discarded and asked again
(red-flagging), at most `RESAMPLES` times per slot; all of a finding's calls, resamples
included, stay within its vote cap + `EXTRA_CALLS_PER_FINDING`, and a finding whose calls
ran out on malformed verdicts is undecided with "verdicts malformed" as its reason.

Who may judge (`judges`): votes must be independent for first-to-ahead-by-k to mean
anything, and a model asked about its own claim mostly confirms it. So the judges of a
finding are the configured inspector and voters (every reviewing provider when no voters
are configured) *minus the families that reported it*; when fewer than k providers are
left, the panel's other providers of non-reporting families join them. The inspector is
the configured one when its family did not report the finding, else the first judge: it
is always of a non-reporting family when one answered. Voters rotate over the judges,
the inspector last; asking one independent provider several times (its own request each
time, at temperature VOTER_TEMPERATURE, as MAKER samples) counts as separate votes. Only
when every family that answered reported the finding (`check_consensus: true` on a
unanimous one) may reporters judge: their votes are marked `self_vote` and the lead
needed is k + 1. The prompt never says who reported, and judges, votes and their order
depend on the finding and the panel only, so a replay asks the same questions; each call's
seed comes from the finding's fingerprint and the vote's slot (`sampling_seed`), so a run
on the same code asks them the same way too, where the provider honours seeds.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.ingest.detections import PROVIDER as DETECTOR
from consensus.ingest.detections import is_detection
from consensus.ingest.redact import redact_text
from consensus.ingest.view import render_file
from consensus.model.base import Category, FailureKind, Severity, Status, VerdictKind
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Cluster, ScoredCluster, Verification, Vote
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient, SourceReader
from consensus.review.context import code_context
from consensus.review.judges import judges, reporters_may_judge
from consensus.review.ledger import Ledger
from consensus.review.prompt import language_note, template, verdict_schema
from consensus.review.reply import ReplyError, parse_verdict
from consensus.settings.config import InspectorSettings, ProviderSettings, Settings

RESAMPLES = 2
# Calls one finding's verification may make, resamples included: its vote cap plus this.
EXTRA_CALLS_PER_FINDING = RESAMPLES
# At the default settings' widest lead (3 for security and critical, +1 for one family).
MAX_CALLS_PER_FINDING = 2 * 4 + 3 + EXTRA_CALLS_PER_FINDING
STRICT_K = 3  # security and critical findings need a wider lead
VOTER_TEMPERATURE = 0.3


# --------------------------------------------------------------------------- pure rules


def sampling_seed(fingerprint: str, model: str, role: str, check: int) -> int:
    """The seed of one verification call: derived from the finding's fingerprint and the
    vote's slot, so that the same question is asked the same way on every run (where the
    provider honours seeds), while each vote stays its own sample."""
    payload = "\0".join((fingerprint, model, role, str(check)))
    return int.from_bytes(hashlib.sha256(payload.encode("utf-8")).digest()[:4], "big") >> 1


def ahead_by_for(cluster: Cluster, k: int) -> int:
    """k for this finding: at least 3 for security and critical findings."""
    strict = cluster.category is Category.SECURITY or cluster.severity is Severity.CRITICAL
    return max(k, STRICT_K) if strict else k


@dataclass(frozen=True)
class Lead:
    """How far ahead `confirmed` must be to verify a finding, and `against` to reject it."""

    verify: int
    reject: int


def lead_for(cluster: Cluster, inspector: InspectorSettings, *, self_judged: bool = False) -> Lead:
    """k by `ahead_by_for`, one more when reporters judge their own claim; and to verify a
    finding that only one provider family reported, `single_family_extra_lead` more."""
    k = ahead_by_for(cluster, inspector.ahead_by) + self_judged
    single = len(cluster.families - {DETECTOR}) == 1
    return Lead(verify=k + (inspector.single_family_extra_lead if single else 0), reject=k)


def max_votes_for(k: int, configured: int | None) -> int:
    return configured if configured is not None else 2 * k + 3


def tally(votes: Sequence[Vote]) -> tuple[int, int, int]:
    """(confirmed, refuted, uncertain) over the votes that were counted."""
    verdicts = [vote.verdict for vote in votes]
    return (
        verdicts.count(VerdictKind.CONFIRMED),
        verdicts.count(VerdictKind.REFUTED),
        verdicts.count(VerdictKind.UNCERTAIN),
    )


def decide(votes: Sequence[Vote], lead: Lead, cap: int) -> Status | None:
    """VERIFIED, REJECTED or UNDECIDED once the rule says so; None while voting goes on."""
    confirmed, refuted, uncertain = tally(votes)
    if confirmed - (refuted + uncertain) >= lead.verify:
        return Status.VERIFIED
    if (refuted + uncertain) - confirmed >= lead.reject:
        return Status.REJECTED
    if len(votes) >= cap:
        return Status.UNDECIDED
    return None


def needs_check(item: ScoredCluster, inspector: InspectorSettings) -> bool:
    """Disputed findings, severe consensus ones not every family reported (score marks
    both), and every consensus one when asked; never what the diff proves itself."""
    if is_detection(item.cluster):
        return False
    return item.needs_verification or (
        inspector.check_consensus and item.status is Status.CONSENSUS
    )


# --------------------------------------------------------------------------- orchestration


@dataclass(frozen=True)
class _Case:
    """What every verifier of one finding is shown."""

    item: ScoredCluster
    context: str
    hunk: str
    nonce: str


class _Verifier:
    """Runs the rule for every finding that needs it, sharing the concurrency slots. The
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
        self._language = settings.response_language
        self._independent = independent
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._per_provider = {p.model: asyncio.Semaphore(p.max_concurrency) for p in panel}

    async def run(self, case: _Case) -> ScoredCluster:
        cluster = case.item.cluster
        k = ahead_by_for(cluster, self._inspector.ahead_by)
        if self._independent:
            chosen = judges(cluster, self._panel, self._inspector, k)
        else:
            chosen = reporters_may_judge(cluster, self._panel, self._inspector)
        lead = lead_for(cluster, self._inspector, self_judged=chosen.self_judged)
        cap = max_votes_for(lead.verify, self._inspector.max_votes)
        inspector, rotation = chosen.inspector, chosen.voters
        votes: list[Vote] = []
        discarded = 0
        note = ""
        turn = 0
        calls_left = [cap + EXTRA_CALLS_PER_FINDING]
        while (outcome := decide(votes, lead, cap)) is None:
            if calls_left[0] <= 0:
                outcome = Status.UNDECIDED
                break
            if not votes:  # first the inspector, with k-1 voters beside it
                asked = [(inspector, "inspector")]
                width = min(lead.reject, cap) - 1
                asked += [(rotation[(turn + n) % len(rotation)], "voter") for n in range(width)]
            else:
                asked = [(rotation[turn % len(rotation)], "voter")]
            turn += sum(1 for _, role in asked if role == "voter")
            first = len(votes) + 1
            answers = await asyncio.gather(
                *(
                    self._vote(case, p, role, first + n, calls_left)
                    for n, (p, role) in enumerate(asked)
                )
            )
            for answer, dropped in answers:
                discarded += dropped
                if isinstance(answer, str):
                    note = answer
                else:
                    votes.append(answer)
            if note:
                break
        return _settle(case.item, votes, outcome, lead, discarded, note)

    async def _vote(
        self, case: _Case, provider: ProviderSettings, role: str, check: int, calls_left: list[int]
    ) -> tuple[Vote | str, int]:
        """One vote slot: asked again while the verdict is red-flagged, at most RESAMPLES
        times. A budget refusal comes back as the note that stops verification."""
        request = _request(case, provider, role, check, self._language)
        discarded = 0
        for resample in range(RESAMPLES + 1):
            if calls_left[0] <= 0:
                break
            calls_left[0] -= 1
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
    case: _Case, provider: ProviderSettings, role: str, verdict: VerdictKind | None, reason: str
) -> Vote:
    return Vote(
        model=provider.model,
        family=provider.voter,
        role="inspector" if role == "inspector" else "voter",
        verdict=verdict,
        reason=reason[:1_000],
        self_vote=provider.voter in case.item.cluster.families,
    )


def _request(
    case: _Case, provider: ProviderSettings, role: str, check: int, language: str
) -> CompletionRequest:
    cluster = case.item.cluster
    system = template("verify_system.j2").render(nonce=case.nonce)
    user = template("verify.j2").render(
        nonce=case.nonce,
        check=check,  # makes each vote its own request: independent, and journaled apart
        title=cluster.title,
        path=cluster.path,
        line=cluster.line,
        end_line=cluster.end_line,
        severity=cluster.severity.value,
        category=cluster.category.value,
        body=cluster.body,
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
        seed=sampling_seed(cluster.fingerprint, provider.model, role, check),
    )


def _settle(
    item: ScoredCluster,
    votes: list[Vote],
    outcome: Status | None,
    lead: Lead,
    discarded: int,
    note: str,
) -> ScoredCluster:
    confirmed, refuted, uncertain = tally(votes)
    record = Verification(
        confirmed=confirmed,
        refuted=refuted,
        uncertain=uncertain,
        ahead_by=lead.verify,
        votes=tuple(votes),
        discarded=discarded,
        note=note,
        budget_stopped=outcome is None and "budget reached" in note,
    )
    score = f"{confirmed} confirmed, {refuted + uncertain} against"
    if outcome is None:  # stopped by the budget or by failing voters
        status, reason = Status.UNVERIFIED, f"{note} ({score})"
    elif outcome is Status.UNDECIDED:
        malformed = f"; verdicts malformed ({discarded} discarded)" if discarded else ""
        status, reason = (
            Status.UNDECIDED,
            f"undecided: {score} after {len(votes)} votes (cap){malformed}",
        )
    elif outcome is Status.VERIFIED:
        status, reason = Status.VERIFIED, f"verified: {score} (ahead by {lead.verify})"
    else:
        status, reason = Status.REJECTED, f"rejected: {score} (behind by {lead.reject})"
    # A verified consensus finding stays consensus. One checked only because
    # `check_consensus` asks stays consensus unless refuted; a severe one not every family
    # reported (score asked for it) is posted only when verified, like a disputed one.
    kept = status is Status.VERIFIED or (
        not item.needs_verification and status is not Status.REJECTED
    )
    if item.status is Status.CONSENSUS and kept:
        status, reason = Status.CONSENSUS, f"{item.reason.split(';')[0]}; {reason}"
    return item.model_copy(update={"status": status, "reason": reason, "verification": record})


def _case(item: ScoredCluster, diff: ReviewDiff, head: str | None) -> _Case:
    cluster = item.cluster
    changed = diff.file(cluster.path)
    hunk = ""
    if changed is not None:
        index = next(
            (
                n
                for n, h in enumerate(changed.hunks)
                if h.new_start <= cluster.line < h.new_start + max(h.new_length, 1)
            ),
            None,
        )
        hunk = render_file(changed, [index] if index is not None else None)
    if head is None:
        context = "(the file could not be read; the change below is all there is)"
    else:
        context = code_context(head, cluster.line, cluster.end_line)
    nonce = hashlib.sha256((context + hunk).encode("utf-8", "replace")).hexdigest()[:12]
    return _Case(item=item, context=context, hunk=hunk, nonce=nonce)


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

    `independent` False chooses judges as before issue 16 (`reporters_may_judge`): only
    for the quality benchmark's comparison."""
    if not panel:
        return list(scored)
    verifier = _Verifier(client, ledger, panel, settings, independent)
    wanted = {n: item for n, item in enumerate(scored) if needs_check(item, settings.inspector)}
    heads = _head_files([i.cluster.path for i in wanted.values()], source, settings.redact)
    checks = {
        n: asyncio.ensure_future(verifier.run(_case(item, diff, heads[item.cluster.path])))
        for n, item in wanted.items()
    }
    if checks:
        await asyncio.gather(*checks.values())
    return [checks[n].result() if n in checks else item for n, item in enumerate(scored)]
