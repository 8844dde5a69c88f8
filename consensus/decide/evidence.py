"""Votes weighed by what they are worth: the rule that decides a verification.

A claim starts from what its reports say (`Estimate.start`: the share of a run's claims
that are real, and each reviewing family's report or silence, weighed by that family's
estimated recall and rate of invention). Each judge family's verdict then moves its
log-odds of being real by the likelihood ratio of that family's estimated rates
(decide/panel_rates.py):

    confirmed   log(TPR / (1 - TNR))     little from a judge that confirms everything
    refuted     log(P(refuted | real) / P(refuted | false))     a lot from the same judge
    uncertain   as that family's `uncertain` shows itself: doubt from a judge that says it
                mostly of inventions, nothing from one that says it of anything

One family, one judge: a family asked again about a claim (or two providers of one
family) mostly repeats itself, so its first counted verdict weighs as a judge's, and each
later answer only as far as the family's estimated repeat rate leaves it news
(decide/panel_repeats.py): an answer that flips weighs in full, one that agrees little,
nothing at all from a family that always repeats itself. A reporter asked about its own
claim (only when no other family answered) confirms it for nothing: its confirmation
weighs 0, its refutation or doubt counts in full. A failed call counts for nothing.
Every claim is checked the same way, from its own start, whether it reached consensus or
not: there is no veto.

The claim is verified when its log-odds reach logit(target precision) (default 0.9) with
at least one verdict counted from a family that did not report it, and left undecided
when no family is left to ask. It is rejected when they fall that far below its start or,
for a claim whose reports make it more likely real than not (every consensus claim, in
practice), as soon as the votes make it more likely invented than real. A consensus claim
is posted unless it is rejected (decide/judgement.settled): a 3-of-4 claim the fourth
family confirms is posted whatever that confirmation is worth, and a refutation takes it
down only if the refuting family's rates make it worth that much (docs/judges.md says
why this bound and not the symmetric one). This is Wald's sequential probability ratio
test; first-to-ahead-by-k is its symmetric case (judges whose TPR = TNR = p make every
verdict weigh ±log(p / (1 - p)); tests hold the two alike on tables of vote sequences).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from consensus.decide.panel_rates import Estimate, Observed, logit, probability
from consensus.model.base import Status, VerdictKind
from consensus.model.claim import Claim
from consensus.model.findings import Vote
from consensus.model.history import grounded_key

__all__ = ["logit", "probability"]

WEIGHED_CAP = 12  # votes on one claim when `max_votes` is not set
EPSILON = 1e-6  # a sum of weights within this of a bound has reached it (rates are estimated)


@dataclass(frozen=True)
class Bounds:
    """Verified at or above `verify`, rejected at or below `reject` (log-odds)."""

    verify: float
    reject: float


def bounds(start: float, target_precision: float) -> Bounds:
    """logit(target) to verify. To reject: a claim its reports make more likely real than
    not (every consensus claim, in practice) once the votes make it more likely invented
    than real; any other as far below its start as the verification bound is above 0.5."""
    need = logit(target_precision)
    return Bounds(verify=need, reject=0.0 if start > 0 else start - need)


def against(vote: Vote) -> bool:
    return vote.verdict in (VerdictKind.REFUTED, VerdictKind.UNCERTAIN)


def counted(votes: Iterable[Vote]) -> list[Vote]:
    """The votes that weigh: each family's first counted verdict (one family, one judge)."""
    seen: set[str] = set()
    out = []
    for vote in votes:
        if vote.verdict is not None and vote.family not in seen:
            seen.add(vote.family)
            out.append(vote)
    return out


def repeated(votes: Iterable[Vote]) -> list[tuple[str, VerdictKind, VerdictKind]]:
    """Each later answer of a family asked again, with its first: (family, first, this)."""
    first: dict[str, VerdictKind] = {}
    out = []
    for vote in votes:
        if vote.verdict is None or vote.self_vote:
            continue
        if vote.family in first:
            out.append((vote.family, first[vote.family], vote.verdict))
        else:
            first[vote.family] = vote.verdict
    return out


