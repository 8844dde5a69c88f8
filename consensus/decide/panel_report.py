"""What a run's estimate says of each family, as the report keeps it: each rate with its 95%
interval, what it rests on here (the claims the family judged, and how the panel decided
them), and the labels and earlier runs behind it (render/estimate_words.py puts it in words)."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.decide.evidence import counted, judge_of
from consensus.decide.panel_rates import Beta, Estimate
from consensus.model.base import Status, VerdictKind
from consensus.model.calibration import Rate, wilson
from consensus.model.findings import Vote
from consensus.model.history import split_key
from consensus.model.panel import FamilyEstimate, PanelEstimate


def rate(value: float, counts: Beta) -> Rate:
    """`value` with the 95% Wilson interval of the counts behind it (soft counts rounded:
    the interval of about that many claims)."""
    n = round(counts.yes + counts.no)
    interval = wilson(min(round(counts.yes), n), n)
    low, high = min(interval.low, value), max(interval.high, value)
    return Rate(value=round(value, 4), low=round(low, 4), high=round(high, 4), n=n)


def panel_estimate(
    estimate: Estimate, judged: Sequence[tuple[Sequence[Vote], Status | None]], claims: int
) -> PanelEstimate:
    """The report's view of `estimate`; `judged`: each judged claim's votes and the status
    the panel gave it."""
    families = []
    for name in sorted(estimate.rates):
        rates = estimate.family(name)
        counts = estimate.counts[name]
        tpr, confirmed_false = counts.real.confirmed, counts.false.confirmed
        tnr = Beta(confirmed_false.no, confirmed_false.yes)  # not confirmed, against confirmed
        reporter = None if split_key(name)[1] else estimate.data.families.get(name)
        reported = Beta(0.0, 0.0)
        if reporter is not None:
            reported = Beta(reporter.reporter.reported_real, reporter.reporter.reported_false)
        reported = reported + estimate.known.precision.get(name, Beta(0.0, 0.0))
        families.append(
            _family(
                name,
                judged,
                tpr=rate(rates.tpr, tpr),
                tnr=rate(rates.tnr, tnr),
                precision=rate(reported.mean if reported.total else 0.0, reported),
                labelled=estimate.known.labelled.get(name, 0),
                pooled=estimate.known.pooled.get(name, 0.0),
            )
        )
    return PanelEstimate(
        families=tuple(families), claims=claims, judged=len(judged), tally=estimate.data.rounded()
    )


def _family(
    name: str,
    judged: Sequence[tuple[Sequence[Vote], Status | None]],
    **rates: object,
) -> FamilyEstimate:
    asked = rejected = refuted = verified = confirmed = 0
    for votes, status in judged:
        mine = [v for v in counted(votes) if judge_of(v) == name and not v.self_vote]
        if not mine:
            continue
        asked += 1
        said = mine[0].verdict is VerdictKind.CONFIRMED
        if status is Status.REJECTED:
            rejected += 1
            refuted += not said
        elif status is Status.VERIFIED:
            verified += 1
            confirmed += said
    return FamilyEstimate.model_validate(
        {
            "family": name,
            "judged": asked,
            "rejected": rejected,
            "refuted_rejected": refuted,
            "verified": verified,
            "confirmed_verified": confirmed,
            **rates,
        }
    )
