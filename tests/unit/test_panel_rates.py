"""Each family's rates estimated from one run's votes (decide/panel_rates.py), held on
tables of vote patterns: what a panel's votes say of it, family by family."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from consensus.decide.evidence import belief, observed
from consensus.decide.panel_rates import (
    Beta,
    Estimate,
    Observed,
    Prior,
    estimate,
    known_counts,
    logit,
    probability,
)
from consensus.model.base import VerdictKind
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts
from consensus.model.findings import Vote
from consensus.model.history import FamilyTally, JudgeTally, PanelTally
from tests.unit.test_evidence import claim as evidence_claim

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN
PANEL = ("openai", "anthropic", "google", "qwen")
EVERYONE = frozenset(PANEL)


def claim(reporters: Sequence[str], **verdicts: VerdictKind) -> Observed:
    """A claim of a file every family reviewed, with one verdict per judge family."""
    return Observed(
        reporters=frozenset(reporters), reviewers=EVERYONE, verdicts=tuple(verdicts.items())
    )


def others(*reporters: str) -> list[str]:
    return [f for f in PANEL if f not in reporters]


def singletons(say: dict[str, VerdictKind]) -> list[Observed]:
    """Six claims one family made at places nothing else points to (each family in turn,
    then two more), each judged by the families in `say` that did not make it."""
    makers = [*PANEL, "openai", "google"]
    return [claim([m], **{f: v for f, v in say.items() if f != m}) for m in makers]


def agreed() -> list[Observed]:
    """What every run has around its disputed claims: two claims two families made, both
    confirmed by the other two, and three that three or four families reported (consensus,
    not judged): they show who reports what."""
    return [
        claim(["openai", "anthropic"], google=C, qwen=C),
        claim(["google", "qwen"], openai=C, anthropic=C),
        claim(["openai", "anthropic", "google"]),
        claim(["openai", "google", "qwen"]),
        claim(list(PANEL)),
    ]


def confirmation(panel: Estimate, family: str) -> float:
    return panel.weight(family, C)


def test_a_panel_that_refutes_decisively_is_read_as_discerning() -> None:
    # Every claim one family made is refuted by the others; the claims two families made are
    # confirmed: these judges tell claims apart.
    panel = estimate([*singletons(dict.fromkeys(PANEL, R)), *agreed()])
    for family in PANEL:
        assert panel.family(family).tnr >= 0.75, family
        assert confirmation(panel, family) >= 1.5, family  # a confirmation is worth a lot
    assert max(panel.posteriors[:6]) < 0.02  # the refuted claims are false
    assert min(panel.posteriors[6:8]) > 0.9  # the confirmed ones real


def test_a_panel_that_confirms_everything_is_read_as_agreeable() -> None:
    # The same claims, every one of them confirmed by every judge, including those one
    # family made at places nothing else points to: these judges rubber-stamp.
    panel = estimate([*singletons(dict.fromkeys(PANEL, C)), *agreed()])
    for family in PANEL:
        assert panel.family(family).tnr <= 0.5, family
        assert confirmation(panel, family) < 0.8, family  # a confirmation is worth little
    # Three confirmations do not make a lone family's claim real.
    assert max(panel.posteriors[:6]) < 0.5


def test_a_mixed_panel_is_told_apart_family_by_family() -> None:
    # Anthropic and Qwen refute the claims one family made; OpenAI and Google confirm them.
    say = {"openai": C, "anthropic": R, "google": C, "qwen": R}
    panel = estimate([*singletons(say), *agreed()])
    discerning = [panel.family(f).tnr for f in ("anthropic", "qwen")]
    agreeable = [panel.family(f).tnr for f in ("openai", "google")]
    assert min(discerning) > max(agreeable) + 0.2
    assert confirmation(panel, "anthropic") > confirmation(panel, "openai") + 1.0
    assert max(panel.posteriors[:6]) < 0.1  # two confirmations of agreeable judges: not enough


A_CLAIM = evidence_claim("openai")  # one family's claim, at a place nothing else points to


def said(family: str, verdict: VerdictKind, model: str = "m") -> Vote:
    return Vote(model=f"{family}/{model}", family=family, role="voter", verdict=verdict,
                reason="")  # fmt: skip


def asked_again(say: dict[str, list[VerdictKind]], makers: Sequence[str]) -> list[Observed]:
    """Claims one family made (each of `makers`), each judged by the other families in
    `say`, every one of them asked as often as its list of answers is long."""
    rows = []
    for maker in makers:
        votes = [said(f, v) for f, answers in say.items() if f != maker for v in answers]
        rows.append(observed(A_CLAIM.model_copy(update={"families": frozenset({maker})}),
                             votes, EVERYONE))  # fmt: skip
    return rows


def test_repeats_add_no_certainty_from_a_family_that_always_repeats_itself() -> None:
    once = [said("anthropic", C)]
    thrice = [said("anthropic", C), said("anthropic", C), said("anthropic", C, "other")]
    seen, alone = observed(A_CLAIM, thrice, EVERYONE), observed(A_CLAIM, once, EVERYONE)
    assert seen.verdicts == alone.verdicts  # one family, one judge
    # Judges known to repeat themselves every time (a repeat rate of 1): their repeats
    # weigh nothing, to the last bit.
    always = Prior(repeat=Beta(1.0, 0.0))
    rows = [*singletons(dict.fromkeys(PANEL, R)), *agreed()]
    panel = estimate(rows, prior=always)
    assert panel.family("anthropic").repeat == 1.0
    assert belief(panel, seen, thrice) == belief(panel, alone, once)
    # Read from a run in which Anthropic, asked three times about each claim, always
    # repeated its first answer (confirmed some, refuted others: a fresh answer would often
    # have differed), its repeat rate comes out high, and two more answers add next to
    # nothing beside what its first one weighs.
    rows = []
    for n, maker in enumerate(["openai", "google", "qwen"] * 4):
        first = C if n % 2 else R
        say = {"anthropic": [first] * 3} | {f: [R] for f in PANEL if f != "anthropic"}
        rows += asked_again(say, [maker])
    measured = estimate([*rows, *agreed()])
    assert measured.family("anthropic").repeat > 0.9
    added = belief(measured, seen, thrice) - belief(measured, alone, once)
    assert 0 <= added < measured.weight("anthropic", C) / 10
    # A family that answered both ways counts by its first answer, and its flip as news.
    both = [said("anthropic", R), said("anthropic", C)]
    assert observed(A_CLAIM, both, EVERYONE).verdicts == (("anthropic", R),)
    assert observed(A_CLAIM, both, EVERYONE).repeats == (("anthropic", R, C),)


def test_a_repeat_that_flips_weighs_in_full_and_one_that_agrees_weighs_little() -> None:
    panel = estimate([*singletons(dict.fromkeys(PANEL, R)), *agreed()])
    qwen = panel.family("qwen")
    assert 0.5 < qwen.repeat < 1.0  # nothing shown yet: the prior's, about 0.8
    # A family that mostly repeats itself and flips: the flip is a fresh answer.
    assert qwen.again(C, R) == qwen.verdict(R)
    assert qwen.again(R, C) == qwen.verdict(C)
    # One that agrees with its first answer says little, and less the more it repeats.
    assert 0 < qwen.again(C, C) < qwen.verdict(C) / 3
    assert qwen.verdict(R) / 3 < qwen.again(R, R) < 0
    forgetful = replace(qwen, repeat=0.0)  # a new judge every time it is asked
    assert forgetful.again(C, C) == pytest.approx(forgetful.verdict(C))


def test_each_familys_repeat_rate_is_measured_from_the_run() -> None:
    # Asked three times about each claim one family made, Anthropic keeps its answer;
    # Google changes its mind every other time. Their repeats are worth that much: an
    # agreeing answer of Google's is more news, and its fresh answers show its rates.
    say = {"openai": [R], "anthropic": [R, R, R], "google": [R, C, R], "qwen": [R]}
    panel = estimate([*asked_again(say, ["openai", "qwen"] * 4), *agreed()])
    steady, fickle = panel.family("anthropic"), panel.family("google")
    assert steady.repeat > fickle.repeat + 0.25
    assert fickle.again(R, R) < steady.again(R, R) < 0
    assert fickle.tnr < steady.tnr  # it confirmed inventions when it answered afresh


def test_labels_count_as_claims_seen_and_outweigh_a_runs_few_votes() -> None:
    # A calibration that measured Qwen agreeable on 400 labelled claims: one run of
    # refutations does not make it discerning.
    labels = JudgeCounts(confirmed_real=190, missed_real=10, refuted_false=40, confirmed_false=160)
    calibration = Calibration(families={"qwen": FamilyCalibration(judge=labels)})
    known = known_counts(calibration)
    alone = estimate([*singletons(dict.fromkeys(PANEL, R)), *agreed()])
    labelled = estimate([*singletons(dict.fromkeys(PANEL, R)), *agreed()], known)
    assert alone.family("qwen").tnr > 0.75
    assert labelled.family("qwen").tnr == pytest.approx(0.2, abs=0.05)
    assert labelled.family("anthropic").tnr > 0.75  # the others are still read from the run


def test_earlier_runs_are_pseudo_counts_that_carry_a_panel_over() -> None:
    first = estimate([*singletons(dict.fromkeys(PANEL, R)), *agreed()])
    history = PanelTally().plus(first.data)
    # A run that says little (two claims, one judge each) starts from what the first one
    # showed: its judges are still read as discerning.
    thin = [claim(["openai"], anthropic=R), claim(["google", "qwen"], openai=C)]
    cold = estimate(thin)
    warm = estimate(thin, known_counts(Calibration(history=history)))
    assert warm.family("anthropic").tnr > cold.family("anthropic").tnr + 0.1
    assert warm.known.pooled["anthropic"] == pytest.approx(
        sum(first.data.families["anthropic"].judge.model_dump().values()), abs=0.01
    )


def test_uncertain_means_what_a_familys_own_use_of_it_shows() -> None:
    # Anthropic says `uncertain` of claims the others refute, never of those they confirm:
    # from it, uncertain is doubt. Google says it of anything: from it, little.
    rows = [
        *[claim([m], anthropic=U, openai=R, qwen=R) for m in ("google",) * 6],
        *[claim(["openai", "qwen"], anthropic=C, google=U) for _ in range(6)],
        *[claim([m], google=U, openai=R, qwen=R) for m in ("anthropic",) * 6],
    ]
    history = PanelTally().plus(estimate(rows).data)
    panel = estimate(rows, known_counts(Calibration(history=history)))
    assert panel.weight("anthropic", U) < -1.0
    assert abs(panel.weight("google", U)) < abs(panel.weight("anthropic", U)) / 2


def test_the_estimate_is_the_same_to_the_last_bit_on_the_same_votes() -> None:
    rows = [*singletons({"openai": C, "anthropic": R, "google": C, "qwen": U}), *agreed()]
    assert estimate(rows) == estimate(list(rows))


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_logit_and_probability_are_inverse(share: float) -> None:
    assert probability(logit(share)) == pytest.approx(share)


def test_the_pool_is_capped_so_that_a_panel_that_changes_is_seen_to_change() -> None:
    run = PanelTally(runs=1, families={"openai": FamilyTally(judge=JudgeTally(refuted_false=50))})
    pool = PanelTally()
    for _ in range(10):
        pool = pool.plus(run)
    assert pool.runs == 10
    assert pool.families["openai"].judge.refuted_false == pytest.approx(200.0)
    assert Beta(1, 3).mean == 0.25
