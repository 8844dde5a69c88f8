"""Votes weighed by their judges' rates (decide/evidence.py), and the calibration they
come from (model/calibration.py)."""

from __future__ import annotations

import math
from itertools import product

import pytest

from consensus.decide.ahead_by import Lead, decide
from consensus.decide.evidence import (
    Bounds,
    belief,
    bounds,
    decide_weighed,
    in_words,
    logit,
    prior,
    votes_that_cannot_decide,
    weight,
)
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.calibration import (
    Calibration,
    FamilyCalibration,
    JudgeCounts,
    JudgeRates,
    ReporterCounts,
    wilson,
)
from consensus.model.claim import Check, Claim
from consensus.model.findings import Vote

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN
NO_CALIBRATION = Calibration()


def impartial(p: float, *families: str) -> Calibration:
    """Judges right with probability p either way, measured on 1,000 claims each side."""
    right, wrong = round(1000 * p), 1000 - round(1000 * p)
    counts = JudgeCounts(
        confirmed_real=right, missed_real=wrong, refuted_false=right, confirmed_false=wrong
    )
    return Calibration(families={f: FamilyCalibration(judge=counts) for f in families})


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


# Every sequence of up to five verdicts (a failed call included), and a few longer ones.
SEQUENCES = [list(s) for n in range(6) for s in product((C, R, U, None), repeat=n)] + [
    [C, R] * 4,
    [C, C, R, C, R, R, R],
    [U, C, C, C, C, R, C],
]


@pytest.mark.parametrize("p", [0.6, 0.7, 0.85, 0.95])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_impartial_judges_decide_exactly_like_first_to_ahead_by_k(p: float, k: int) -> None:
    # TPR = TNR = p, even prior, target precision p^k / (p^k + (1-p)^k): the bound is k
    # verdicts' worth either way, which is first-to-ahead-by-k.
    calibration = impartial(p, "anthropic")
    target = p**k / (p**k + (1 - p) ** k)
    limits = bounds(0.0, target)
    cap = 2 * k + 3
    for sequence in SEQUENCES:
        votes = [vote(v) for v in sequence]
        expected = decide(votes, Lead(k, k), cap)
        assert decide_weighed(0.0, votes, limits, cap, calibration) is expected, sequence


@pytest.mark.parametrize(
    ("families", "lead"),
    [
        pytest.param(("openai",), Lead(verify=3, reject=2), id="one-family: k+1 to verify"),
        pytest.param(("openai", "google"), Lead(verify=2, reject=2), id="two-families: k"),
    ],
)
def test_the_default_prior_and_bounds_with_impartial_judges_are_ahead_by_two(
    families: tuple[str, ...], lead: Lead
) -> None:
    # The product's defaults (target 0.9, AGREEMENT_PRIOR) with 0.85/0.85 judges decide a
    # disputed finding as `ahead_by: 2` with `single_family_extra_lead: 1` does.
    calibration = impartial(0.85, "anthropic")
    start = prior(claim(*families), calibration)
    limits = bounds(start, 0.9)
    for sequence in SEQUENCES:
        votes = [vote(v) for v in sequence]
        expected = decide(votes, lead, 9)
        assert decide_weighed(start, votes, limits, 9, calibration) is expected, sequence


def test_an_agreeable_judges_confirmation_is_worth_little_and_its_refutation_a_lot() -> None:
    rates = NO_CALIBRATION.judge("qwen")  # TPR 0.96, TNR 0.20
    assert rates.source == "default"
    assert weight(C, rates) == pytest.approx(math.log(0.96 / 0.80))  # about +0.18
    assert weight(R, rates) == pytest.approx(math.log(0.04 / 0.20))  # about -1.61
    assert weight(U, rates) == weight(R, rates)  # uncertain counts against
    # One refutation outweighs eight confirmations.
    votes = [vote(C, "qwen")] * 8 + [vote(R, "qwen")]
    assert belief(0.0, votes, NO_CALIBRATION) < 0


def test_a_family_without_counts_is_judged_agreeable_never_optimistic() -> None:
    calibration = impartial(0.85, "openai")
    assert calibration.judge("openai").source == "calibrated"
    for family, tnr in [("anthropic", 0.35), ("google", 0.25), ("llama", 0.20)]:
        rates = calibration.judge(family)
        assert (rates.tpr, rates.tnr, rates.source) == (0.96, tnr, "default")
    # Counts on real claims only say nothing of the judge's TNR: the defaults stay.
    half = Calibration(families={"openai": FamilyCalibration(judge=JudgeCounts(confirmed_real=9))})
    assert half.judge("openai").source == "default"


def test_a_claim_one_agreeable_family_refutes_is_rejected_however_it_started() -> None:
    start = prior(claim("openai"), NO_CALIBRATION)
    limits = bounds(start, 0.9)
    assert decide_weighed(start, [vote(R, "anthropic")], limits, 12, NO_CALIBRATION) is None
    votes = [vote(R, "anthropic"), vote(U, "google")]
    assert decide_weighed(start, votes, limits, 12, NO_CALIBRATION) is Status.REJECTED
    # … while confirmations from agreeable judges take many votes to verify it.
    confirmations = [vote(C, f) for f in ("anthropic", "google", "qwen")] * 3
    assert decide_weighed(start, confirmations, limits, 12, NO_CALIBRATION) is None


