"""Each provider family's rates, estimated from one run's votes: Dawid–Skene, two coins.

Every claim of a run (every cluster a model reported: consensus ones too, they show who
reports what) is real or false, which no one observes. What is observed, per family:

- as a reporter, on each claim of a file it reviewed: it reported the claim or not. A
  family reports a real claim with its recall and a false one with its rate of invention;
- as a judge, on each claim it was asked about (once: one family, one judge): confirmed,
  refuted or uncertain, each with its own rate on real claims and on false ones (two
  dice rather than two coins: `uncertain` means what the family's own use of it shows,
  doubt from a judge that says it mostly of inventions, little from one that says it of
  anything). Its TPR is how often it confirms a real claim, its TNR how often it does not
  confirm a false one.

A claim's log-odds of being real (`Estimate.belief`) is the share of real claims among
those as large a share of their file's reviewers reported (models share errors, so
agreement is worth what the run shows it is worth, not what independent reporters would
make it), plus each reviewing
family's report or silence weighed by how much more (or less) telling that family's is
than the panel's average, plus each judge family's verdict weighed by its likelihood
ratio. Given the rates, every claim's probability follows; given the claims'
probabilities, every rate is a ratio of soft counts. EM alternates the two from a start
set by the priors alone, until no claim's probability moves by more than TOLERANCE.

Every rate has a prior, as pseudo-counts, and what the repository knows is added to it
(decide/panel_prior.py). A family's rates are drawn toward the panel's (`Prior.shrink`
claims' worth of the other families' verdicts): a family that judged four false claims
says little alone.

A model of votes is symmetric in its two classes (every judge always wrong fits as well
as every judge always right): judges are assumed to do better than chance (a real claim
confirmed at least MARGIN more often than a false one) and reporters to report real
claims more often than false ones, which, with the start from the priors, keeps the
estimate where "real" means real. What no model of
votes can see is a shared blind spot: an invention that convinces every judge looks, to
the votes, like a real claim. Only labels show it.

Pure and deterministic: the same claims and votes give the same estimate, to the last bit
(families and claims are read in a fixed order; no randomness, no clock).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consensus.decide.panel_prior import (
    DEFAULT_PRIOR,
    NO_VERDICTS,
    VERDICTS,
    ZERO,
    Beta,
    Known,
    Prior,
    Verdicts,
    known_counts,
)
from consensus.model.base import VerdictKind
from consensus.model.history import (
    AGREEMENTS,
    ClaimTally,
    FamilyTally,
    JudgeTally,
    PanelTally,
    ReportTally,
    agreement,
)

TOLERANCE = 1e-7
MAX_ROUNDS = 500
MARGIN = 0.05
LOW, HIGH = 0.01, 0.99  # a rate of 0 or 1 would make one observation decide alone
LABEL_WEIGHT = 20.0  # claims' worth of the estimate's own precision beside a reporter's labels


@dataclass(frozen=True)
class Observed:
    """One claim as the estimate reads it: the families that reported it, those that
    reviewed its file (reporters included), and each independent judge family's verdict,
    one per family."""

    reporters: frozenset[str]
    reviewers: frozenset[str]
    verdicts: tuple[tuple[str, VerdictKind], ...] = ()


@dataclass(frozen=True)
class Rates:
    """One family's point rates: its verdicts' shares on real and on false claims, its
    reports'; and the log-likelihood ratio of each thing it may say."""

    real: tuple[float, float, float]  # confirmed, refuted, uncertain on a real claim
    false: tuple[float, float, float]  # … on a false one
    recall: float
    invention: float
    weights: tuple[float, float, float] = field(init=False)  # per verdict, in VERDICTS order
    reports: tuple[float, float] = field(init=False)  # (silent, reported)

    def __post_init__(self) -> None:
        weights = tuple(math.log(r / f) for r, f in zip(self.real, self.false, strict=True))
        silent = math.log((1 - self.recall) / (1 - self.invention))
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "reports", (silent, math.log(self.recall / self.invention)))

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


