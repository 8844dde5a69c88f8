"""Whether to ask a family again about a claim it has judged, and which.

Once every independent family has judged a claim and it is still open, only a family asked
again can move it, and a family mostly repeats itself (decide/panel_repeats.py). An answer
is worth its call only if it can change what is posted: verify a disputed claim (below the
bound it stays unposted, rejected or not), or reject a consensus one (it stays posted
otherwise). So each family that judged the claim is weighed by the chance, under the
current estimate, that its next answer does that: the claim's probability of being real
splits the answer between what the family would say of a real claim and of a false one,
each its first answer again with the family's repeat rate, else a fresh one. A family is
asked again when that chance is at least MIN_DECISIVE; the family with the best chance
first, one a round.

Under judges that confirm nearly everything, a disputed claim three confirmations left
below the bound is never asked again (a fourth confirmation, mostly a repeat, cannot lift
it); a consensus claim its outsider confirmed is, as long as a flip to a refutation would
still reject it.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus.decide.evidence import EPSILON, Bounds
from consensus.decide.panel_counts import Rates
from consensus.decide.panel_prior import VERDICTS
from consensus.decide.panel_rates import probability
from consensus.model.base import VerdictKind

MIN_DECISIVE = 0.05  # the chance an answer must have to decide the claim, to be worth a call


def decisive(
    rates: Rates, first: VerdictKind, level: float, limits: Bounds, consensus: bool
) -> float:
    """The chance that the next answer of a family with `rates`, whose first answer was
    `first`, decides a claim at log-odds `level`: rejects it when it reached consensus,
    verifies it otherwise."""
    at = VERDICTS.index(first)
    steps = rates.repeats[at]

    def crossed(said: int) -> bool:
        moved = level + steps[said]
        return moved <= limits.reject + EPSILON if consensus else moved >= limits.verify - EPSILON

    p = probability(level)
    chance = 0.0
    for weight, shares in ((p, rates.real), (1 - p, rates.false)):
        for said in range(len(VERDICTS)):
            if crossed(said):  # its first answer again, or a fresh one that says the same
                repeated = rates.repeat if said == at else 0.0
                chance += weight * (repeated + (1 - rates.repeat) * shares[said])
    return chance


def ask_again(
    judged: Sequence[tuple[str, VerdictKind, Rates]],
    level: float,
    limits: Bounds,
    consensus: bool,
) -> str | None:
    """The family to ask again among `judged` (family, its first answer, its rates), or
    None when no answer is likely enough to decide the claim."""
    best, chosen = 0.0, None
    for family, first, rates in judged:
        chance = decisive(rates, first, level, limits, consensus)
        if chance >= MIN_DECISIVE and chance > best:
            best, chosen = chance, family
    return chosen