def test_the_cap_leaves_a_claim_undecided() -> None:
    start = prior(claim("openai"), NO_CALIBRATION)
    votes = [vote(C, "qwen")] * 12
    assert decide_weighed(start, votes, bounds(start, 0.9), 12, NO_CALIBRATION) is Status.UNDECIDED


def test_a_consensus_claim_is_stopped_by_one_independent_refutation() -> None:
    start = prior(claim("openai", "anthropic", "google"), NO_CALIBRATION)
    limits = bounds(start, 0.9)
    refuted = [vote(C, "qwen"), vote(R, "qwen")]
    assert decide_weighed(start, refuted, limits, 12, NO_CALIBRATION, Check.VETO) is Status.REJECTED
    # A reporter's own refutation (no other family answered) weighs, but is no veto.
    own = [vote(R, "google", own=True)]  # weighs -1.8: not below the prior's bound
    assert decide_weighed(start, own, limits, 12, NO_CALIBRATION, Check.VETO) is None
    # A unanimous claim whose prior is above the bound still needs one vote cast.
    unanimous = prior(claim("openai", "anthropic", "google", "qwen"), NO_CALIBRATION)
    assert unanimous >= logit(0.9) - 1e-9
    high = bounds(unanimous, 0.9)
    assert decide_weighed(unanimous, [], high, 12, NO_CALIBRATION, Check.VETO) is None
    mine = [vote(C, "qwen", own=True)]
    assert decide_weighed(unanimous, mine, high, 12, NO_CALIBRATION, Check.VETO) is Status.VERIFIED


def test_a_reporters_confirmation_of_its_own_claim_weighs_nothing() -> None:
    rates = NO_CALIBRATION.judge("openai")
    assert weight(C, rates, own_claim=True) == 0.0
    assert weight(R, rates, own_claim=True) == weight(R, rates)


def test_the_prior_grows_with_the_families_that_reported_it_and_their_precision() -> None:
    priors = [prior(claim(*f), NO_CALIBRATION) for f in
              [("openai",), ("openai", "google"), ("openai", "google", "qwen"),
               ("openai", "google", "qwen", "anthropic")]]  # fmt: skip
    assert priors == sorted(priors) and len(set(priors)) == 4
    precise = Calibration(
        families={"openai": FamilyCalibration(reporter=ReporterCounts(right=40, wrong=10))}
    )
    sloppy = Calibration(
        families={"openai": FamilyCalibration(reporter=ReporterCounts(right=10, wrong=40))}
    )
    alone = prior(claim("openai"), NO_CALIBRATION)
    assert prior(claim("openai"), sloppy) < alone < prior(claim("openai"), precise)


@pytest.mark.parametrize(
    ("level", "judges", "check", "width"),
    [
        pytest.param(0.0, [JudgeRates(tpr=0.85, tnr=0.85, source="calibrated")], Check.DISPUTED,
                     2, id="impartial, even odds: the k it takes either way"),
        pytest.param(logit(0.1), [JudgeRates(tpr=0.96, tnr=0.45, source="default")],
                     Check.DISPUTED, 1, id="agreeable: one refutation could decide"),
        pytest.param(0.0, [JudgeRates(tpr=0.85, tnr=0.85, source="calibrated")], Check.VETO,
                     1, id="a veto: one at a time"),
    ],
)  # fmt: skip
def test_judges_are_asked_in_parallel_only_as_far_as_none_is_wasted(
    level: float, judges: list[JudgeRates], check: Check, width: int
) -> None:
    limits = Bounds(verify=logit(0.9), reject=level - logit(0.9))
    assert votes_that_cannot_decide(level, limits, judges, check) == width


def test_the_evidence_in_words() -> None:
    votes = [vote(C, f) for f in ("anthropic", "google", "qwen")] * 2
    words = in_words(claim("openai"), votes, logit(0.93))
    assert words == "reported by 1 of 4 families · 6 independent judges confirmed, 0 refuted · 0.93"
    mixed = [vote(C, "qwen"), vote(R, "qwen", own=True)]
    assert in_words(claim("qwen", reviewing=1), mixed, None) == (
        "reported by 1 of 1 families · 1 of 2 judges (1 of them its reporters) confirmed, 1 refuted"
    )


def test_rates_carry_their_95_percent_wilson_interval() -> None:
    rate = wilson(48, 50)
    assert (rate.value, rate.n) == (0.96, 50)
    assert rate.low == pytest.approx(0.8654, abs=1e-4)
    assert rate.high == pytest.approx(0.9890, abs=1e-4)
    assert str(rate) == "0.96 [0.87, 0.99] (n=50)"
    assert wilson(0, 0).n == 0 and (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)