@dataclass(frozen=True)
class Panel:
    """Point rates of every family and of the claims: what the E-step reads."""

    real: tuple[float, ...]  # share of real claims, by reporting families (1, 2, 3, 4+)
    rates: Mapping[str, Rates]
    fallback: Rates  # a family the run never saw: the prior's (and the panel's) rates
    averages: tuple[float, float] = field(init=False)  # the panel's (silent, reported)

    def __post_init__(self) -> None:
        rates = list(self.rates.values()) or [self.fallback]
        averages = tuple(sum(r.reports[n] for r in rates) / len(rates) for n in (0, 1))
        object.__setattr__(self, "averages", averages)

    def family(self, name: str) -> Rates:
        return self.rates.get(name, self.fallback)

    def average(self, reported: bool) -> float:
        """The panel's average report (or silence) weight: the agreement shares hold it."""
        return self.averages[reported]


@dataclass(frozen=True)
class Estimate:
    """The panel's rates after EM, each claim's probability of being real, and the counts
    behind every rate (prior, knowledge and this run's data)."""

    panel: Panel
    posteriors: tuple[float, ...]
    counts: Mapping[str, Counts]
    data: PanelTally  # this run's soft counts alone (what it adds to the history)
    known: Known

    @property
    def rates(self) -> Mapping[str, Rates]:
        return self.panel.rates

    def family(self, name: str) -> Rates:
        return self.panel.family(name)

    def start(self, claim: Observed) -> float:
        """The claim's log-odds of being real from its reports alone."""
        return _start(claim, self.panel, self.known)

    def weight(self, family: str, verdict: VerdictKind) -> float:
        """How far one verdict of `family` moves a claim's log-odds."""
        return self.family(family).verdict(verdict)

    def belief(self, claim: Observed) -> float:
        return self.start(claim) + sum(self.weight(f, c) for f, c in claim.verdicts)


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def probability(log_odds: float) -> float:
    if log_odds < -700:
        return 0.0
    return 1 / (1 + math.exp(-log_odds))


def _clamped(value: float) -> float:
    return min(max(value, LOW), HIGH)


def _seen(claim: Observed) -> list[str]:
    return sorted(claim.reviewers | claim.reporters)


def _start(claim: Observed, panel: Panel, known: Known) -> float:
    """The share of real claims among those as many families reported; each reviewing
    family's report or silence as far as it tells more (or less) than the panel's
    average; and for a reporter whose findings were labelled, the shift that makes its
    report say what its labelled precision says."""
    share = panel.real[agreement(len(claim.reporters), len(claim.reviewers | claim.reporters))]
    level = logit(share)
    for name in _seen(claim):
        reported = name in claim.reporters
        family = panel.family(name)
        level += family.report(reported) - panel.average(reported)
        labels = known.precision.get(name)
        if labels is not None and reported:
            implied = _implied_precision(share, family, panel)
            said = (labels + Beta(LABEL_WEIGHT * implied, LABEL_WEIGHT * (1 - implied))).mean
            level += logit(_clamped(said)) - logit(_clamped(implied))
    return level


def _implied_precision(share: float, family: Rates, panel: Panel) -> float:
    """What the estimate holds of a claim this family reported, before anything else."""
    return probability(logit(share) + family.report(True) - panel.average(True))


@dataclass(frozen=True)
class _Read:
    """A claim as the EM loop reads it, worked out once: its agreement bucket, each
    reviewing family with whether it reported, each verdict's family and index."""

    bucket: int
    seen: tuple[tuple[str, bool], ...]
    verdicts: tuple[tuple[str, int], ...]


def _read(claim: Observed, judged: bool = True) -> _Read:
    return _Read(
        bucket=agreement(len(claim.reporters), len(claim.reviewers | claim.reporters)),
        seen=tuple((f, f in claim.reporters) for f in _seen(claim)),
        verdicts=tuple((f, VERDICTS.index(v)) for f, v in claim.verdicts) if judged else (),
    )


