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
HORIZON = 1  # answers of a family looked ahead at (one a round)


def decisive(
    rates: Rates,
    first: VerdictKind,
    level: float,
    limits: Bounds,
    consensus: bool,
    answers: int = 1,
) -> float:
    """The chance that the next `answers` answers of a family with `rates`, whose first
    answer was `first`, decide a claim at log-odds `level`: reject it when it reached
    consensus, verify it otherwise (decided at the first answer that crosses)."""
    p = probability(level)
    at = VERDICTS.index(first)
    fresh = 1 - rates.repeat
    steps = rates.repeats[at]
    chance = 0.0
    for weight, shares in ((p, rates.real), (1 - p, rates.false)):
        odds = [(rates.repeat if v == at else 0.0) + fresh * shares[v] for v in range(3)]
        chance += weight * _crossing(odds, steps, level, limits, consensus, answers)
    return chance


def _crossing(
    odds: Sequence[float],
    steps: Sequence[float],
    level: float,
    limits: Bounds,
    consensus: bool,
    answers: int,
) -> float:
    """The chance that a walk from `level` crosses the bound that decides within `answers`
    steps, each step i with chance odds[i] and size steps[i]: by the counts of each step
    taken (the level depends on them alone), the walks that have not crossed yet."""

    def crossed(at: float) -> bool:
        return at <= limits.reject + EPSILON if consensus else at >= limits.verify - EPSILON

    alive: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
    chance = 0.0
    for _ in range(answers):
        nxt: dict[tuple[int, int, int], float] = {}
        for counts, mass in alive.items():
            for v in range(3):
                moved = tuple(n + (i == v) for i, n in enumerate(counts))
                share = mass * odds[v]
                at = level + sum(n * step for n, step in zip(moved, steps, strict=True))
                if crossed(at):
                    chance += share
                else:
                    key = (moved[0], moved[1], moved[2])
                    nxt[key] = nxt.get(key, 0.0) + share
        alive = nxt
    return chance


def ask_again(
    judged: Sequence[tuple[str, VerdictKind, Rates]],
    level: float,
    limits: Bounds,
    consensus: bool,
    answers: int = 1,
) -> str | None:
    """The family to ask again among `judged` (family, its first answer, its rates), or
    None when no answer is likely enough to decide the claim."""
    best, chosen = 0.0, None
    for family, first, rates in judged:
        chance = decisive(rates, first, level, limits, consensus, answers)
        if chance >= MIN_DECISIVE and chance > best:
            best, chosen = chance, family
    return chosen