def judge_of(vote: Vote) -> str:
    """Whose rates weigh the vote, and whose counts it adds to: its family's grounded ones
    when it cited lines that held (model/history.GROUNDED), else its family's blind ones.
    One family is still one judge: which of its votes counts is `counted`'s choice."""
    return grounded_key(vote.family) if vote.grounded else vote.family


def observed(claim: Claim, votes: Sequence[Vote], reviewers: frozenset[str]) -> Observed:
    """The claim as the estimate reads it: reports, silences, the independent families'
    first verdicts (under `judge_of`'s key) and their later answers (a reporter's verdict
    on its own claim is not evidence of its rates)."""
    verdicts = tuple(
        (judge_of(v), v.verdict)
        for v in counted(votes)
        if v.verdict is not None and not v.self_vote
    )
    return Observed(
        reporters=claim.families,
        reviewers=reviewers | claim.families,
        verdicts=verdicts,
        repeats=tuple(repeated(votes)),
    )


def belief(estimate: Estimate, claim: Observed, votes: Sequence[Vote]) -> float:
    """The claim's log-odds after its votes: its start, each independent family's first
    verdict and later answers, and a reporter's own doubt (its own confirmation weighs
    nothing)."""
    level = estimate.belief(claim)
    for vote in counted(votes):
        if vote.self_vote and vote.verdict is not None and against(vote):
            level += estimate.weight(judge_of(vote), vote.verdict)
    return level


def decide_weighed(level: float, limits: Bounds, votes: Sequence[Vote]) -> Status | None:
    """VERIFIED or REJECTED once a bound is crossed (verified only on a verdict counted
    from a family that did not report it); None while the claim is open."""
    if level >= limits.verify - EPSILON and any(not v.self_vote for v in counted(votes)):
        return Status.VERIFIED
    if level <= limits.reject + EPSILON:
        return Status.REJECTED
    return None


def in_words(claim: Claim, votes: Sequence[Vote], level: float | None) -> str:
    """The evidence as a reviewer reads it: "reported by 1 of 4 families · confirmed by
    anthropic and google, refuted by qwen · 0.93"."""
    chance = None if level is None else probability(level)
    return evidence_words(f"reported by {claim.reported_by}", votes, chance)


class Said(Protocol):
    """A judge's answer as a vote or its record in the summary's state carries it."""

    @property
    def model(self) -> str: ...

    @property
    def family(self) -> str: ...

    @property
    def verdict(self) -> VerdictKind | None: ...

    @property
    def self_vote(self) -> bool: ...


def judged_by(votes: Sequence[Said]) -> str:
    """Who said what, by family: "confirmed by openai and google, refuted by anthropic";
    a family that answered more than once is named with how often ("anthropic (2 of 3)"),
    a reporter judging its own claim is marked ("qwen (its reporter)")."""
    sides: dict[str, dict[str, list[Said]]] = {"confirmed": {}, "refuted": {}, "uncertain": {}}
    for vote in votes:
        if vote.verdict is not None:
            sides[vote.verdict.value].setdefault(vote.family or vote.model, []).append(vote)
    per_family: dict[str, int] = {}
    for side in sides.values():
        for family, cast in side.items():
            per_family[family] = per_family.get(family, 0) + len(cast)
    parts = []
    for verdict, side in sides.items():
        if side:
            names = [_family(f, cast, per_family[f]) for f, cast in side.items()]
            parts.append(f"{verdict} by {_and(names)}")
    return ", ".join(parts)


def _family(family: str, cast: Sequence[Said], answers: int) -> str:
    notes = ["its reporter"] if cast[0].self_vote else []
    if answers > 1:
        notes.append(f"{len(cast)} of {answers}")
    return f"{family} ({', '.join(notes)})" if notes else family


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def evidence_words(reported: str, votes: Sequence[Said], chance: float | None) -> str:
    """`reported`, then who judged it and how, and the probability that the claim is real."""
    text = reported
    said = judged_by(votes)
    if said:
        text += f" · {said}"
    if chance is not None:  # cut, not rounded: 0.897 is not shown as the 0.90 it missed
        text += f" · {math.floor(chance * 100) / 100:.2f}"
    return text
