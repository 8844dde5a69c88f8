"""A person's decision about one of our findings, as the summary's state keeps it. Pure.

A finding is dismissed by `/consensus dismiss` or by a maintainer's reply in its thread:
the dismissal (who, why, how) is kept, its tracked entries are resolved as dismissed, and
later runs on the PR leave it out. A finding checked on the current head and gone is
resolved as fixed.
"""

from __future__ import annotations

from typing import Literal

from consensus.publish.state import MAX_REASON, Dismissal, PublishState, TrackedFinding


def dismissed(
    state: PublishState,
    fingerprint: str,
    *,
    by: str,
    reason: str,
    finding: tuple[str, str],
    via: Literal["command", "reply"],
) -> PublishState:
    """`state` with the finding of `fingerprint` dismissed by `by`; `finding` is its id and
    title as the summary shows them (an id may be "" when the state lost it)."""
    finding_id, title = finding
    dismissal = Dismissal(
        fingerprint=fingerprint,
        id=finding_id,
        title=title[:200],
        by=by,
        reason=reason[:MAX_REASON],
        via=via,
    )
    kept = tuple(d for d in state.dismissed if d.fingerprint != fingerprint)
    findings = resolved(state.findings, fingerprint, "dismissed")
    return state.model_copy(update={"dismissed": (*kept, dismissal), "findings": findings})


def resolved(
    findings: tuple[TrackedFinding, ...], fingerprint: str, why: str
) -> tuple[TrackedFinding, ...]:
    """The tracked findings with those of `fingerprint` resolved, for `why`."""
    return tuple(
        t.model_copy(update={"resolved": True, "resolved_reason": why})
        if t.fingerprint == fingerprint
        else t
        for t in findings
    )
