"""A claim judged: what the judges of one claim decided, and what that makes of the
finding (`settled`), whether it is a live cluster or a recorded one."""

from __future__ import annotations

from consensus.model.base import FindingSource, Frozen, Status
from consensus.model.claim import Claim
from consensus.model.findings import ScoredCluster, Verification


def claim_of(item: ScoredCluster) -> Claim:
    """What the judges of a live cluster are asked about."""
    cluster = item.cluster
    models = [m for m in cluster.members if m.source is FindingSource.MODEL]
    evidence = next((m.evidence for m in models if m.evidence), None)
    return Claim(
        fingerprint=cluster.fingerprint,
        path=cluster.path,
        line=cluster.line,
        end_line=cluster.end_line,
        title=cluster.title,
        body=cluster.body,
        evidence=evidence,
        category=cluster.category,
        severity=cluster.severity,
        families=frozenset(m.family for m in models),
        providers=tuple(sorted({m.provider for m in models})),
        scanned=cluster.from_scan,
        reviewing=item.votes_of,
        reviewers=item.reviewers,  # model families only: the scan reviews nothing
        ungrounded=cluster.ungrounded,
    )


class Judgement(Frozen):
    """What the judges of one claim decided (`outcome` None: stopped before the rule
    decided, by the budget or by failing judges), and the record behind it."""

    outcome: Status | None
    verification: Verification
    reason: str


def settled(
    status: Status, needs_verification: bool, judgement: Judgement, agreed: str = ""
) -> tuple[Status, str]:
    """The status and reason of a finding of status `status` once judged. A consensus
    finding stays consensus unless the votes reject it (checked like any other claim, from
    its own start: an undecided check, or one the budget stopped, leaves it as consensus
    made it); a disputed one is posted only when verified."""
    outcome = judgement.outcome
    new = Status.UNVERIFIED if outcome is None else outcome
    kept = new is Status.VERIFIED or (
        (status is Status.CONSENSUS or not needs_verification) and new is not Status.REJECTED
    )
    if status is Status.CONSENSUS and kept:
        return Status.CONSENSUS, f"{agreed}; {judgement.reason}" if agreed else judgement.reason
    return new, judgement.reason
