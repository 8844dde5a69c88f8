"""Votes weighed by their families' estimated rates (decide/evidence.py): the rule that
decides a verification, and the evidence in words."""

from __future__ import annotations

import math
from itertools import permutations, product

import pytest

from consensus.decide.ahead_by import Lead, decide
from consensus.decide.evidence import (
    Bounds,
    belief,
    bounds,
    decide_weighed,
    evidence_words,
    in_words,
    judged_by,
    logit,
    observed,
)
from consensus.decide.panel_rates import Estimate, estimate, known_counts
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts, wilson
from consensus.model.claim import Claim
from consensus.model.findings import Vote
from consensus.model.history import agreement

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN
PANEL = ("openai", "anthropic", "google", "qwen", "mistral")


def labelled(tpr: float, tnr: float, *families: str, n: int = 10**9) -> Estimate:
    """A panel whose judges were measured on `n` labelled claims of each kind: their
    rates are the labels' (the run adds nothing to speak of)."""
    counts = JudgeCounts(
        confirmed_real=round(n * tpr),
        missed_real=n - round(n * tpr),
        refuted_false=round(n * tnr),
        confirmed_false=n - round(n * tnr),
    )
    calibration = Calibration(families={f: FamilyCalibration(judge=counts) for f in families})
    return estimate([], known_counts(calibration))


def vote(kind: VerdictKind | None, family: str = "anthropic", own: bool = False) -> Vote:
    return Vote(model=f"{family}/m", family=family, role="voter", verdict=kind, reason="",
                self_vote=own)  # fmt: skip


def claim(*families: str, reviewing: int = 4) -> Claim:
    return Claim(
        fingerprint="0123456789abcdef",
        path="src/app/db.py",
        line=16,
        end_line=16,
        title="Off-by-one: loop reads past the end of ids",
        body="`range(len(ids) + 1)` makes `ids[i]` raise IndexError.",
        category=Category.BUG,
        severity=Severity.HIGH,
        families=frozenset(families),
        providers=tuple(f"{f}/model" for f in families),
        reviewing=reviewing,
    )


def level_of(panel: Estimate, votes: list[Vote], start: float = 0.0) -> float:
    """The log-odds after `votes` from `start` (the claim's reports set aside)."""
    seen = observed(claim("meta"), votes, frozenset())
    return start + belief(panel, seen, votes) - panel.start(seen)


# Every sequence of up to four verdicts of distinct families.
SEQUENCES = [
    [vote(v, f) for v, f in zip(verdicts, families, strict=False)]
    for n in range(5)
    for verdicts in product((C, R, U), repeat=n)
    for families in [PANEL[:n]]
]


@pytest.mark.parametrize("p", [0.7, 0.85, 0.95])
@pytest.mark.parametrize("k", [1, 2])
def test_impartial_judges_decide_exactly_like_first_to_ahead_by_k(p: float, k: int) -> None:
    # TPR = TNR = p on labels, even start, target precision p^k / (p^k + (1-p)^k): every
    # verdict weighs ±log(p / (1-p)), the bound is k verdicts' worth either way, which is
    # first-to-ahead-by-k (`uncertain` counts against in both).
    panel = labelled(p, p, *PANEL)
    target = p**k / (p**k + (1 - p) ** k)
    limits = bounds(0.0, target)
    for votes in SEQUENCES:
        expected = decide(votes, Lead(k, k), cap=99)
        assert decide_weighed(level_of(panel, votes), limits, votes) is expected, votes


def test_an_agreeable_judges_confirmation_is_worth_little_and_its_refutation_a_lot() -> None:
    panel = labelled(0.96, 0.20, "qwen")
    assert panel.weight("qwen", C) == pytest.approx(math.log(0.96 / 0.8), abs=0.01)
    assert panel.weight("qwen", R) == pytest.approx(math.log(0.04 / 0.2), abs=0.01)
    assert panel.weight("qwen", U) == pytest.approx(panel.weight("qwen", R), abs=0.01)
    # One refutation outweighs eight confirmations.
    votes = [vote(C, "qwen")] * 8 + [vote(R, "qwen")]
    assert sum(panel.weight("qwen", v.verdict) for v in votes if v.verdict) < 0


def test_a_consensus_claim_is_checked_from_its_start_like_any_other() -> None:
    # No veto: what one verdict does to a claim three families made depends on the
    # family that cast it. A discerning judge's refutation rejects it, its confirmation
    # verifies it; an agreeable judge's leave it open either way.
    start = logit(0.85)
    limits = bounds(start, 0.9)
    agreeable, discerning = labelled(0.96, 0.2, "qwen"), labelled(0.95, 0.8, "qwen")
    for verdict, outcome in ((R, Status.REJECTED), (C, Status.VERIFIED)):
        votes = [vote(verdict, "qwen")]
        assert decide_weighed(level_of(agreeable, votes, start), limits, votes) is None
        assert decide_weighed(level_of(discerning, votes, start), limits, votes) is outcome
    # A start above the bound still needs one verdict counted.
    high = logit(0.95)
    assert decide_weighed(high, bounds(high, 0.9), []) is None
    assert decide_weighed(high, bounds(high, 0.9), [vote(None, "qwen")]) is None


