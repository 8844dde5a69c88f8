"""Each family's counts behind its rates, and the point rates they give.

A family's pseudo-counts (`PseudoCounts`: Beta and `Verdicts`) are the prior's, `shrink`
claims' worth of the panel's own rates (a family that judged four false claims says
little alone), what the repository knows (labels, earlier runs) and this run's soft counts.
Its point rates (`Rates`) are their means, held to the better-than-chance side: a real
claim confirmed at least MARGIN more often than a false one, and reported more often too.
`Rates` also holds what the E-step reads, worked out once: each verdict's, report's and
repeat's log-likelihood ratio.

A run's soft counts of one family are a `SoftCounts` (model/history.py), the shape the
history's counts are read into too: read here by name (`parts`), whoever wrote them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consensus.decide.panel_prior import (
    NO_VERDICTS,
    VERDICTS,
    ZERO,
    Beta,
    Known,
    Prior,
    Verdicts,
    judged,
    reported,
)
from consensus.decide.panel_repeats import weights as repeat_weights
from consensus.model.base import VerdictKind
from consensus.model.history import SoftCounts

MARGIN = 0.05
LOW, HIGH = 0.01, 0.99  # a rate of 0 or 1 would make one observation decide alone
NOTHING = SoftCounts()  # the run's counts of a family it did not see


def clamped(value: float) -> float:
    return min(max(value, LOW), HIGH)


@dataclass(frozen=True)
class Rates:
    """One family's point rates: its verdicts' shares on real and on false claims, its
    reports', how often it repeats its first answer; and the log-likelihood ratio of each
    thing it may say."""

    real: tuple[float, float, float]  # confirmed, refuted, uncertain on a real claim
    false: tuple[float, float, float]  # … on a false one
    recall: float
    invention: float
    repeat: float = 1.0  # a later answer is its first one again with this probability
    weights: tuple[float, float, float] = field(init=False)  # per verdict, in VERDICTS order
    reports: tuple[float, float] = field(init=False)  # (silent, reported)
    repeats: tuple[tuple[float, ...], ...] = field(init=False)  # by (first, later) verdict

    def __post_init__(self) -> None:
        weights = tuple(math.log(r / f) for r, f in zip(self.real, self.false, strict=True))
        silent = math.log((1 - self.recall) / (1 - self.invention))
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "reports", (silent, math.log(self.recall / self.invention)))
        object.__setattr__(self, "repeats", repeat_weights(self.real, self.false, self.repeat))

    @property
    def tpr(self) -> float:
        return self.real[0]

    @property
    def tnr(self) -> float:
        return 1 - self.false[0]

    def report(self, reported: bool) -> float:
        """The log-likelihood ratio of a report (or a silence) of this family."""
        return self.reports[reported]

    def verdict(self, verdict: VerdictKind) -> float:
        """The log-likelihood ratio of a verdict of this family."""
        return self.weights[VERDICTS.index(verdict)]

    def again(self, first: VerdictKind, said: VerdictKind) -> float:
        """The log-likelihood ratio of a later answer `said` of this family about a claim
        it first judged `first` (decide/panel_repeats.py)."""
        return self.repeats[VERDICTS.index(first)][VERDICTS.index(said)]


@dataclass(frozen=True)
class PseudoCounts:
    """One family's counts behind its rates: prior, knowledge and this run's data."""

    real: Verdicts
    false: Verdicts
    recall: Beta
    invention: Beta
    repeat: Beta


def parts(counts: SoftCounts) -> PseudoCounts:
    """A family's soft counts as the pseudo-counts they add to its rates."""
    (real, false), (recall, invention) = judged(counts), reported(counts)
    return PseudoCounts(
        real=real,
        false=false,
        recall=recall,
        invention=invention,
        repeat=Beta(counts.repeated, counts.fresh),
    )


def family_counts(
    names: Sequence[str], rows: Mapping[str, SoftCounts], known: Known, prior: Prior
) -> dict[str, PseudoCounts]:
    """Every family's counts: the prior's, drawn toward the panel's own rates (`shrink`
    and `shrink_reports` claims' worth), what the repository knows, and this run's."""
    whole = parts(SoftCounts.total(rows.values()))
    real, false = prior.real_verdicts + whole.real, prior.false_verdicts + whole.false
    recall, invention = prior.recall + whole.recall, prior.invention + whole.invention
    repeat = prior.repeat + whole.repeat
    out = {}
    for name in names:
        own = parts(rows.get(name, NOTHING))
        out[name] = PseudoCounts(
            real=prior.real_verdicts
            + real.times(prior.shrink)
            + known.real_verdicts.get(name, NO_VERDICTS)
            + own.real,
            false=prior.false_verdicts
            + false.times(prior.shrink)
            + known.false_verdicts.get(name, NO_VERDICTS)
            + own.false,
            recall=toward(prior.recall, recall, prior.shrink_reports)
            + known.recall.get(name, ZERO)
            + own.recall,
            invention=toward(prior.invention, invention, prior.shrink_reports)
            + known.invention.get(name, ZERO)
            + own.invention,
            repeat=toward(prior.repeat, repeat, prior.shrink) + own.repeat,
        )
    return out


def toward(own: Beta, panel: Beta, weight: float) -> Beta:
    """A family's prior: its own, and `weight` claims' worth at the panel's rate."""
    return own + Beta(weight * panel.mean, weight * (1 - panel.mean))


def rates_of(counts: PseudoCounts) -> Rates:
    """Point rates from counts, held to the better-than-chance side: a real claim
    confirmed at least MARGIN more often than a false one, reported more often too."""
    real = tuple(clamped(share) for share in counts.real.shares())
    false = [clamped(share) for share in counts.false.shares()]
    if false[0] > real[0] - MARGIN:
        spare = false[1] + false[2]
        capped = max(LOW, real[0] - MARGIN)
        false = [capped, *(share * (1 - capped) / spare for share in false[1:])]
    recall = clamped(counts.recall.mean)
    invention = min(clamped(counts.invention.mean), max(LOW, recall - MARGIN))
    return Rates(
        real=(real[0], real[1], real[2]),
        false=(false[0], false[1], false[2]),
        recall=recall,
        invention=invention,
        repeat=counts.repeat.mean,  # 1 makes an agreeing repeat weigh nothing, as it should
    )
