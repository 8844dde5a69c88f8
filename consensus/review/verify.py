"""VERIFY: claims → judges, until the rule decides.

What a judge is asked about is a `Claim` (model/claim.py), built from a live cluster here
(`claim_of`) or from a finding the summary state recorded (`/consensus verify`). Every
claim is checked the same way, from what its reports say, whether it reached consensus or
not: a consensus claim is posted unless the judges' evidence rejects it (an undecided
check leaves it posted), a disputed one only when they verify it (decide/judgement.settled).

The default rule (`inspector.rule: weighed`) judges every claim of the run together, in
rounds (review/rounds.py): each family's rates as a judge and as a reporter are estimated
from the run's own votes and reports, with what the repository knows as the prior
(decide/panel_rates.py), and each verdict weighs what its family's estimate says it is
worth (decide/evidence.py). `ahead-by-k` (decide/ahead_by.py), its symmetric case where
every vote counts the same, asks each claim's judges in rotation, repeats included.

Who may judge (review/judges.py): votes must be independent for voting to mean anything,
and a model asked about its own claim mostly confirms it. So the judges of a claim are the
configured inspector and voters (every reviewing provider when no voters are configured)
*minus the families that reported it*; when fewer than k providers are left, the panel's
other providers of non-reporting families join them. One family, one judge: the weighed
rule asks the families that have not judged a claim first, and a family again only when its
next answer is likely to change what is posted (review/rounds.py).
Only when every family that answered reported the claim (`check_consensus: true` on a
unanimous one) may reporters judge: their votes are marked `self_vote`, their
confirmations weigh nothing (weighed) or the lead needed is k + 1 (ahead-by-k), and the
verdict's reason says it (SELF_JUDGED). A claim's reporters are its families and those its
reporting models vote for on this panel (`Panel.reported`); a failed judge's turn never
passes to a reporter. Judges,
votes and their order depend on the claims, the panel and the answers only, so a replay
asks the same questions and decides the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.decide.ahead_by import ahead_by_for, decide, lead_for, max_votes_for
from consensus.decide.analyzers import results_near
from consensus.decide.evidence import WEIGHED_CAP, judged_by, observed
from consensus.decide.judgement import Judgement, claim_of, settled
from consensus.decide.panel_rates import estimate, known_counts
from consensus.decide.panel_report import panel_estimate
from consensus.ingest.detections import is_detection
from consensus.model.analysis import AnalyzerRun
from consensus.model.base import Status
from consensus.model.claim import Claim
from consensus.model.diff import ReviewDiff
from consensus.model.findings import ScoredCluster, Vote
from consensus.model.panel import PanelEstimate
from consensus.ports import ModelClient, SourceReader
from consensus.review.judge_calls import Asker, Case, case_of, head_files, request_text
from consensus.review.judge_tools import Looker
from consensus.review.judges import Judges, judges, reporters_may_judge, reporting_families
from consensus.review.ledger import Ledger
from consensus.review.rounds import Open, first_per_family, judge_in_rounds
from consensus.review.tally import EXTRA_CALLS_PER_FINDING, RESAMPLES, Tally, judgement_of
from consensus.settings.config import InspectorSettings, ProviderSettings, Settings


def needs_check(item: ScoredCluster, inspector: InspectorSettings) -> bool:
    """Disputed findings, severe consensus ones not every family reported (score marks
    both), and every consensus one when asked; never what the diff proves itself, nor what
    a static analyzer reported (its rule is its evidence: decide/analyzers.py)."""
    if is_detection(item.cluster) or item.cluster.analyzer_families:
        return False
    return item.needs_verification or (
        inspector.check_consensus and item.status is Status.CONSENSUS
    )


@dataclass(frozen=True)
class Reading:
    """What judges may read of the code: the head's files, for the code around a claim
    (`source`), and the pull request's trees through the verification tools (`looker`);
    without either, a judge votes on what its question shows. `analyzed`: the static
    analyzers' runs, whose results on a claim's lines its judges are shown."""

    source: SourceReader | None = None
    looker: Looker | None = None
    analyzed: tuple[AnalyzerRun, ...] = ()


@dataclass(frozen=True)
class Panel:
    """Where judges sit: the diff, the providers that may judge, the settings, the guarded
    client and its ledger, and the head tree to read code around a claim from.
    `independent` False lets reporters judge their own claims: only for the quality
    benchmark's comparison."""

    diff: ReviewDiff
    providers: Sequence[ProviderSettings]
    settings: Settings
    client: ModelClient
    ledger: Ledger
    source: SourceReader | None
    independent: bool = True
    looker: Looker | None = None  # the judges read the trees through it, when there are any
    analyzed: tuple[AnalyzerRun, ...] = ()  # the analyzers' runs: evidence on a claim's lines

    def asker(self) -> Asker:
        return Asker(
            self.client,
            self.ledger,
            self.providers,
            self.settings.concurrency,
            self.settings.response_language,
            self.looker,
        )

    def judges_of(self, claim: Claim) -> Judges:
        inspector = self.settings.inspector
        k = ahead_by_for(claim, inspector.ahead_by)
        if self.independent:
            return judges(claim.families, self.providers, inspector, k, self.settings.providers)
        return reporters_may_judge(claim.families, self.providers, inspector)

    def reported(self, claim: Claim) -> Claim:
        """The claim with every family that reported it: those recorded, and those its
        reporting models vote for on this panel (review/judges.py)."""
        families = reporting_families(
            claim.families, claim.providers, self.providers, self.settings.providers
        )
        return (
            claim if families == claim.families else claim.model_copy(update={"families": families})
        )

    def reviewers(self, claim: Claim) -> frozenset[str]:
        """The families that reviewed the claim's file: as scored, else the panel's."""
        return claim.reviewers or frozenset(p.voting_family for p in self.providers)