def _posteriors(claims: Sequence[_Read], panel: Panel, known: Known) -> list[float]:
    out = []
    shares = [logit(share) for share in panel.real]
    averages = panel.averages
    for claim in claims:
        level = shares[claim.bucket]
        for name, reported in claim.seen:
            level += panel.family(name).reports[reported] - averages[reported]
        if known.precision:
            level = _start_labelled(claim, panel, known, level)
        for name, at in claim.verdicts:
            level += panel.family(name).weights[at]
        out.append(probability(level))
    return out


def _start_labelled(claim: _Read, panel: Panel, known: Known, level: float) -> float:
    share = panel.real[claim.bucket]
    for name, reported in claim.seen:
        labels = known.precision.get(name)
        if labels is not None and reported:
            implied = _implied_precision(share, panel.family(name), panel)
            said = (labels + Beta(LABEL_WEIGHT * implied, LABEL_WEIGHT * (1 - implied))).mean
            level += logit(_clamped(said)) - logit(_clamped(implied))
    return level


# Soft counts of one family, in this order: confirmed, refuted, uncertain on real claims,
# the same on false ones; reported and silent on real claims, on false ones.
_SLOTS = 10


def _soft(
    claims: Sequence[_Read], posteriors: Sequence[float]
) -> tuple[dict[str, list[float]], list[list[float]]]:
    """This run's soft counts, each claim split between real and false by its probability."""
    counts: dict[str, list[float]] = {}
    shares = [[0.0, 0.0] for _ in range(AGREEMENTS)]
    for claim, p in zip(claims, posteriors, strict=True):
        q = 1 - p
        bucket = shares[claim.bucket]
        bucket[0] += p
        bucket[1] += q
        for name, reported in claim.seen:
            row = counts.setdefault(name, [0.0] * _SLOTS)
            at = 6 if reported else 7
            row[at] += p
            row[at + 2] += q
        for name, verdict in claim.verdicts:
            row = counts.setdefault(name, [0.0] * _SLOTS)
            row[verdict] += p
            row[3 + verdict] += q
    return counts, shares


def _tally(counts: dict[str, list[float]], shares: list[list[float]]) -> PanelTally:
    families = {}
    for name in sorted(counts):
        row = counts[name]
        families[name] = FamilyTally(
            judge=JudgeTally(**dict(zip(JudgeTally.model_fields, row[:6], strict=True))),
            reporter=ReportTally(
                reported_real=row[6], silent_real=row[7], reported_false=row[8], silent_false=row[9]
            ),
        )
    claims = tuple(ClaimTally(real=real, false=false) for real, false in shares)
    return PanelTally(runs=1, claims=claims, families=families)


@dataclass(frozen=True)
class Counts:
    """One family's counts behind its rates: prior, knowledge and this run's data."""

    real: Verdicts
    false: Verdicts
    recall: Beta
    invention: Beta


def _parts(row: Sequence[float]) -> tuple[Verdicts, Verdicts, Beta, Beta]:
    return (
        Verdicts.of(row[0], row[1], row[2]),
        Verdicts.of(row[3], row[4], row[5]),
        Beta(row[6], row[7]),
        Beta(row[8], row[9]),
    )


def _counts(
    names: Sequence[str], counts: dict[str, list[float]], known: Known, prior: Prior
) -> dict[str, Counts]:
    """Every family's counts: the prior's, drawn toward the panel's own rates (`shrink`
    and `shrink_reports` claims' worth), what the repository knows, and this run's."""
    whole = [sum(row[n] for row in counts.values()) for n in range(_SLOTS)]
    real, false, recall, invention = _parts(whole)
    real, false = prior.real_verdicts + real, prior.false_verdicts + false
    recall, invention = prior.recall + recall, prior.invention + invention
    out = {}
    for name in names:
        r, f, s, i = _parts(counts.get(name, [0.0] * _SLOTS))
        out[name] = Counts(
            real=prior.real_verdicts
            + real.times(prior.shrink)
            + known.real_verdicts.get(name, NO_VERDICTS)
            + r,
            false=prior.false_verdicts
            + false.times(prior.shrink)
            + known.false_verdicts.get(name, NO_VERDICTS)
            + f,
            recall=_toward(prior.recall, recall, prior.shrink_reports)
            + known.recall.get(name, ZERO)
            + s,
            invention=_toward(prior.invention, invention, prior.shrink_reports)
            + known.invention.get(name, ZERO)
            + i,
        )
    return out


