"""What a run's estimate of its panel starts from (decide/panel_rates.py): the prior every
rate has, as pseudo-counts, and what the repository knows, added to it.

Every rate has a Beta prior (a Dirichlet for a judge's three verdicts), wide enough to
hold an agreeable judge (TPR 0.96, TNR 0.2–0.45), an impartial one (0.85 / 0.85) and a
discerning one (0.95 / 0.80). What the repository knows is added to the priors
(`known_counts`): labelled claims (a calibration, the learnings' judge counts) counted as
they are, and the soft counts of earlier runs (the learnings' pooled `panel`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from consensus.model.base import VerdictKind
from consensus.model.calibration import Calibration, JudgeCounts
from consensus.model.history import AGREEMENTS, PanelTally, SoftCounts, grounded_key


@dataclass(frozen=True)
class Beta:
    """A rate's pseudo-counts: `yes` for the event, `no` against it."""

    yes: float
    no: float

    @property
    def mean(self) -> float:
        return self.yes / (self.yes + self.no)

    @property
    def total(self) -> float:
        return self.yes + self.no

    def __add__(self, other: Beta) -> Beta:
        return Beta(self.yes + other.yes, self.no + other.no)


ZERO = Beta(0.0, 0.0)
VERDICTS = (VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN)  # in shares' order


@dataclass(frozen=True)
class Verdicts:
    """A judge's verdicts on one class of claims, as pseudo-counts: confirmed or not
    (`confirmed`), and of those it did not confirm, uncertain or refuted (`uncertain`).
    A label says whether a judge confirmed a claim, never how it doubted it: labels add
    to `confirmed` only."""

    confirmed: Beta
    uncertain: Beta

    @classmethod
    def of(cls, confirmed: float, refuted: float, uncertain: float) -> Verdicts:
        return cls(Beta(confirmed, refuted + uncertain), Beta(uncertain, refuted))

    def shares(self) -> tuple[float, float, float]:
        """Confirmed, refuted, uncertain."""
        c, u = self.confirmed.mean, self.uncertain.mean
        return c, (1 - c) * (1 - u), (1 - c) * u

    def times(self, weight: float) -> Verdicts:
        """`weight` claims' worth at these shares (and as much for the split of doubt)."""
        c, u = self.confirmed.mean, self.uncertain.mean
        return Verdicts(Beta(weight * c, weight * (1 - c)), Beta(weight * u, weight * (1 - u)))

    def __add__(self, other: Verdicts) -> Verdicts:
        return Verdicts(self.confirmed + other.confirmed, self.uncertain + other.uncertain)


NO_VERDICTS = Verdicts(ZERO, ZERO)


@dataclass(frozen=True)
class Prior:
    """The pseudo-counts every run starts from.

    Claims: the share that is real by the share of their file's reviewers that reported
    them, as the agreement priors had it before they were estimated (of four families: 0.10
    for one, 0.50 for two, 0.75 for three, 0.90 for all four; of two, one is half), each
    held by a dozen claims' worth (twenty for the lone reports). Judges, on real claims:
    confirmed about 0.9 of the time (LLM judges confirm most real claims, whatever else they
    do), ten claims' worth; on false claims: confirmed 0.45 of the time, one claim's worth,
    so that the run's false claims decide whether a family is agreeable or discerning; of
    the verdicts that do not confirm, a quarter `uncertain` on either class (doubt means
    what refusal means until a family's use of it shows otherwise); `shrink` claims' worth
    of the panel's own rates beside each family's. Reporters: recall around 0.6, invention
    around 0.25, with `shrink_reports` claims' worth of the panel's (a run shows the panel's
    reporting as a whole far better than one family's: each family's own shows over runs).
    Asked again about a claim, a family repeats its first answer about 0.8 of the time
    (five claims' worth, and `shrink` of the panel's: models mostly repeat themselves, and
    a repeat rate guessed too low would count one family's word several times)."""

    real: tuple[Beta, ...] = (Beta(2.0, 18.0), Beta(6.0, 6.0), Beta(9.0, 3.0), Beta(10.8, 1.2))
    real_verdicts: Verdicts = Verdicts(Beta(9.1, 0.9), Beta(0.25, 0.75))
    false_verdicts: Verdicts = Verdicts(Beta(0.45, 0.55), Beta(0.25, 0.75))
    recall: Beta = Beta(3.0, 2.0)
    invention: Beta = Beta(1.25, 3.75)
    repeat: Beta = Beta(4.0, 1.0)
    shrink: float = 3.0
    shrink_reports: float = 10.0


