"""A report's finding and what the summary's state keeps of it, one conversion each way:

- `finding_record` / `report_finding`: a finding of the latest run and its record (what
  `explain` shows, `verify` asks about and a later run carries), read back as its run
  reported it; within them, `verification_note` and `_verification`: a finding's
  verification and its note, both ways (a `/consensus verify` writes its note too);
- `tracked_finding`: a finding a run published, with who reported and who judged it, kept
  after its record is gone (a push fixed it) so that its outcome is credited to them.

Texts are cut to the state's limits (publish/state.py). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from consensus.model.base import FindingSource
from consensus.model.findings import Verification, Vote
from consensus.model.report import FindingMember, ReportFinding, Votes
from consensus.publish.decided import JudgeNote
from consensus.publish.state import (
    MAX_REASON,
    MAX_RECORD_BODY,
    MAX_RECORDS,
    FindingRecord,
    MemberNote,
    TrackedFinding,
    VerificationNote,
    VoteNote,
    cut,
)


def _verification(note: VerificationNote) -> Verification:
    """A verification as its run made it, read back from the state."""
    return Verification(
        confirmed=note.confirmed,
        refuted=note.refuted,
        uncertain=note.uncertain,
        ahead_by=note.ahead_by,
        votes=tuple(
            Vote(
                model=v.model,
                family=v.family,
                role=v.role,
                verdict=v.verdict,
                reason=v.reason,
                self_vote=v.self_vote,
            )
            for v in note.votes
        ),
        note=note.note,
        belief=note.belief,
    )


def verification_note(counts: Verification, *, requested_by: str = "") -> VerificationNote:
    """What the state keeps of a finding's verification (reasons cut to `MAX_REASON`)."""
    return VerificationNote(
        confirmed=counts.confirmed,
        refuted=counts.refuted,
        uncertain=counts.uncertain,
        ahead_by=counts.ahead_by,
        votes=tuple(
            VoteNote(
                model=v.model,
                family=v.family,
                role=v.role,
                verdict=v.verdict,
                reason=cut(v.reason, MAX_REASON),
                self_vote=v.self_vote,
            )
            for v in counts.votes
        ),
        note=cut(counts.note, MAX_REASON),
        requested_by=requested_by,
        belief=counts.belief,
    )


def finding_record(finding: ReportFinding) -> FindingRecord:
    """What the state keeps of one finding of this run (texts cut to the state's limits)."""
    checked = finding.verification
    verification = verification_note(checked) if checked is not None else None
    return FindingRecord(
        id=finding.id,
        fingerprint=finding.fingerprint,
        path=finding.path,
        line=finding.line,
        end_line=max(finding.end_line, finding.line),
        severity=finding.severity,
        category=finding.category,
        title=cut(" ".join(finding.title.split()), 200),
        body=cut(finding.body.strip(), MAX_RECORD_BODY),
        status=finding.status,
        reason=cut(finding.reason, MAX_REASON),
        votes_for=finding.votes.for_,
        votes_of=finding.votes.of,
        providers=tuple(finding.providers),
        personas=tuple(finding.personas),
        members=tuple(
            MemberNote(
                provider=m.provider,
                family=m.family,
                persona=m.persona,
                title=cut(m.title, 200),
                source=m.source,
                rule=m.rule,
            )
            for m in finding.members
        ),
        verification=verification,
        ungrounded=cut(finding.ungrounded or "", MAX_REASON),
    )


def report_finding(
    record: FindingRecord, *, carried_from: str | None = None, moved_from: str | None = None
) -> ReportFinding:
    """A finding as the run that decided it reported it, read back from its record; the
    members' own lines are not kept, so each reads as the finding's line. `moved_from` is
    the diff's to say, not the record's (ingest/moved.py): where its lines were moved from."""
    note = record.verification
    return ReportFinding(
        id=record.id,
        fingerprint=record.fingerprint,
        path=record.path,
        line=record.line,
        end_line=record.end_line,
        severity=record.severity,
        category=record.category,
        title=record.title,
        body=record.body,
        agreement=round(record.votes_for / record.votes_of, 4) if record.votes_of else 0.0,
        votes=Votes(**{"for": record.votes_for, "of": record.votes_of}),
        providers=list(record.providers),
        personas=list(record.personas),
        status=record.status,
        verification=_verification(note) if note is not None else None,
        reason=record.reason,
        members=tuple(
            FindingMember(
                provider=m.provider,
                family=m.family,
                persona=m.persona,
                line=record.line,
                title=m.title,
                source=m.source,
                rule=m.rule,
            )
            for m in record.members
        ),
        carried_from=carried_from,
        moved_from=moved_from,
        ungrounded=record.ungrounded or None,
    )


def tracked_finding(finding: ReportFinding, *, inline: bool, refused: str = "") -> TrackedFinding:
    """What the state keeps of a finding this run published: its place (`refused`: why the
    host refused its inline comment), and who reported and judged it, kept for its outcome
    after the finding's record is gone."""
    checked = finding.verification
    return TrackedFinding(
        fingerprint=finding.fingerprint,
        id=finding.id,
        path=finding.path,
        line=finding.line,
        severity=finding.severity,
        title=" ".join(finding.title.split())[:200],
        inline=inline,
        category=finding.category,
        families=credited_families(finding.members),
        personas=tuple(sorted(set(finding.personas))),
        judges=judge_notes(checked.votes) if checked is not None else (),
        refused=cut(refused, MAX_REASON),
    )


def credited_families(members: Iterable[FindingMember | MemberNote]) -> tuple[str, ...]:
    """Who a finding's outcome is credited to: each reporting family, and an analyzer's
    rule beside the analyzer ("ruff" and "ruff:F821"), so that the learnings count a noisy
    rule apart from the analyzer's other rules (publish/learnings.noisy_rule)."""
    found = list(members)
    names = {m.family for m in found}
    names |= {
        f"{m.family}:{m.rule}" for m in found if m.source is FindingSource.ANALYZER and m.rule
    }
    return tuple(sorted(names))


def judge_notes(votes: Iterable[Vote | VoteNote]) -> tuple[JudgeNote, ...]:
    """Who judged a finding, and how: each vote with a verdict from a named family."""
    return tuple(
        JudgeNote(family=v.family, verdict=v.verdict)
        for v in votes
        if v.verdict is not None and v.family
    )


def finding_records(findings: Sequence[ReportFinding]) -> tuple[FindingRecord, ...]:
    """Records for the first `MAX_RECORDS` findings of this run."""
    return tuple(finding_record(f) for f in findings[:MAX_RECORDS])
