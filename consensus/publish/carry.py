"""Decisions carried between runs: the same code gets the same answer. Pure.

A run records in the summary state, for each file it decided (state.py `Decisions`): a
digest of what the models saw of it (its hunks after redaction and path filters, its old
path and status), the head it was decided on, and how many records are its findings; and
a digest of what decided them (`basis`: settings, providers, personas, guidelines, prompts,
workflow, consensus's version). The next run on the PR:

- carries the records of every file whose digest is unchanged, under the same basis, as
  its own decisions: no model is asked again, and each finding keeps its status, votes and
  verifier reasons and names the head it was decided on (`carried_from`);
- reviews the other files, and only those;
- on a fresh look (`/consensus review`, `full-review: true`, a changed basis) decides every
  file again and reports each decision that differs from the one made on the same code
  (`DecisionChange`: "rejected (refuted by openai) on a1b2c3d, now verified (confirmed
  by qwen)") rather than silently posting or withdrawing.

A file counts as decided only when the run could decide it: quorum met, the budget not
exhausted, every provider that was called reviewed it, and no verifier call on its findings
failed. Anything else is decided again by the next run, and so is a file whose records
hold one scan finding twice (what an earlier version posted again after a push elsewhere).
A state is believed only when we wrote it last (thread.py), and is validated field by field
(state.py).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from consensus.decide.evidence import judged_by
from consensus.model.base import Status
from consensus.model.diff import MovedLines, ReviewDiff, moved_from
from consensus.model.findings import Verification
from consensus.model.report import (
    CarriedFiles,
    DecisionChange,
    ProviderReport,
    Quorum,
    Report,
    ReportFinding,
    Stats,
)
from consensus.publish.records import report_finding
from consensus.publish.state import (
    MAX_DECIDED_FILES,
    MAX_RECORDS,
    DecidedFile,
    Decisions,
    FindingRecord,
    PanelNote,
    PublishState,
    VerificationNote,
)

DIGEST_HEX = 32  # 128 bits: a PR author cannot make a new diff that matches an old digest


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:DIGEST_HEX]


def diff_digests(diff: ReviewDiff) -> dict[str, str]:
    """path → digest of what a review of it sees: each reviewable file, and each symlink
    (whose scan findings are decided like a file's)."""
    digests = {f.path: _digest("file", f.model_dump_json()) for f in diff.files}
    for link in diff.links:
        digests.setdefault(link.path, _digest("link", link.model_dump_json()))
    return digests


def decision_basis(parts: Iterable[str]) -> str:
    """The digest of what decides findings besides the diff (the caller lists it)."""
    return _digest("basis", *parts)


def without_paths(diff: ReviewDiff, paths: frozenset[str]) -> ReviewDiff:
    """The diff without what it holds at `paths` (their decisions are carried): their files,
    links, redactions and moved blocks. What is left is the diff of the other files alone,
    so no source of findings finds in it again what a carried decision holds: a carried
    file's redactions left in would make the secret scan report its key once more, without
    the code its fingerprint is made of (so under another fingerprint, posted twice)."""
    return diff.model_copy(
        update={
            "files": tuple(f for f in diff.files if f.path not in paths),
            "links": tuple(link for link in diff.links if link.path not in paths),
            "redactions": tuple(r for r in diff.redactions if r.path not in paths),
            "moved": tuple(m for m in diff.moved if m.path not in paths),
        }
    )


# --------------------------------------------------------------------------- carrying


@dataclass(frozen=True)
class Earlier:
    """A decision an earlier run made on code this run decides again unchanged."""

    record: FindingRecord
    head_sha: str


@dataclass(frozen=True)
class Carry:
    """What this run takes from the state: carried files and their findings, or (on a fresh
    look) the earlier decisions on unchanged code to compare its own with."""

    files: tuple[DecidedFile, ...] = ()
    findings: tuple[ReportFinding, ...] = ()
    rechecked: tuple[DecidedFile, ...] = ()  # unchanged files decided again this run
    earlier: tuple[Earlier, ...] = ()
    panel: tuple[PanelNote, ...] = ()
    families_answered: int = 0
    min_providers: int = 0

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(f.path for f in self.files)

    @property
    def heads(self) -> tuple[str, ...]:
        """The heads the carried decisions were made on, newest first as the state lists."""
        return tuple(dict.fromkeys(f.head_sha for f in self.files))


def plan_carry(
    state: PublishState,
    digests: Mapping[str, str],
    *,
    basis: str,
    fresh: bool,
    moved: Sequence[MovedLines] = (),
) -> Carry:
    """What to carry: every file of the state's decisions whose diff is unchanged and whose
    records are all there, unless this is a fresh look or the basis changed. Each carried
    finding reads as its run reported it, with where its lines were moved from in this
    run's diff (`moved`: a fact of the whole diff, not of the finding's file, so it is
    found again, never kept in the record): code the change only moved stays out of the
    inline review on every run, as it did on the first."""
    decisions = state.decisions
    if decisions is None:
        return Carry()
    records: dict[str, list[FindingRecord]] = {}
    for record in state.records:
        records.setdefault(record.path, []).append(record)
    unchanged = tuple(
        f
        for f in decisions.files
        if digests.get(f.path) == f.digest
        and len(records.get(f.path, ())) == f.findings
        and not _posted_twice(records.get(f.path, ()))
    )
    if fresh or decisions.basis != basis:
        earlier = tuple(Earlier(r, f.head_sha) for f in unchanged for r in records.get(f.path, ()))
        return Carry(rechecked=unchanged, earlier=earlier)
    return Carry(
        files=unchanged,
        findings=tuple(
            report_finding(
                r,
                carried_from=f.head_sha,
                moved_from=moved_from(moved, r.path, r.line, r.end_line),
            )
            for f in unchanged
            for r in records.get(f.path, ())
        ),
        panel=decisions.panel,
        families_answered=decisions.families_answered,
        min_providers=decisions.min_providers,
    )


def _posted_twice(records: Sequence[FindingRecord]) -> bool:
    """Do two of a file's records hold one scan finding (one place, one title)? Earlier
    versions found a carried file's key again, without its code, so under another
    fingerprint: such a file is decided again, once, and the repeat resolved."""
    places = [(r.line, r.end_line, r.title) for r in records if r.found_by_scan]
    return len(places) != len(set(places))


# --------------------------------------------------------------------------- the report


def _order(finding: ReportFinding) -> tuple[int, int, str, int, str]:
    # decide/report.py's order for finding ids: posted first, severity, path, line, title
    posted = 0 if finding.status.posted else 1
    return (posted, -finding.severity.rank, finding.path, finding.line, finding.title)


def merged_findings(
    fresh: Sequence[ReportFinding], carried: Sequence[ReportFinding]
) -> list[ReportFinding]:
    """This run's and the carried findings in one list, numbered in the report's order."""
    ordered = sorted([*fresh, *carried], key=_order)
    return [f.model_copy(update={"id": f"F{n}"}) for n, f in enumerate(ordered, start=1)]


def _stats(findings: Sequence[ReportFinding], base: Stats, clusters: int) -> Stats:
    statuses = Counter(f.status for f in findings)
    return base.model_copy(
        update={
            "clusters": clusters,
            "consensus": statuses[Status.CONSENSUS],
            "verified": statuses[Status.VERIFIED],
            "rejected": statuses[Status.REJECTED],
            "undecided": statuses[Status.UNDECIDED],
            "unverified": statuses[Status.UNVERIFIED],
        }
    )


def carried_report(
    carry: Carry, diff: ReviewDiff, *, run_id: str, threshold: float, workflow: str | None
) -> Report:
    """The report of a run that carried every file: what the deciding runs found, no call."""
    findings = merged_findings((), carry.findings)
    return Report(
        run_id=run_id,
        workflow=workflow,
        findings=findings,
        providers=[
            ProviderReport(model=p.model, family=p.family, status="ok") for p in carry.panel
        ],
        stats=_stats(findings, Stats(), len(findings)),
        quorum=Quorum(
            families_answered=carry.families_answered,
            min_providers=carry.min_providers,
            met=True,
        ),
        threshold=threshold,
        verification="not_needed",
        skipped_files=list(diff.skipped),
        redactions=list(diff.redactions),
    )


def carried_files(carry: Carry, total: int) -> CarriedFiles | None:
    """What the report says of the carried files: how many of `total`, and from which heads."""
    if not carry.files:
        return None
    return CarriedFiles(
        files=len(carry.files),
        of=total,
        heads=list(carry.heads),
        paths=sorted(carry.paths),
    )


# --------------------------------------------------------------------------- the next state


def _decidable(report: Report, path: str) -> bool:
    called = [p for p in report.providers if p.status != "skipped"]
    if not called or any(path not in p.files_seen for p in called):
        return False
    checks = [f.verification for f in report.findings if f.path == path and f.verification]
    return not any(c.budget_stopped or any(v.verdict is None for v in c.votes) for c in checks)


def next_decisions(
    report: Report,
    carry: Carry,
    digests: Mapping[str, str],
    *,
    head_sha: str,
    basis: str,
    fresh_run: bool,
) -> Decisions:
    """The decisions the state carries to the next run: the carried files (still decided on
    their own heads) and the files this run could decide, each with its count of findings.
    `fresh_run`: this run asked the models (else every file was carried)."""
    counts = Counter(f.path for f in report.findings)
    files = [f.model_copy(update={"findings": counts[f.path]}) for f in carry.files]
    panel = list(carry.panel)
    answered, needed = carry.families_answered, carry.min_providers
    if fresh_run and report.quorum.met and not report.budget_exhausted:
        files += [
            DecidedFile(path=path, digest=digest, head_sha=head_sha, findings=counts[path])
            for path, digest in digests.items()
            if path not in carry.paths
            and counts[path] <= MAX_RECORDS  # more than the state keeps: never carried
            and _decidable(report, path)
        ]
        for provider in report.providers:
            note = PanelNote(model=provider.model, family=provider.family)
            if provider.status == "ok" and note not in panel:
                panel.append(note)
        answered = max(answered, report.quorum.families_answered)
        needed = report.quorum.min_providers
    return Decisions(
        basis=basis,
        families_answered=answered,
        min_providers=needed,
        panel=tuple(panel[:50]),
        files=tuple(files[:MAX_DECIDED_FILES]),
    )


# --------------------------------------------------------------------------- a fresh look


def decision_text(
    status: Status, votes_for: int, votes_of: int, checked: Verification | VerificationNote | None
) -> str:
    """How a finding was decided, in a few words: "verified (confirmed by openai and
    google)", "consensus 3/4", and "consensus 3/4 · confirmed by qwen" for a consensus the
    judges checked before it was posted."""
    agreed = f"{status.value} {votes_for}/{votes_of}"
    said = judged_by(checked.votes) if checked is not None else ""
    if not said:
        return agreed
    return f"{agreed} · {said}" if status is Status.CONSENSUS else f"{status.value} ({said})"


def decision_changes(findings: Sequence[ReportFinding], carry: Carry) -> list[DecisionChange]:
    """Each decision of this run on unchanged code that differs from the earlier one: a
    different status, a finding no longer reported, or one reported only now."""
    heads = {f.path: f.head_sha for f in carry.rechecked}
    before = {e.record.fingerprint: e for e in carry.earlier}
    changes: list[DecisionChange] = []
    now = set()
    for finding in findings:
        if finding.path not in heads:
            continue
        now.add(finding.fingerprint)
        after = decision_text(
            finding.status, finding.votes.for_, finding.votes.of, finding.verification
        )
        earlier = before.get(finding.fingerprint)
        if earlier is not None and earlier.record.status is finding.status:
            continue
        changes.append(
            DecisionChange(
                fingerprint=finding.fingerprint,
                id=finding.id,
                path=finding.path,
                line=finding.line,
                title=finding.title,
                before=_record_text(earlier.record) if earlier else "not reported",
                before_head=earlier.head_sha if earlier else heads[finding.path],
                after=after,
            )
        )
    for earlier in carry.earlier:
        record = earlier.record
        if record.fingerprint not in now:
            changes.append(
                DecisionChange(
                    fingerprint=record.fingerprint,
                    id="",
                    path=record.path,
                    line=record.line,
                    title=record.title,
                    before=_record_text(record),
                    before_head=earlier.head_sha,
                    after="not reported",
                )
            )
    return changes


def _record_text(record: FindingRecord) -> str:
    return decision_text(record.status, record.votes_for, record.votes_of, record.verification)


# --------------------------------------------------------------------------- the entry point


@dataclass(frozen=True)
class Carried:
    """What a run takes over from the previous state, and what it still reviews."""

    carry: Carry
    rest: ReviewDiff  # the diff without the carried files: what the models are asked about
    digests: Mapping[str, str]
    basis: str

    @property
    def asks(self) -> bool:
        """Does this run ask the models at all (else every file's decisions are carried)?"""
        return bool(self.rest.files or self.rest.links or not self.carry.files)

    def report(
        self,
        fresh: Report | None,
        diff: ReviewDiff,
        *,
        run_id: str,
        threshold: float,
        workflow: str | None,
        notes: Sequence[str] = (),
    ) -> Report:
        """The run's report, built once: this run's findings (`fresh`; None when it asked no
        model, then named `run_id`) with the carried ones, each decision that differs from
        the earlier one on the same code, what was carried, and the diff's `notes`."""
        carry = self.carry
        if fresh is None:
            base = carried_report(
                carry, diff, run_id=run_id, threshold=threshold, workflow=workflow
            )
            findings, stats = base.findings, base.stats
        else:
            base, findings, stats = fresh, fresh.findings, fresh.stats
            if carry.findings or carry.files:
                findings = merged_findings(fresh.findings, carry.findings)
                stats = _stats(findings, fresh.stats, fresh.stats.clusters + len(carry.findings))
        return base.model_copy(
            update={
                "findings": findings,
                "stats": stats,
                "decision_changes": decision_changes(findings, carry),
                "carried": carried_files(carry, len(self.digests)),
                "redactions": list(diff.redactions),  # the carried files' too
                "notes": [*base.notes, *notes],
            }
        )

    def decisions(self, report: Report, *, head_sha: str) -> Decisions:
        """What the state carries to the next run."""
        return next_decisions(
            report,
            self.carry,
            self.digests,
            head_sha=head_sha,
            basis=self.basis,
            fresh_run=self.asks,
        )


def carry_forward(state: PublishState, diff: ReviewDiff, *, basis: str, fresh: bool) -> Carried:
    """The one entry point: from the previous state (its decisions) and this run's diff, what
    is carried and what is left to review. `fresh`: decide every file again, and compare."""
    digests = diff_digests(diff)
    carry = plan_carry(state, digests, basis=basis, fresh=fresh, moved=diff.moved)
    return Carried(carry, without_paths(diff, carry.paths), digests, basis)
