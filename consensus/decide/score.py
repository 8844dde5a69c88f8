"""SCORE: clusters → consensus, or disputed (for verification, or listed only).

The voter is the provider family: a provider counts once however many
of its personas reported a cluster, and one model reached through two gateways is one
family. For a cluster on `path`:

- votes_for: distinct families among the cluster's members;
- votes_of: families that returned a valid review of a chunk holding `path` (`coverage`),
  plus any member family missing from coverage: a family that reported the finding did
  review the file, so it is counted on both sides rather than inflating agreement past 1;
- agreement: votes_for / votes_of, rounded to 4 decimals;
- needed: `needed_votes(votes_of, threshold)`.

Failed providers abstain: they are in neither count, so they lower the denominator instead
of counting against the finding.

Status: votes_for ≥ needed is CONSENSUS. A consensus finding at or above
`check_min_severity` that not every family reviewing its file reported (votes_for <
votes_of) also needs verification: three models can agree on something wrong, and a wrong
severe claim costs most (it can request changes). Verify then posts it unless the
judges reject it; a unanimous one is posted as it is.

Grounding comes first (review/grounding.py): a cluster whose reports do not hold at its
place (`Cluster.ungrounded`) is not posted on consensus alone. However many families
agree, it is UNVERIFIED and needs verification, unanimous or not: verify posts it only
when the judges verify it, and the summary lists it with its reason otherwise. A
consensus finding no model quoted evidence for, that not every family reported, needs
verification too (posted unless the judges reject it): votes alone do not post a claim
nobody showed the code of.

Anything else is disputed and UNVERIFIED for now;
it needs verification when its severity is at least `verify_min_severity`, or HIGH or
above whatever the setting (a severe disputed finding is never left unchecked), or when at
least two families reported it: only low-severity singletons are merely listed. In the
quality simulation, most low-severity findings two families agree on are real, and
checking them costs under one call per PR. The verify phase replaces the status of those it
checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from consensus.decide.quotes import needles
from consensus.model.base import FindingSource, Severity, Status
from consensus.model.findings import Cluster, ScoredCluster

MIN_AGREEING_FAMILIES = 2
# Guards ceil() against float error: 0.75 × 4 may come out as 3.0000000000000004.
_EPSILON = 1e-9


def needed_votes(families: int, threshold: float) -> int:
    """Agreeing families needed for consensus among `families` that reviewed the file.

    ceil(threshold × families), never fewer than two: at 0.75, 2 → 2, 3 → 3, 4 → 3, 5 → 4.
    With fewer than two families consensus is impossible (the result exceeds `families`).
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    if families < 0:
        raise ValueError(f"families must be >= 0, got {families}")
    return max(MIN_AGREEING_FAMILIES, math.ceil(threshold * families - _EPSILON))


def score(
    clusters: Sequence[Cluster],
    coverage: Mapping[str, frozenset[str]],
    *,
    threshold: float,
    verify_min_severity: Severity,
    check_min_severity: Severity,
) -> list[ScoredCluster]:
    """Votes, agreement and status of every cluster, in the clusters' order.

    `coverage` maps a path to the families with a valid review of a chunk holding it.
    """
    return [
        _score_one(
            cluster,
            coverage.get(cluster.path, frozenset()),
            threshold,
            verify_min_severity,
            check_min_severity,
        )
        for cluster in clusters
    ]


def _score_one(
    cluster: Cluster,
    covered: frozenset[str],
    threshold: float,
    verify_min_severity: Severity,
    check_min_severity: Severity,
) -> ScoredCluster:
    families = cluster.families
    votes_for = len(families)
    votes_of = len(covered | families)
    needed = needed_votes(votes_of, threshold)
    tally = f"{votes_for} of {votes_of}"
    if votes_for >= needed and cluster.ungrounded:
        status, verify = Status.UNVERIFIED, True
        reason = f"{tally} families agree; ungrounded: {cluster.ungrounded}; needs verification"
    elif votes_for >= needed:
        status = Status.CONSENSUS
        verify = votes_for < votes_of and cluster.severity.at_least(check_min_severity)
        reason = f"{tally} families agree"
        if verify:
            reason += f"; {cluster.severity.value} and not unanimous: needs verification"
        elif votes_for < votes_of and not _quoted(cluster):
            verify = True
            reason += "; no evidence quoted and not unanimous: needs verification"
    elif (
        cluster.severity.at_least(verify_min_severity)
        or cluster.severity.at_least(Severity.HIGH)
        or votes_for >= MIN_AGREEING_FAMILIES
    ):
        status, verify = Status.UNVERIFIED, True
        reason = f"disputed: {tally} families; needs verification"
    else:
        status, verify = Status.UNVERIFIED, False
        reason = f"low severity, {tally} families"
    if cluster.ungrounded and status is Status.UNVERIFIED and votes_for < needed:
        reason += f"; ungrounded: {cluster.ungrounded}"
    return ScoredCluster(
        cluster=cluster,
        votes_for=votes_for,
        votes_of=votes_of,
        agreement=round(votes_for / votes_of, 4) if votes_of else 0.0,
        needed=needed,
        status=status,
        reason=reason,
        needs_verification=verify,
        reviewers=covered | cluster.model_families,
    )


def _quoted(cluster: Cluster) -> bool:
    """Whether a model quoted evidence for it, or it is not the models' claim alone (the
    scan's and the analyzers' findings are facts of the diff)."""
    if cluster.from_scan or cluster.analyzer_families:
        return True
    return any(needles(m.evidence) for m in cluster.members if m.source is FindingSource.MODEL)
