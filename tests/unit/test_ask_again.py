"""Asking a family again: only when its next answer is likely enough to change what is posted."""

from consensus.decide.ask_again import MIN_DECISIVE, ask_again, decisive
from consensus.decide.evidence import bounds
from consensus.decide.panel_counts import Rates
from consensus.decide.panel_rates import logit
from consensus.model.base import VerdictKind

C, U = VerdictKind.CONFIRMED, VerdictKind.UNCERTAIN

# A family that confirms nearly everything, and one that refutes most inventions; both repeat
# their first answer 80% of the time when asked again.
AGREEABLE = Rates(
    real=(0.96, 0.02, 0.02), false=(0.7, 0.27, 0.03), recall=0.6, invention=0.2, repeat=0.8
)
DISCERNING = Rates(
    real=(0.95, 0.03, 0.02), false=(0.2, 0.78, 0.02), recall=0.6, invention=0.2, repeat=0.8
)


def test_a_disputed_claim_agreeable_confirmations_left_below_the_bound_is_not_asked_again() -> None:
    start = logit(0.1)
    level = start + 3 * AGREEABLE.verdict(C)  # three agreeable families confirmed it
    limits = bounds(start, 0.9)
    judged = [(f, C, AGREEABLE) for f in ("openai", "google", "qwen")]

    assert level < limits.verify
    assert ask_again(judged, level, limits, consensus=False) is None


def test_a_consensus_claim_its_outsider_doubted_is_asked_again_while_a_refutation_rejects() -> None:
    start = logit(0.6)
    level = start + DISCERNING.verdict(U)  # its one outsider was unsure
    limits = bounds(start, 0.9)

    assert limits.verify > level > limits.reject
    assert decisive(DISCERNING, U, level, limits, consensus=True) >= MIN_DECISIVE
    assert ask_again([("anthropic", U, DISCERNING)], level, limits, consensus=True) == "anthropic"


def test_a_consensus_claim_a_discerning_outsider_confirmed_is_not_asked_again() -> None:
    start = logit(0.6)
    level = start + DISCERNING.verdict(C)
    limits = bounds(start, 0.9)

    assert decisive(DISCERNING, C, level, limits, consensus=True) < MIN_DECISIVE
    assert ask_again([("anthropic", C, DISCERNING)], level, limits, consensus=True) is None


def test_a_family_that_always_repeats_itself_is_never_asked_again() -> None:
    parrot = Rates(
        real=DISCERNING.real, false=DISCERNING.false, recall=0.6, invention=0.2, repeat=1.0
    )
    start = logit(0.5)
    level = start + parrot.verdict(C)
    limits = bounds(start, 0.9)

    assert decisive(parrot, C, level, limits, consensus=False) == 0.0
    assert ask_again([("anthropic", C, parrot)], level, limits, consensus=False) is None


def test_the_family_likeliest_to_decide_the_claim_is_asked_first() -> None:
    start = logit(0.5)
    limits = bounds(start, 0.9)
    level = limits.verify - 0.1  # one confirmation short of verified
    judged = [("openai", C, AGREEABLE), ("anthropic", C, DISCERNING)]

    assert decisive(DISCERNING, C, level, limits, consensus=False) > decisive(
        AGREEABLE, C, level, limits, consensus=False
    )
    assert ask_again(judged, level, limits, consensus=False) == "anthropic"