def test_a_claim_its_reports_make_likely_real_is_rejected_once_more_likely_invented() -> None:
    # A consensus claim starts high: an undecided check leaves it posted, and the votes
    # reject it once they make it more likely invented than real, not only once they take
    # it as far below its start as the verification bound is above one half.
    assert bounds(logit(0.8), 0.9) == Bounds(verify=logit(0.9), reject=0.0)
    assert decide_weighed(0.01, bounds(logit(0.8), 0.9), [vote(R, "qwen")]) is None
    assert decide_weighed(-0.01, bounds(logit(0.8), 0.9), [vote(R, "qwen")]) is Status.REJECTED
    # A claim that starts unlikely is rejected symmetrically, far below its start.
    low = bounds(logit(0.1), 0.9)
    assert low.reject == pytest.approx(logit(0.1) - logit(0.9))


def test_a_reporters_confirmation_of_its_own_claim_weighs_nothing() -> None:
    panel = labelled(0.85, 0.85, "openai")
    mine = claim("openai")
    seen = observed(mine, [vote(C, "openai", own=True)], frozenset(PANEL))
    assert seen.verdicts == ()  # not evidence of its rates either
    assert belief(panel, seen, [vote(C, "openai", own=True)]) == panel.start(seen)
    doubted = [vote(R, "openai", own=True)]
    assert belief(panel, seen, doubted) == pytest.approx(
        panel.start(seen) + panel.weight("openai", R)
    )


def test_a_failed_call_counts_for_nothing() -> None:
    panel = labelled(0.85, 0.85, "anthropic")
    assert level_of(panel, [vote(None)]) == 0.0
    limits = Bounds(verify=logit(0.9), reject=-logit(0.9))
    assert decide_weighed(0.0, limits, [vote(None)]) is None


def test_the_evidence_in_words_counts_families() -> None:
    votes = [vote(C, "anthropic"), vote(C, "google"), vote(R, "qwen")]
    assert in_words(claim("openai"), votes, logit(0.93)) == (
        "reported by 1 of 4 families · confirmed by anthropic and google, refuted by qwen · 0.93"
    )
    repeated = [vote(C, "qwen"), vote(R, "qwen", own=True), vote(C, "qwen")]
    assert judged_by(repeated) == (
        "confirmed by qwen (2 of 3), refuted by qwen (its reporter, 1 of 3)"
    )
    assert evidence_words("reported by 2 families", [vote(U, "google")], 0.8999) == (
        "reported by 2 families · uncertain by google · 0.89"  # cut, not rounded
    )


def test_a_family_asked_about_every_order_weighs_the_same() -> None:
    # Deterministic and order-free: the same verdicts in any order give the same level.
    panel = labelled(0.9, 0.7, *PANEL)
    verdicts = [vote(C, "openai"), vote(R, "anthropic"), vote(U, "google")]
    levels = {round(level_of(panel, list(order)), 12) for order in permutations(verdicts)}
    assert len(levels) == 1


def test_rates_carry_their_95_percent_wilson_interval() -> None:
    rate = wilson(48, 50)
    assert (rate.value, rate.n) == (0.96, 50)
    assert rate.low == pytest.approx(0.8654, abs=1e-4)
    assert rate.high == pytest.approx(0.9890, abs=1e-4)
    assert str(rate) == "0.96 [0.87, 0.99] (n=50)"
    assert wilson(0, 0).n == 0 and (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)


def test_a_reporters_own_confirmations_never_verify_its_claim() -> None:
    # Every family that answered reported it: reporters judge, and however sure the start,
    # only a verdict of a family that did not report it can verify.
    high = logit(0.95)
    own = [vote(C, "openai", own=True), vote(C, "google", own=True)]
    assert decide_weighed(high, bounds(high, 0.9), own) is None
    assert decide_weighed(high, bounds(high, 0.9), [*own, vote(C, "qwen")]) is Status.VERIFIED


@pytest.mark.parametrize(
    ("reporters", "reviewers", "bucket"),
    [(1, 4, 0), (2, 4, 1), (3, 4, 2), (4, 4, 3), (1, 2, 1), (2, 2, 3), (2, 3, 2), (1, 5, 0),
     (4, 5, 3), (3, 5, 2), (1, 1, 3), (2, 0, 3)],
)  # fmt: skip
def test_agreement_is_the_share_of_the_files_reviewers_that_reported_it(
    reporters: int, reviewers: int, bucket: int
) -> None:
    assert agreement(reporters, reviewers) == bucket