@dataclass(frozen=True)
class Judged:
    """The judgement of every claim asked about, in order, and the panel's estimate."""

    judgements: list[Judgement]
    panel: PanelEstimate


async def judge_claims(
    claims: Sequence[Claim],
    panel: Panel,
    others: Sequence[Claim] = (),
    consensus: Sequence[bool] = (),
) -> Judged:
    """Every claim judged by the rule; `others`: the run's claims no judge is asked about,
    which the estimate of the panel reads too (who reports what); `consensus`: which of
    `claims` reached consensus (posted unless rejected: what a family asked again could
    still change), none when not given."""
    claims = [panel.reported(c) for c in claims]
    heads = head_files([c.path for c in claims], panel.source, panel.settings.redact)
    cases = [
        case_of(claim, panel.diff, heads[claim.path], _analyzed(claim, panel.analyzed))
        for claim in claims
    ]
    known = known_counts(panel.settings.judged_by())
    context = [observed(c, (), panel.reviewers(c)) for c in others]
    inspector = panel.settings.inspector
    asker = panel.asker()
    if inspector.rule == "ahead-by-k":
        judgements = list(
            await asyncio.gather(*(_ahead_by_k(asker, c, panel, inspector) for c in cases))
        )
        claimed = [observed(c, j.verification.votes, panel.reviewers(c)) for c, j in
                   zip(claims, judgements, strict=True)]  # fmt: skip
        judged = [(j.verification.votes, j.outcome) for j in judgements]
        seen = estimate([*claimed, *context], known)
        judgements = _noted(claims, judgements, panel)
        return Judged(judgements, panel_estimate(seen, judged, len(claims) + len(others)))
    cap = inspector.max_votes or WEIGHED_CAP
    reached = [*consensus, *[False] * (len(cases) - len(consensus))]
    opened = [
        Open(case, first_per_family(panel.judges_of(case.claim)), panel.reviewers(case.claim),
             cap, agreed)
        for case, agreed in zip(cases, reached, strict=True)
    ]  # fmt: skip
    weighed = await judge_in_rounds(opened, context, asker, known, inspector.target_precision)
    return Judged(_noted(claims, weighed.judgements, panel), weighed.panel)


def _analyzed(claim: Claim, runs: Sequence[AnalyzerRun]) -> str:
    """What the analyzers report on the claim's lines, one result a line."""
    return "\n".join(results_near(runs, claim.path, claim.line, claim.end_line))


SELF_JUDGED = "judged by its reporters: no other family answered"


def _noted(
    claims: Sequence[Claim], judgements: Sequence[Judgement], panel: Panel
) -> list[Judgement]:
    """Each judgement, saying so when the claim's own reporters judged it."""
    return [
        j.model_copy(update={"reason": f"{j.reason}; {SELF_JUDGED}"})
        if panel.judges_of(c).self_judged and j.verification.votes
        else j
        for c, j in zip(claims, judgements, strict=True)
    ]