DEFAULT_PRIOR = Prior()


@dataclass(frozen=True)
class Known:
    """What the repository knows before this run, as pseudo-counts added to the prior's:
    labels and earlier runs alike."""

    real_verdicts: Mapping[str, Verdicts] = field(default_factory=dict)
    false_verdicts: Mapping[str, Verdicts] = field(default_factory=dict)
    recall: Mapping[str, Beta] = field(default_factory=dict)
    invention: Mapping[str, Beta] = field(default_factory=dict)
    precision: Mapping[str, Beta] = field(default_factory=dict)  # labelled right, wrong reports
    real: tuple[Beta, ...] = (ZERO,) * AGREEMENTS
    labelled: Mapping[str, int] = field(default_factory=dict)  # labelled claims per family
    pooled: Mapping[str, float] = field(default_factory=dict)  # earlier runs' claims' worth


def judged(counts: SoftCounts) -> tuple[Verdicts, Verdicts]:
    """A family's verdicts on real claims and on false ones, as pseudo-counts."""
    return (
        Verdicts.of(counts.confirmed_real, counts.refuted_real, counts.uncertain_real),
        Verdicts.of(counts.confirmed_false, counts.refuted_false, counts.uncertain_false),
    )


def reported(counts: SoftCounts) -> tuple[Beta, Beta]:
    """A family's recall and invention, as pseudo-counts."""
    return (
        Beta(counts.reported_real, counts.silent_real),
        Beta(counts.reported_false, counts.silent_false),
    )


def labelled_verdicts(labels: JudgeCounts) -> tuple[Verdicts, Verdicts]:
    """A family's labelled verdicts on real claims and on false ones, as pseudo-counts. Not
    soft counts: a label tells confirmed from not, never doubt from refusal (`Verdicts`)."""
    return (
        Verdicts(Beta(labels.confirmed_real, labels.missed_real), ZERO),
        Verdicts(Beta(labels.confirmed_false, labels.refuted_false), ZERO),
    )


def known_counts(calibration: Calibration) -> Known:
    """What a calibration holds, as pseudo-counts: its labelled judge counts as they are
    (a labelled claim a family confirmed adds one confirmation on that class, one it
    did not confirm one against: labels do not tell doubt from refusal), a
    reporter's labelled right and wrong findings as its precision (`_start`), and the
    pooled soft counts of earlier runs (`history`)."""
    real: dict[str, Verdicts] = {}
    false: dict[str, Verdicts] = {}
    recall: dict[str, Beta] = {}
    invention: dict[str, Beta] = {}
    precision: dict[str, Beta] = {}
    labelled: dict[str, int] = {}
    pooled: dict[str, float] = {}
    for name, entry in sorted(calibration.families.items()):
        if entry.judge is not None:
            labels = entry.judge
            real[name], false[name] = labelled_verdicts(labels)
            labelled[name] = labels.tpr.n + labels.tnr.n
        if entry.reporter is not None:
            precision[name] = Beta(entry.reporter.right, entry.reporter.wrong)
    history = calibration.history or PanelTally()
    for name, tally in sorted(history.families.items()):
        counts = SoftCounts.of(tally.judge, tally.reporter)
        (r, f), (s, i) = judged(counts), reported(counts)
        real[name] = real.get(name, NO_VERDICTS) + r
        false[name] = false.get(name, NO_VERDICTS) + f
        recall[name] = recall.get(name, ZERO) + s
        invention[name] = invention.get(name, ZERO) + i
        pooled[name] = round(tally.judge.total, 2)
        if tally.grounded.total:  # what it said when it had read the code, apart
            key, (r, f) = grounded_key(name), judged(SoftCounts.of(tally.grounded))
            real[key] = real.get(key, NO_VERDICTS) + r
            false[key] = false.get(key, NO_VERDICTS) + f
            pooled[key] = round(tally.grounded.total, 2)
    return Known(
        real_verdicts=real,
        false_verdicts=false,
        recall=recall,
        invention=invention,
        precision=precision,
        real=tuple(Beta(c.real, c.false) for c in history.claims),
        labelled=labelled,
        pooled=pooled,
    )
