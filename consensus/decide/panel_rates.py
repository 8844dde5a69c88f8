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
  confirm a false one. Asked again about a claim, its later answers are its first one
  repeated with its repeat rate, else fresh answers (decide/panel_repeats.py): one family
  is one judge, and its repeats say only what they add to its first answer.

A claim's log-odds of being real (`Estimate.belief`) is the share of real claims among
those as large a share of their file's reviewers reported (models share errors, so
agreement is worth what the run shows it is worth, not what independent reporters would
make it), plus each reviewing
family's report or silence weighed by how much more (or less) telling that family's is
than the panel's average, plus each judge family's first verdict weighed by its
likelihood ratio, and each later answer by its own. Given the rates, every claim's
probability follows; given the claims' probabilities, every rate is a ratio of soft
counts. EM alternates the two from a start set by the priors alone, until no claim's
probability moves by more than TOLERANCE.

Every rate has a prior, as pseudo-counts, and what the repository knows is added to it
(decide/panel_prior.py); the counts and the point rates they give are
decide/panel_counts.py's. A family's rates are drawn toward the panel's (`Prior.shrink`
claims' worth of the other families' verdicts): a family that judged four false claims
says little alone.

A model of votes is symmetric in its two classes (every judge always wrong fits as well
as every judge always right): judges are assumed to do better than chance (a real claim
confirmed more often than a false one) and reporters to report real
claims more often than false ones, which, with the start from the priors, keeps the
estimate where "real" means real. What no model of
votes can see is a shared blind spot: an invention that convinces every judge looks, to
the votes, like a real claim. Only labels show it.

A family's grounded verdicts (it cited lines, and every citation held) are a judge of
their own, under the family's grounded key (model/history.GROUNDED; decide/evidence.judge_of
chooses): a family may rubber-stamp blind and refute once it has read the code. The key
starts from the same prior as every judge, so nothing assumes that reading helps, and is
drawn toward the panel's rates like any family (the same `shrink`: three claims' worth,
which a few grounded verdicts outweigh). It judges and never reports, so the panel's report
averages leave it out, and the history keeps its counts on its family (`FamilyTally.grounded`).

Pure and deterministic: the same claims and votes give the same estimate, to the last bit
(families and claims are read in a fixed order; no randomness, no clock).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consensus.decide.panel_counts import (
    PseudoCounts,
    Rates,
    clamped,
    family_counts,
    rates_of,
)
from consensus.decide.panel_prior import (
    DEFAULT_PRIOR,
    VERDICTS,
    Beta,
    Known,
    Prior,
    Verdicts,
    known_counts,
)
from consensus.decide.panel_repeats import fresh_share
from consensus.model.base import VerdictKind
from consensus.model.history import (
    AGREEMENTS,
    ClaimTally,
    FamilyTally,
    PanelTally,
    SoftCounts,
    agreement,
    split_key,
)

TOLERANCE = 1e-7
MAX_ROUNDS = 500
LABEL_WEIGHT = 20.0  # claims' worth of the estimate's own precision beside a reporter's labels


@dataclass(frozen=True)
class Observed:
    """One claim as the estimate reads it: the families that reported it, those that
    reviewed its file (reporters included), each independent judge family's first verdict,
    and the later answers of families asked again (family, its first verdict, this one)."""

    reporters: frozenset[str]
    reviewers: frozenset[str]
    verdicts: tuple[tuple[str, VerdictKind], ...] = ()
    repeats: tuple[tuple[str, VerdictKind, VerdictKind], ...] = ()


@dataclass(frozen=True)
class PointRates:
    """Point rates of every family and of the claims: what the E-step reads."""

    real: tuple[float, ...]  # share of real claims, by reporting families (1, 2, 3, 4+)
    rates: Mapping[str, Rates]
    fallback: Rates  # a family the run never saw: the prior's (and the panel's) rates
    averages: tuple[float, float] = field(init=False)  # the panel's (silent, reported)

    def __post_init__(self) -> None:
        # Reporters only: a family's grounded key judges, it never reports.
        rates = [r for n, r in self.rates.items() if not split_key(n)[1]] or [self.fallback]
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

    panel: PointRates
    posteriors: tuple[float, ...]
    counts: Mapping[str, PseudoCounts]
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
        """The claim's log-odds after its reports, each family's first verdict and the
        later answers of families asked again."""
        level = self.start(claim) + sum(self.weight(f, c) for f, c in claim.verdicts)
        return level + sum(self.family(f).again(first, said) for f, first, said in claim.repeats)


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def probability(log_odds: float) -> float:
    if log_odds < -700:
        return 0.0
    return 1 / (1 + math.exp(-log_odds))


def _seen(claim: Observed) -> list[str]:
    return sorted(claim.reviewers | claim.reporters)


def _start(claim: Observed, panel: PointRates, known: Known) -> float:
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
            level += logit(clamped(said)) - logit(clamped(implied))
    return level


def _implied_precision(share: float, family: Rates, panel: PointRates) -> float:
    """What the estimate holds of a claim this family reported, before anything else."""
    return probability(logit(share) + family.report(True) - panel.average(True))


@dataclass(frozen=True)
class _Read:
    """A claim as the EM loop reads it, worked out once: its agreement bucket, each
    reviewing family with whether it reported, each verdict's family and index."""

    bucket: int
    seen: tuple[tuple[str, bool], ...]
    verdicts: tuple[tuple[str, int], ...]
    repeats: tuple[tuple[str, int, int], ...]


