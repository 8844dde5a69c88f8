"""What people decided about our findings, kept in the PR's state. Pure.

- **Labels**: a person's 👍 (`+1`) or 👎 (`-1`) on our inline comment of a finding, read at
  the next run: one label per person and finding (their latest), with when they reacted.
  Bots' reactions and ours are not labels.
- **Outcomes**, when the PR closes: every finding we posted (inline or in the summary) is
  `dismissed` (by `/consensus dismiss`, by a maintainer's reply, or by a 👎 from a person
  with write access), `fixed` (a later run no longer reported it where its lines changed,
  or a "fixed" check found it gone), or `left` as it was. Each carries who reported it
  (families, personas) and who judged it (families and verdicts), for the learnings: from
  the finding's record, or, once a push fixed it and the record is gone, from what the
  tracked finding kept of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from consensus.ports import HostReaction
from consensus.publish.decided import MAX_LABELS, FindingOutcome, JudgeNote, Label, OutcomeKind
from consensus.publish.records import credited_families, judge_notes
from consensus.publish.state import MAX_RECORDS, FindingRecord, PublishState, TrackedFinding
from consensus.render.untrusted import is_login

LABELS = {"+1": "+1", "-1": "-1"}  # GitHub's reaction contents for 👍 and 👎


def labels_from(
    state: PublishState, reactions: Mapping[str, Sequence[HostReaction]], ours: frozenset[str]
) -> tuple[Label, ...]:
    """The state's labels with the reactions read now (fingerprint → reactions on our inline
    comment of it): a person's latest 👍/👎 per finding replaces their earlier one."""
    kept: dict[tuple[str, str], Label] = {(x.fingerprint, x.by.lower()): x for x in state.labels}
    for fingerprint, found in reactions.items():
        for reaction in found:
            content = LABELS.get(reaction.content)
            login = reaction.user
            if content is None or reaction.user_is_bot or not is_login(login):
                continue
            if login.lower() in ours:
                continue
            kept[(fingerprint, login.lower())] = Label(
                fingerprint=fingerprint,
                content="+1" if content == "+1" else "-1",
                by=login,
                at=reaction.created_at[:40],
            )
    labels = sorted(kept.values(), key=lambda x: (x.fingerprint, x.by.lower()))
    return tuple(labels[-MAX_LABELS:])


def downvoters(state: PublishState) -> frozenset[str]:
    """Who gave a 👎: their permission decides whether it dismisses (asked at close)."""
    return frozenset(x.by for x in state.labels if x.content == "-1")


def close_outcomes(state: PublishState, *, writers: frozenset[str]) -> tuple[FindingOutcome, ...]:
    """The outcome of every finding the PR's runs posted (`writers`: who of the 👎-givers
    has write access)."""
    records = {r.fingerprint: r for r in state.records}
    for workflow in state.workflows:
        records.update({r.fingerprint: r for r in workflow.records})
    tracked = [*state.findings, *(t for w in state.workflows for t in w.findings)]
    outcomes: dict[str, FindingOutcome] = {}
    for finding in tracked:
        if finding.fingerprint in outcomes:
            continue
        record = records.get(finding.fingerprint)
        dismissal = state.dismissal(finding.fingerprint)
        down = next(
            (
                x
                for x in state.labels
                if x.fingerprint == finding.fingerprint and x.content == "-1" and x.by in writers
            ),
            None,
        )
        by, reason = "", ""
        outcome: OutcomeKind
        if dismissal is not None:
            outcome, by, reason = "dismissed", dismissal.by, dismissal.reason
        elif down is not None:
            outcome, by = "dismissed", down.by  # no reason given: never a suppression
        elif finding.resolved and finding.resolved_reason == "fixed":
            outcome = "fixed"
        else:
            outcome = "left"
        families, personas, judges = _credit(finding, record)
        outcomes[finding.fingerprint] = FindingOutcome(
            fingerprint=finding.fingerprint,
            id=finding.id,
            path=finding.path,
            category=record.category if record else finding.category,
            title=finding.title,
            outcome=outcome,
            families=families,
            personas=personas,
            judges=judges,
            by=by,
            reason=reason,
        )
    return tuple(list(outcomes.values())[:MAX_RECORDS])


Credit = tuple[tuple[str, ...], tuple[str, ...], tuple[JudgeNote, ...]]


def _credit(finding: TrackedFinding, record: FindingRecord | None) -> Credit:
    """Who reported and who judged a finding: its record of the latest run when there is
    one (a `/consensus verify` since it was posted adds judges), else what the tracked
    finding kept (a finding a push fixed has no record in the latest run). A finding
    tracked by an earlier version without either names no one."""
    if record is not None and record.members:
        families = credited_families(record.members)
        checked = record.verification
        judges = judge_notes(checked.votes) if checked is not None else ()
        return families, tuple(sorted(set(record.personas))), judges
    return finding.families, finding.personas, finding.judges