async def _ahead_by_k(
    asker: Asker, case: Case, panel: Panel, inspector: InspectorSettings
) -> Judgement:
    """First-to-ahead-by-k for one claim: the first k votes at once, then one at a time,
    rotating over its judges."""
    chosen = panel.judges_of(case.claim)
    lead = lead_for(case.claim, inspector, self_judged=chosen.self_judged)
    cap = max_votes_for(lead.verify, inspector.max_votes)
    tally = Tally([], calls_left=cap + EXTRA_CALLS_PER_FINDING)
    turn = 0
    while (outcome := decide(tally.votes, lead, cap) or tally.out_of_calls()) is None:
        width = min(lead.reject, cap) if not tally.votes else 1
        asked = _asked(chosen, turn, width, first=not tally.votes)
        turn += sum(1 for _, role in asked if role == "voter")
        if not await asker.ask(case, asked, tally):
            break
    said, bad = judged_by(tally.votes) or "no verdict", tally.malformed()
    reason = {
        None: f"{tally.note} ({said})",
        Status.UNDECIDED: f"undecided after {len(tally.votes)} votes (cap): {said}" + bad,
        Status.VERIFIED: f"verified: {said} (ahead by {lead.verify})",
        Status.REJECTED: f"rejected: {said} (behind by {lead.reject})",
    }[outcome]
    return judgement_of(outcome, tally, lead.verify, None, reason)


def _asked(
    chosen: Judges, turn: int, width: int, *, first: bool
) -> list[tuple[ProviderSettings, str]]:
    """Who is asked next: first the inspector with `width` - 1 voters beside it, then
    `width` voters in rotation."""
    rotation = chosen.voters
    asked = [(chosen.inspector, "inspector")] if first else []
    asked += [(rotation[(turn + n) % len(rotation)], "voter") for n in range(width - len(asked))]
    return asked


def _settle(item: ScoredCluster, judgement: Judgement) -> ScoredCluster:
    agreed = item.reason.split(";")[0]
    status, reason = settled(item.status, item.needs_verification, judgement, agreed)
    return item.model_copy(
        update={"status": status, "reason": reason, "verification": judgement.verification}
    )


@dataclass(frozen=True)
class Verified:
    """The clusters, each judged one settled, in order; and the panel's estimate (None
    when no claim was judged)."""

    items: list[ScoredCluster]
    panel: PanelEstimate | None = None


async def verify(
    scored: Sequence[ScoredCluster],
    *,
    diff: ReviewDiff,
    panel: Sequence[ProviderSettings],
    settings: Settings,
    client: ModelClient,
    ledger: Ledger,
    reading: Reading,
    independent: bool = True,
) -> Verified:
    """Verify every cluster that needs it; the rest come back unchanged, in order; the
    judges read the code as `reading` lets them.

    `independent` False lets reporters judge their own claims: only for the quality
    benchmark's comparison."""
    wanted = {n: item for n, item in enumerate(scored) if needs_check(item, settings.inspector)}
    if not panel or not wanted:
        return Verified(list(scored))
    judges_panel = Panel(
        diff,
        panel,
        settings,
        client,
        ledger,
        reading.source,
        independent,
        reading.looker,
        reading.analyzed,
    )
    others = [
        claim_of(item)
        for n, item in enumerate(scored)
        if n not in wanted and item.cluster.model_families
    ]
    reached = [item.status is Status.CONSENSUS for item in wanted.values()]
    result = await judge_claims(
        [claim_of(i) for i in wanted.values()], judges_panel, others, reached
    )
    judged = dict(zip(wanted, result.judgements, strict=True))
    items = [_settle(item, judged[n]) if n in judged else item for n, item in enumerate(scored)]
    return Verified(items, result.panel)


async def poll(claim: Claim, panel: Panel) -> tuple[list[Vote], str]:
    """Each provider of the panel asked once about `claim`, with the voters' prompt and
    schema (`consensus calibrate`); the votes, and the note that stopped them (the
    budget), if any. The claim's code is the change in `panel.diff`."""
    case = case_of(claim, panel.diff, None)
    tally = Tally([], calls_left=len(panel.providers) * (RESAMPLES + 1))
    await panel.asker().ask(case, [(p, "voter") for p in panel.providers], tally)
    return tally.votes, tally.note


def verification_request(claim: Claim, diff: ReviewDiff, provider: ProviderSettings) -> str:
    """The text of the question `poll` puts to `provider` (to count its tokens)."""
    return request_text(claim, diff, provider)