def _read(claim: Observed, judged: bool = True) -> _Read:
    at = VERDICTS.index
    return _Read(
        bucket=agreement(len(claim.reporters), len(claim.reviewers | claim.reporters)),
        seen=tuple((f, f in claim.reporters) for f in _seen(claim)),
        verdicts=tuple((f, at(v)) for f, v in claim.verdicts) if judged else (),
        repeats=tuple((f, at(a), at(b)) for f, a, b in claim.repeats) if judged else (),
    )


def _posteriors(claims: Sequence[_Read], panel: PointRates, known: Known) -> list[float]:
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
        for name, first, said in claim.repeats:
            level += panel.family(name).repeats[first][said]
        out.append(probability(level))
    return out


def _start_labelled(claim: _Read, panel: PointRates, known: Known, level: float) -> float:
    share = panel.real[claim.bucket]
    for name, reported in claim.seen:
        labels = known.precision.get(name)
        if labels is not None and reported:
            implied = _implied_precision(share, panel.family(name), panel)
            said = (labels + Beta(LABEL_WEIGHT * implied, LABEL_WEIGHT * (1 - implied))).mean
            level += logit(clamped(said)) - logit(clamped(implied))
    return level


# The names of `SoftCounts` the EM loop adds to: a verdict's on real and on false claims (in
# VERDICTS order), a report's or a silence's (by whether the family reported). A name that
# is not one of its fields fails loudly where `_soft` makes its `SoftCounts`.
_REAL = tuple(f"{v.value}_real" for v in VERDICTS)
_FALSE = tuple(f"{v.value}_false" for v in VERDICTS)
_REPORTS = (("silent_real", "silent_false"), ("reported_real", "reported_false"))
_EMPTY = SoftCounts()._asdict  # a family's counts to add to, by name


def _soft(
    claims: Sequence[_Read], posteriors: Sequence[float], panel: PointRates
) -> tuple[dict[str, SoftCounts], list[list[float]]]:
    """This run's soft counts of each family, each claim split between real and false by
    its probability, and each later answer between a copy of the family's first one and a
    fresh answer by `panel`'s repeat rates (decide/panel_repeats.py); and of the claims,
    real and false by agreement."""
    counts: defaultdict[str, dict[str, float]] = defaultdict(_EMPTY)
    shares = [[0.0, 0.0] for _ in range(AGREEMENTS)]
    for claim, p in zip(claims, posteriors, strict=True):
        q = 1 - p
        bucket = shares[claim.bucket]
        bucket[0] += p
        bucket[1] += q
        for name, reported in claim.seen:
            row = counts[name]
            on_real, on_false = _REPORTS[reported]
            row[on_real] += p
            row[on_false] += q
        for name, verdict in claim.verdicts:
            row = counts[name]
            row[_REAL[verdict]] += p
            row[_FALSE[verdict]] += q
        for name, first, said in claim.repeats:
            row = counts[name]
            rates = panel.family(name)
            real = p * fresh_share(rates.real, rates.repeat, first, said)
            false = q * fresh_share(rates.false, rates.repeat, first, said)
            row[_REAL[said]] += real
            row[_FALSE[said]] += false
            row["fresh"] += real + false
            row["repeated"] += 1 - real - false
    return {name: SoftCounts(**row) for name, row in counts.items()}, shares


def _tally(counts: Mapping[str, SoftCounts], shares: list[list[float]]) -> PanelTally:
    """This run's soft counts as the history keeps them: a family's grounded verdicts
    (counted under its grounded key here) beside its blind ones and its reports."""
    families: dict[str, FamilyTally] = {}
    for name in sorted(counts):
        family, grounded = split_key(name)
        judged = counts[name].judge()
        was = families.get(family, FamilyTally())
        if grounded:
            families[family] = was.model_copy(update={"grounded": judged})
            continue
        families[family] = FamilyTally(
            judge=judged, grounded=was.grounded, reporter=counts[name].reporter()
        )
    claims = tuple(ClaimTally(real=real, false=false) for real, false in shares)
    return PanelTally(runs=1, claims=claims, families=families)


def _panel(
    names: Sequence[str],
    data: tuple[dict[str, SoftCounts], list[list[float]]],
    known: Known,
    prior: Prior,
) -> tuple[PointRates, dict[str, PseudoCounts]]:
    counts_of, held = data
    counts = family_counts(names, counts_of, known, prior)
    shares = tuple(
        clamped((p + k + Beta(real, false)).mean)
        for p, k, (real, false) in zip(prior.real, known.real, held, strict=True)
    )
    fallback = rates_of(family_counts(["?"], counts_of, Known(), prior)["?"])
    panel = PointRates(
        real=shares, rates={n: rates_of(counts[n]) for n in names}, fallback=fallback
    )
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
    nothing: tuple[dict[str, SoftCounts], list[list[float]]] = ({}, [[0.0, 0.0]] * AGREEMENTS)
    panel, counts = _panel(names, nothing, known, prior)
    # The start reads the reports alone: the judges' rates are first measured on what
    # the reports say the claims are, so that "real" is anchored where reports put it.
    posteriors = _posteriors([_read(c, judged=False) for c in claims], panel, known)
    for _ in range(MAX_ROUNDS):
        panel, counts = _panel(names, _soft(read, posteriors, panel), known, prior)
        moved = _posteriors(read, panel, known)
        done = all(abs(a - b) < TOLERANCE for a, b in zip(moved, posteriors, strict=True))
        posteriors = moved
        if done:
            break
    return Estimate(
        panel=panel,
        posteriors=tuple(posteriors),
        counts=counts,
        data=_tally(*_soft(read, posteriors, panel)),
        known=known,
    )


__all__ = [
    "Beta",
    "Known",
    "Prior",
    "PseudoCounts",
    "Rates",
    "Verdicts",
    "known_counts",
    "logit",
    "probability",
]
