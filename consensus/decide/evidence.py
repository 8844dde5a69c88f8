"""Votes weighed by what they are worth: the rule that decides a verification.

A judge is described by its true-positive rate (TPR: it confirms a real claim) and its
true-negative rate (TNR: it refutes a false one), per provider family, from a calibration
or from the agreeable defaults (model/calibration.py). Each verdict moves the claim's
log-odds of being real by its likelihood ratio:

    confirmed   log(TPR / (1 - TNR))     little from a judge that confirms everything
    refuted     log((1 - TPR) / TNR)     a lot from the same judge
    uncertain   as refuted (verification fails closed)

starting from a prior set by who reported the claim (`prior`). The claim is verified when
its log-odds reach logit(target precision) (default 0.9), rejected when they fall that far
below the prior, undecided when the cap on votes is reached first. This is Wald's
sequential probability ratio test; first-to-ahead-by-k is its symmetric case: with judges
whose TPR = TNR = p every verdict weighs ±log(p / (1 - p)), so the rule verifies when
confirmations lead by ceil((bound - prior) / log(p / (1 - p))) and rejects when they trail
by ceil(logit(target) / log(p / (1 - p))); at an even prior with logit(target) = k ·
log(p / (1 - p)) that is exactly first-to-ahead-by-k (tests hold it on a table of vote
sequences).

A claim that reached consensus is checked with a veto: one vote against it by a family
that did not report it rejects it, and it is kept once its log-odds reach the bound with
at least one independent vote cast. A reporter asked about its own claim (only when no
other family answered) confirms it for nothing: its confirmation weighs 0, its refutation
counts in full.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.model.base import Status, VerdictKind
from consensus.model.calibration import Calibration, JudgeRates
from consensus.model.claim import Check, Claim
from consensus.model.findings import Vote

# What a claim is worth before any judge looks at it, by how many provider families
# reported it independently: a claim one model made alone is usually its invention; two
# families rarely invent the same problem at the same place. Honest defaults, not
# measurements; a calibrated reporter precision moves them (see `prior`).
AGREEMENT_PRIOR = {1: 0.10, 2: 0.50, 3: 0.75}
AGREEMENT_PRIOR_MORE = 0.90  # four families or more
DEFAULT_REPORTER_PRECISION = 0.5  # what AGREEMENT_PRIOR assumes of each reporter
WEIGHED_CAP = 12  # votes on one claim when `max_votes` is not set


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def probability(log_odds: float) -> float:
    return 1 / (1 + math.exp(-log_odds))


def prior(claim: Claim, calibration: Calibration) -> float:
    """The claim's log-odds of being real before judging: AGREEMENT_PRIOR by the number of
    families that reported it, each calibrated reporter moving it by how much more (or
    less) precise its reports have been than DEFAULT_REPORTER_PRECISION. A claim the scan
    alone made is not judged (the diff proves it), so it has no reporter here."""
    n = len(claim.families)
    base = AGREEMENT_PRIOR.get(n, AGREEMENT_PRIOR_MORE) if n else AGREEMENT_PRIOR[1]
    shift = 0.0
    for family in claim.families:
        precision = calibration.reporter(family)
        if precision is not None:
            shift += logit(precision) - logit(DEFAULT_REPORTER_PRECISION)
    return logit(base) + shift


def weight(verdict: VerdictKind, rates: JudgeRates, *, own_claim: bool = False) -> float:
    """How far one verdict moves the log-odds."""
    if verdict is VerdictKind.CONFIRMED:
        return 0.0 if own_claim else math.log(rates.tpr / (1 - rates.tnr))
    return math.log((1 - rates.tpr) / rates.tnr)


@dataclass(frozen=True)
class Bounds:
    """Verified at or above `verify`, rejected at or below `reject` (log-odds)."""

    verify: float
    reject: float


def bounds(start: float, target_precision: float) -> Bounds:
    """logit(target) to verify; as far below the prior to reject."""
    need = logit(target_precision)
    return Bounds(verify=need, reject=start - need)


EPSILON = 1e-9  # a sum of weights that lands on a bound has reached it


def belief(start: float, votes: Sequence[Vote], calibration: Calibration) -> float:
    """The log-odds after the votes that were counted (a failed call counts for nothing)."""
    total = start
    for vote in votes:
        if vote.verdict is not None:
            rates = calibration.judge(vote.family)
            total += weight(vote.verdict, rates, own_claim=vote.self_vote)
    return total


def against(vote: Vote) -> bool:
    return vote.verdict in (VerdictKind.REFUTED, VerdictKind.UNCERTAIN)


def decide_weighed(
    start: float,
    votes: Sequence[Vote],
    limits: Bounds,
    cap: int,
    calibration: Calibration,
    check: Check = Check.DISPUTED,
) -> Status | None:
    """VERIFIED, REJECTED or UNDECIDED once the rule says so; None while voting goes on."""
    counted = [v for v in votes if v.verdict is not None]
    if check is Check.VETO and any(against(v) and not v.self_vote for v in counted):
        return Status.REJECTED
    level = belief(start, votes, calibration)
    if level >= limits.verify - EPSILON and (check is Check.DISPUTED or counted):
        return Status.VERIFIED
    if level <= limits.reject + EPSILON:
        return Status.REJECTED
    if len(votes) >= cap:
        return Status.UNDECIDED
    return None


def votes_that_cannot_decide(
    level: float, limits: Bounds, judges: Sequence[JudgeRates], check: Check
) -> int:
    """How many further votes can be asked at once with none of them wasted: fewer than
    the fewest that could cross either bound, however they answer (at least one)."""
    if check is Check.VETO:
        return 1
    up = max(weight(VerdictKind.CONFIRMED, r) for r in judges)
    down = min(weight(VerdictKind.REFUTED, r) for r in judges)
    to_verify = math.ceil((limits.verify - level - EPSILON) / up) if up > 0 else 10**6
    to_reject = math.ceil((level - limits.reject - EPSILON) / -down) if down < 0 else 10**6
    return max(1, min(to_verify, to_reject))


def in_words(claim: Claim, votes: Sequence[Vote], level: float | None) -> str:
    """The evidence as a reviewer reads it: "reported by 1 of 4 families · 6 independent
    judges confirmed, 0 refuted · 0.93"."""
    chance = None if level is None else probability(level)
    return evidence_words(f"reported by {claim.reported_by}", votes, chance)


def evidence_words(reported: str, votes: Sequence[Vote], chance: float | None) -> str:
    """`reported`, then what the judges said and the probability that the claim is real."""
    text = reported
    counted = [v for v in votes if v.verdict is not None]
    if counted:
        independent = sum(not v.self_vote for v in counted)
        confirmed = sum(v.verdict is VerdictKind.CONFIRMED for v in counted)
        refuted = len(counted) - confirmed
        judges = "judge" if len(counted) == 1 else "judges"
        who = f"{len(counted)} independent {judges}"
        if independent < len(counted):
            who = f"{len(counted)} {judges} ({len(counted) - independent} of them its reporters)"
        said = f"{who} confirmed"
        if confirmed < len(counted):
            said = f"{confirmed} of {who} confirmed"
        text += f" · {said}, {refuted} refuted"
    if chance is not None:  # cut, not rounded: 0.897 is not shown as the 0.90 it missed
        text += f" · {math.floor(chance * 100) / 100:.2f}"
    return text
