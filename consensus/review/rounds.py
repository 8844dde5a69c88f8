"""The weighed rule in rounds over all of a run's claims, re-estimating the panel as votes
arrive (decide/panel_rates.py, decide/evidence.py).

Round one asks each claim's first FIRST_ROUND judges at once: with four families, every
family that did not report it. The estimate reads a panel from how far its judges agree on
each claim, and a run's few claims give it little to read: three verdicts a claim show it
far more than two, for about three more calls a PR than stopping at two would make. Each
later round asks one more judge of every claim still open (on a wider panel): a family
that has not judged the claim yet, in the order `judges` chose (the configured inspector
first); once every family has, the family whose next answer is likeliest to decide it, if
one is likely enough to (decide/ask_again.py: a family asked again mostly repeats itself,
and its answers weigh only what they add). Before each round the panel is estimated again
from every vote so far and every claim of the run, and every claim is decided again with
that estimate: a claim that looked settled reopens when the panel turns out other than it
seemed, and nothing is final until no open claim has a family left worth asking. The last
estimate decides every claim.

A claim left between the bounds when no family is worth asking, or at its vote cap, is
undecided; one the budget stopped is left unjudged (`outcome` None) with the note that
stopped it. A failed call uses its family's turn and counts for neither side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from consensus.decide.ask_again import ask_again
from consensus.decide.evidence import (
    Bounds,
    belief,
    bounds,
    counted,
    decide_weighed,
    in_words,
    judge_of,
    observed,
)
from consensus.decide.judgement import Judgement
from consensus.decide.panel_rates import Estimate, Known, Observed, estimate, probability
from consensus.decide.panel_report import panel_estimate
from consensus.model.base import Status
from consensus.model.panel import PanelEstimate
from consensus.review.judge_calls import Asker, Case
from consensus.review.judges import Judges
from consensus.review.tally import EXTRA_CALLS_PER_FINDING, Tally, judgement_of
from consensus.settings.config import ProviderSettings

FIRST_ROUND = 3


@dataclass
class Open:
    """One claim being judged: its case, its judges in the order they are asked, the
    families it reviewed, its votes so far."""

    case: Case
    judges: Sequence[ProviderSettings]
    reviewers: frozenset[str]
    cap: int
    consensus: bool = False  # it reached consensus: posted unless the judges reject it
    tally: Tally = field(init=False)
    asked: int = 0

    def __post_init__(self) -> None:
        self.tally = Tally([], calls_left=self.cap + EXTRA_CALLS_PER_FINDING)

    def observed(self) -> Observed:
        return observed(self.case.claim, self.tally.votes, self.reviewers)

    def next_judges(self) -> list[tuple[ProviderSettings, str]]:
        """The next judges and their roles (the first is the inspector): FIRST_ROUND at
        first, then one, never more than the cap or the judges left allow."""
        width = FIRST_ROUND if self.asked == 0 else 1
        room = min(width, self.cap - len(self.tally.votes), len(self.judges) - self.asked)
        chosen = self.judges[self.asked : self.asked + max(room, 0)]
        roles = ["inspector" if self.asked == 0 and n == 0 else "voter" for n in range(room)]
        self.asked += len(chosen)
        return list(zip(chosen, roles, strict=True))

    def again(self, panel: Estimate, target: float) -> list[tuple[ProviderSettings, str]]:
        """The family to ask again (decide/ask_again.py), once every family has judged the
        claim: the one whose next answer is likeliest to decide it, if any is likely
        enough, within the cap."""
        if self.asked < len(self.judges) or len(self.tally.votes) >= self.cap:
            return []
        providers = {p.voting_family: p for p in self.judges}
        judged = [
            (v.family, v.verdict, panel.family(judge_of(v)))
            for v in counted(self.tally.votes)
            if v.verdict is not None and not v.self_vote and v.family in providers
        ]
        level, limits = _limits(panel, self, target)
        family = ask_again(judged, level, limits, self.consensus)
        return [] if family is None else [(providers[family], "voter")]


@dataclass(frozen=True)
class Weighed:
    """Every judged claim's judgement, and the panel as the last estimate shows it."""

    judgements: list[Judgement]
    panel: PanelEstimate


def _limits(panel: Estimate, claim: Open, target: float) -> tuple[float, Bounds]:
    level = belief(panel, claim.observed(), claim.tally.votes)
    return level, bounds(panel.start(claim.observed()), target)


def _outcome(panel: Estimate, claim: Open, target: float) -> Status | None:
    level, limits = _limits(panel, claim, target)
    return decide_weighed(level, limits, claim.tally.votes)


async def judge_in_rounds(
    claims: Sequence[Open],
    others: Sequence[Observed],
    asker: Asker,
    known: Known,
    target: float,
) -> Weighed:
    """Every claim of `claims` judged by the rule in the module docstring; `others`: the
    run's claims no judge is asked about, which the estimate reads for who reports what."""
    while True:
        panel = estimate([*(c.observed() for c in claims), *others], known)
        asks = []
        for claim in claims:
            if claim.tally.note or _outcome(panel, claim, target) is not None:
                continue
            chosen = claim.next_judges() or claim.again(panel, target)
            if chosen:
                asks.append(asker.ask(claim.case, chosen, claim.tally))
        if not asks:
            break
        await asyncio.gather(*asks)
    judgements = [_judgement(panel, claim, target) for claim in claims]
    judged = [(c.tally.votes, j.outcome) for c, j in zip(claims, judgements, strict=True)]
    return Weighed(judgements, panel_estimate(panel, judged, len(claims) + len(others)))


def _judgement(panel: Estimate, claim: Open, target: float) -> Judgement:
    level, limits = _limits(panel, claim, target)
    outcome = decide_weighed(level, limits, claim.tally.votes)
    tally = claim.tally
    words, bad = in_words(claim.case.claim, tally.votes, level), tally.malformed()
    if outcome is None and tally.note:
        reason = f"{tally.note} ({words})"
    elif outcome is None:
        outcome = Status.UNDECIDED
        why = "the vote cap" if len(tally.votes) >= claim.cap else "no family left to ask"
        reason = f"undecided: {why}; {words}{bad}"
    else:
        reason = f"{outcome.value}: {words}"
    return judgement_of(outcome, tally, 0, probability(level), reason)


def first_per_family(judges: Judges) -> list[ProviderSettings]:
    """One provider per family, the inspector's first, then the voters' in their order."""
    seen: set[str] = set()
    out = []
    for provider in (judges.inspector, *judges.voters):
        if provider.voting_family not in seen:
            seen.add(provider.voting_family)
            out.append(provider)
    return out