def _toward(own: Beta, panel: Beta, weight: float) -> Beta:
    """A family's prior: its own, and `weight` claims' worth at the panel's rate."""
    return own + Beta(weight * panel.mean, weight * (1 - panel.mean))


def _rates(counts: Counts) -> Rates:
    """Point rates from counts, held to the better-than-chance side: a real claim
    confirmed at least MARGIN more often than a false one, reported more often too."""
    real = tuple(_clamped(share) for share in counts.real.shares())
    false = [_clamped(share) for share in counts.false.shares()]
    if false[0] > real[0] - MARGIN:
        spare = false[1] + false[2]
        capped = max(LOW, real[0] - MARGIN)
        false = [capped, *(share * (1 - capped) / spare for share in false[1:])]
    recall = _clamped(counts.recall.mean)
    invention = min(_clamped(counts.invention.mean), max(LOW, recall - MARGIN))
    return Rates(
        real=(real[0], real[1], real[2]),
        false=(false[0], false[1], false[2]),
        recall=recall,
        invention=invention,
    )


def _panel(
    names: Sequence[str],
    data: tuple[dict[str, list[float]], list[list[float]]],
    known: Known,
    prior: Prior,
) -> tuple[Panel, dict[str, Counts]]:
    counts_of, held = data
    counts = _counts(names, counts_of, known, prior)
    shares = tuple(
        _clamped((p + k + Beta(real, false)).mean)
        for p, k, (real, false) in zip(prior.real, known.real, held, strict=True)
    )
    fallback = _rates(_counts(["?"], counts_of, Known(), prior)["?"])
    panel = Panel(real=shares, rates={n: _rates(counts[n]) for n in names}, fallback=fallback)
    return panel, counts


def estimate(
    claims: Sequence[Observed], known: Known | None = None, prior: Prior | None = None
) -> Estimate:
    """The panel's rates and each claim's probability of being real (module docstring);
    `known` and `prior` default to nothing known and DEFAULT_PRIOR."""
    known = known or Known()
    prior = prior or DEFAULT_PRIOR
    names = sorted(
        {f for c in claims for f in (*_seen(c), *(v for v, _ in c.verdicts))}
        | set(known.real_verdicts)
        | set(known.recall)
    )
    read = [_read(c) for c in claims]
    nothing: tuple[dict[str, list[float]], list[list[float]]] = ({}, [[0.0, 0.0]] * AGREEMENTS)
    panel, counts = _panel(names, nothing, known, prior)
    # The start reads the reports alone: the judges' rates are first measured on what
    # the reports say the claims are, so that "real" is anchored where reports put it.
    posteriors = _posteriors([_read(c, judged=False) for c in claims], panel, known)
    for _ in range(MAX_ROUNDS):
        panel, counts = _panel(names, _soft(read, posteriors), known, prior)
        moved = _posteriors(read, panel, known)
        done = all(abs(a - b) < TOLERANCE for a, b in zip(moved, posteriors, strict=True))
        posteriors = moved
        if done:
            break
    return Estimate(
        panel=panel,
        posteriors=tuple(posteriors),
        counts=counts,
        data=_tally(*_soft(read, posteriors)),
        known=known,
    )


__all__ = ["Beta", "Known", "Prior", "Verdicts", "known_counts", "logit", "probability"]
