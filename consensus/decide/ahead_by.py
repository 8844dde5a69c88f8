"""First-to-ahead-by-k: the symmetric rule, kept as `inspector.rule: ahead-by-k`.

The rule (MAKER's first-to-ahead-by-k): the inspector's verdict is the first vote; then
independent verifier calls, rotating across the voting panel, until `confirmed` leads
`refuted + uncertain` by k (verified: posted, marked verified) or trails by k (rejected:
kept for audit, never posted), capped at `max_votes` (undecided: summary only). The
first k votes go out in parallel, then one at a time. `uncertain` counts against: the
phase fails closed.

Where the evidence is weakest the lead to verify is wider (`lead_for`): a finding that
only one provider family reported (most of them are that model's inventions) is verified
only when `confirmed` leads by k + `inspector.single_family_extra_lead` (default 1), and
rejected, as any other, when it trails by k. A wrong "verified" posts a comment; a wrong
"rejected" keeps a finding in the report: so the extra lead is on the side that posts.
Two independent wrong confirmations in a row happen to about 1 invention in 180 at
verifier accuracy 0.85; three, to about 1 in 2,000. The cap is 2 × the lead to verify + 3.

A failed call uses up a vote slot but counts for neither side, so an outage can only ever
leave a finding undecided. A malformed or over-long verdict is discarded and asked again
(red-flagging), at most `RESAMPLES` times per slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.claim import Claim
from consensus.model.findings import Cluster, Vote
from consensus.settings.config import InspectorSettings

STRICT_K = 3  # security and critical findings need a wider lead


def ahead_by_for(cluster: Cluster | Claim, k: int) -> int:
    """k for this finding: at least 3 for security and critical findings."""
    strict = cluster.category is Category.SECURITY or cluster.severity is Severity.CRITICAL
    return max(k, STRICT_K) if strict else k


@dataclass(frozen=True)
class Lead:
    """How far ahead `confirmed` must be to verify a finding, and `against` to reject it."""

    verify: int
    reject: int


def lead_for(
    cluster: Cluster | Claim, inspector: InspectorSettings, *, self_judged: bool = False
) -> Lead:
    """k by `ahead_by_for`, one more when reporters judge their own claim; and to verify a
    finding that only one provider family reported, `single_family_extra_lead` more."""
    k = ahead_by_for(cluster, inspector.ahead_by) + self_judged
    single = len(cluster.model_families) == 1
    return Lead(verify=k + (inspector.single_family_extra_lead if single else 0), reject=k)


def max_votes_for(k: int, configured: int | None) -> int:
    return configured if configured is not None else 2 * k + 3


def tally_votes(votes: Sequence[Vote]) -> tuple[int, int, int]:
    """(confirmed, refuted, uncertain) over the votes that were counted."""
    verdicts = [vote.verdict for vote in votes]
    return (
        verdicts.count(VerdictKind.CONFIRMED),
        verdicts.count(VerdictKind.REFUTED),
        verdicts.count(VerdictKind.UNCERTAIN),
    )


def decide(votes: Sequence[Vote], lead: Lead, cap: int) -> Status | None:
    """VERIFIED, REJECTED or UNDECIDED once the rule says so; None while voting goes on."""
    confirmed, refuted, uncertain = tally_votes(votes)
    if confirmed - (refuted + uncertain) >= lead.verify:
        return Status.VERIFIED
    if (refuted + uncertain) - confirmed >= lead.reject:
        return Status.REJECTED
    if len(votes) >= cap:
        return Status.UNDECIDED
    return None
