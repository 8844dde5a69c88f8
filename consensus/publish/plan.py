"""Publish: (report, what is already on the PR, settings) → a plan of what to post. Pure.

The plan holds at most one review (inline comments on RIGHT-side diff lines) and the
state that the summary comment carries to the next run. What decides:

- only findings whose status is posted (consensus, verified) at or above
  `publish.min_severity` go inline, at most `publish.max_inline_comments` new ones;
  the rest are listed in the summary with the reason;
- a finding whose fingerprint is already on the PR (a marker in one of our review
  comments, or the summary state) is never posted again, even if a human deleted it;
- a carried finding (its file's diff unchanged, publish/carry.py) whose inline comment the
  host refused before stays in the summary with the host's reason: the same patch would
  be refused again, and a re-run publishes what the first run published;
- a finding of an earlier run that is gone now is resolved, but only when this run could
  have seen it again: quorum met, and its file was reviewed (or left the diff);
- markers are read only from comments written by our own identity (thread.py), and only
  from the first or last line, which model text can never occupy.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from consensus.ingest.hunks import Hunks
from consensus.model.base import Frozen, Severity
from consensus.model.findings import Suggestion
from consensus.model.report import Report, ReportFinding
from consensus.ports import InlineComment
from consensus.publish.inline import inline_body
from consensus.publish.records import finding_records, tracked_finding
from consensus.publish.spend import Spent
from consensus.publish.state import MAX_REASON, Decisions, PublishState, TrackedFinding, cut
from consensus.publish.suggestion import HeadLines, suggestion_problem
from consensus.publish.thread import PullRequestThread, review_marker
from consensus.settings.config import PublishSettings

MAX_TRACKED = 300  # findings remembered in the summary state (open first, then resolved)


# --------------------------------------------------------------------------- the plan


class Placement(str, Enum):
    """Where a finding went, and so what the summary says about it."""

    INLINE = "inline"
    INLINE_EARLIER = "inline_earlier"
    OVER_LIMIT = "over_limit"
    BELOW_MIN = "below_min_severity"
    NOT_ON_DIFF = "not_on_diff"
    REJECTED_BY_GITHUB = "rejected_by_github"
    REFUSED_EARLIER = "rejected_by_github_earlier"  # refused on an earlier run, carried
    NO_QUORUM = "no_quorum"
    NOT_POSTED = "not_posted"  # disputed, undecided, unverified or rejected: summary only
    DISMISSED = "dismissed"  # `/consensus dismiss`: never posted again on this PR
    SUPPRESSED = "suppressed"  # a suppression of .consensus/learned.yml: summary only
    MOVED = "in_moved_code"  # on lines the change only moved: summary, unless critical

    @property
    def inline(self) -> bool:
        return self in (Placement.INLINE, Placement.INLINE_EARLIER)


class PlacedFinding(Frozen):
    finding: ReportFinding
    placement: Placement
    note: str = ""


class PlannedReview(Frozen):
    """One review: its body, its inline comments, and whether it asks for changes (a finding
    at or above `publish.request_changes_on` is in it)."""

    body: str
    requests_changes: bool
    comments: tuple[InlineComment, ...]
    fingerprints: tuple[str, ...]  # one per comment, in order


class PublishPlan(Frozen):
    placed: tuple[PlacedFinding, ...]
    review: PlannedReview | None
    resolved: tuple[TrackedFinding, ...]  # resolved by this run
    unchecked: tuple[TrackedFinding, ...]  # open earlier, not re-checked this run
    state: PublishState
    workflow: str = ""  # the saved review workflow that made it ("" for the default review)


def _anchor(finding: ReportFinding, hunks: Hunks) -> InlineComment | None:
    """The comment's place: the finding's range when it is inside one hunk, else its line."""
    for lines in hunks.get(finding.path, ()):
        if finding.line in lines:
            if finding.end_line > finding.line and finding.end_line in lines:
                return InlineComment(
                    path=finding.path, line=finding.end_line, start_line=finding.line, body=""
                )
            return InlineComment(path=finding.path, line=finding.line, body="")
    return None


def _applicable(
    finding: ReportFinding, anchor: InlineComment, head: HeadLines | None
) -> Suggestion | None:
    """The finding's suggestion when it applies cleanly to the lines the comment is on."""
    if finding.suggestion is None or head is None:
        return None
    start = anchor.start_line or anchor.line
    problem = suggestion_problem(finding.suggestion, start, anchor.line, head.get(anchor.path))
    return finding.suggestion if problem is None else None


def _place(
    finding: ReportFinding,
    settings: PublishSettings,
    posted_before: Collection[str],
    hunks: Hunks,
    quorum: bool,
    dismissed: Mapping[str, str] | None = None,
    suppressed: Mapping[str, str] | None = None,
    refused: Mapping[str, str] | None = None,
) -> tuple[Placement, str, InlineComment | None]:
    if dismissed and finding.fingerprint in dismissed:
        return Placement.DISMISSED, dismissed[finding.fingerprint], None
    if suppressed and finding.fingerprint in suppressed and finding.status.posted:
        return Placement.SUPPRESSED, suppressed[finding.fingerprint], None
    if not finding.status.posted:
        return Placement.NOT_POSTED, finding.status.value, None
    if not finding.severity.at_least(settings.min_severity):
        return Placement.BELOW_MIN, f"below min_severity {settings.min_severity.value}", None
    if finding.fingerprint in posted_before:
        return Placement.INLINE_EARLIER, "", None
    if not quorum:
        return Placement.NO_QUORUM, "quorum not met: advisory only", None
    if finding.carried_from and refused and finding.fingerprint in refused:
        return Placement.REFUSED_EARLIER, refused[finding.fingerprint], None
    if finding.moved_from and not finding.severity.at_least(Severity.CRITICAL):
        return Placement.MOVED, f"in moved code (from {finding.moved_from})", None
    anchor = _anchor(finding, hunks)
    if anchor is None:
        return Placement.NOT_ON_DIFF, "its line is not on the diff", None
    return Placement.INLINE, "", anchor


@dataclass(frozen=True)
class Scope:
    """What this run looked at, on which head: `reviewed` the files a provider reviewed
    (or whose decisions were carried); `in_diff` every file of the PR diff, reviewed or
    not; `rechecked` files decided again on unchanged code (a fresh look), where a finding
    that is gone was not fixed; `decisions` what the state carries to the next run, and
    `spent` what the PR's runs have spent, this one's included."""

    head_sha: str
    reviewed: Collection[str]
    in_diff: Collection[str]
    rechecked: Collection[str] = ()
    decisions: Decisions | None = None
    spent: Spent | None = None


@dataclass(frozen=True)
class Marks:
    """What .consensus/learned.yml says of findings (publish/learnings.py), by fingerprint."""

    suppressed: Mapping[str, str] = field(default_factory=dict)
    came_back: Mapping[str, str] = field(default_factory=dict)


def plan_publish(
    report: Report,
    thread: PullRequestThread,
    settings: PublishSettings,
    *,
    scope: Scope,
    hunks: Hunks,
    links: Sequence[str] = (),
    head: HeadLines | None = None,
    marks: Marks = Marks(),
) -> PublishPlan:
    """Decide what this run posts.

    `hunks`: the commentable lines of the PR diff; `head`: the new-side text of the diff's
    lines, which a committable suggestion must apply to (none is posted without it);
    `marks`: what .consensus/learned.yml says of this run's findings.
    """
    head_sha = scope.head_sha
    posted_before = set(thread.inline_fingerprints) | {
        t.fingerprint for t in thread.state.findings if t.inline
    }
    placed: list[PlacedFinding] = []
    comments: list[InlineComment] = []
    fingerprints: list[str] = []
    dismissed = {
        d.fingerprint: f"dismissed by @{d.by}" + (f": {d.reason}" if d.reason else "")
        for d in thread.state.dismissed
    }
    refused = {t.fingerprint: t.refused for t in thread.state.findings if t.refused}
    quorum = report.quorum.met
    decided = [
        (
            finding,
            *_place(
                finding,
                settings,
                posted_before,
                hunks,
                quorum,
                dismissed,
                marks.suppressed,
                refused,
            ),
        )
        for finding in report.findings
    ]
    # The limit holds for the PR, not each run: open inline comments count against it.
    earlier = sum(1 for _, placement, _, _ in decided if placement is Placement.INLINE_EARLIER)
    room = max(0, settings.max_inline_comments - earlier)
    for finding, placement, note, anchor in decided:
        if anchor is not None and len(comments) >= room:
            placement, anchor = Placement.OVER_LIMIT, None
            note = f"over the limit of {settings.max_inline_comments} inline comments"
        if anchor is not None:
            offer = _applicable(finding, anchor, head)
            back = marks.came_back.get(finding.fingerprint, "")
            body = inline_body(finding, links, offer, workflow=report.workflow or "", note=back)
            comments.append(anchor.model_copy(update={"body": body}))
            fingerprints.append(finding.fingerprint)
        placed.append(PlacedFinding(finding=finding, placement=placement, note=note))
    review = _review(placed, comments, fingerprints, settings, head_sha, report.workflow or "")
    resolved, unchecked, state = _next_state(report, thread.state, placed, scope)
    return PublishPlan(
        placed=tuple(placed),
        review=review,
        resolved=resolved,
        unchecked=unchecked,
        state=state,
        workflow=report.workflow or "",
    )


def _review(
    placed: Sequence[PlacedFinding],
    comments: Sequence[InlineComment],
    fingerprints: Sequence[str],
    settings: PublishSettings,
    head_sha: str,
    workflow: str = "",
) -> PlannedReview | None:
    """One review for this run's new inline comments; none when there is nothing new, unless
    a finding that asks for changes had to move to the summary (the event still stands)."""
    new = [p.finding for p in placed if p.placement is Placement.INLINE]
    moved = [p.finding for p in placed if p.placement is Placement.REJECTED_BY_GITHUB]
    blocking = [f for f in [*new, *moved] if f.severity.at_least(settings.request_changes_on)]
    if not comments and not (moved and blocking):
        return None
    name = f"**consensus** · workflow `{workflow}`" if workflow else "**consensus**"
    said = [name]
    if new:
        said.append(f"{len(new)} new finding{'s' if len(new) != 1 else ''}: {_ids(new)}")
    if moved:
        said.append(f"{_ids(moved)}: in the summary comment, refused inline")
    body = "\n".join([" · ".join(said), review_marker(head_sha)])
    return PlannedReview(
        body=body,
        requests_changes=bool(blocking),
        comments=tuple(comments),
        fingerprints=tuple(fingerprints),
    )


def _ids(findings: Sequence[ReportFinding]) -> str:
    return ", ".join(f.id for f in findings)


def _next_state(
    report: Report,
    previous: PublishState,
    placed: Sequence[PlacedFinding],
    scope: Scope,
) -> tuple[tuple[TrackedFinding, ...], tuple[TrackedFinding, ...], PublishState]:
    reviewed_paths, diff_paths, rechecked_paths = scope.reviewed, scope.in_diff, scope.rechecked
    tracked_now = {
        p.finding.fingerprint: tracked_finding(
            p.finding,
            inline=p.placement.inline,
            refused=p.note if p.placement is Placement.REFUSED_EARLIER else "",
        )
        for p in placed
        if p.placement not in (Placement.NOT_POSTED, Placement.BELOW_MIN, Placement.DISMISSED)
    }
    dismissed = {d.fingerprint for d in previous.dismissed}
    still = {f.fingerprint: f.status for f in report.findings if not f.status.posted}
    resolved: list[TrackedFinding] = []
    unchecked: list[TrackedFinding] = []
    history: list[TrackedFinding] = []
    for old in previous.findings:
        if old.fingerprint in tracked_now:
            continue
        if old.resolved:
            history.append(old)
        elif old.fingerprint in dismissed:
            gone = old.model_copy(update={"resolved": True, "resolved_reason": "dismissed"})
            history.append(gone)
        elif report.quorum.met and old.path in reviewed_paths:
            # Reported again but no longer posted (a fresh look rejected it): say so.
            status = still.get(old.fingerprint)
            why = f"now {status.value}, no longer posted" if status else "fixed"
            if not status and old.path in rechecked_paths:
                why = "not reported on a fresh look at unchanged code"
            resolved.append(old.model_copy(update={"resolved": True, "resolved_reason": why}))
        elif report.quorum.met and old.path not in diff_paths:
            gone = old.model_copy(
                update={"resolved": True, "resolved_reason": "file left the diff"}
            )
            resolved.append(gone)
        else:
            unchecked.append(old)
    findings = [*tracked_now.values(), *unchecked, *resolved, *history][:MAX_TRACKED]
    state = PublishState(
        head_sha=scope.head_sha,
        findings=tuple(findings),
        records=finding_records(report.findings),
        dismissed=previous.dismissed,
        paused=previous.paused,
        workflows=previous.workflows,  # each workflow's findings are its own runs' to settle
        decisions=scope.decisions,
        spent=scope.spent,
        panel=report.panel.tally if report.panel is not None else previous.panel,
    )
    return tuple(resolved), tuple(unchecked), state


def suspect_comments(review: PlannedReview, hunks: Hunks) -> set[str]:
    """Fingerprints of comments GitHub may refuse: not on one hunk of its own patches."""
    suspects = set()
    for comment, fingerprint in zip(review.comments, review.fingerprints, strict=True):
        start = comment.start_line or comment.line
        if not any({start, comment.line} <= lines for lines in hunks.get(comment.path, ())):
            suspects.add(fingerprint)
    return suspects


def move_to_summary(
    plan: PublishPlan,
    fingerprints: Collection[str],
    note: str,
    *,
    settings: PublishSettings,
    head_sha: str,
) -> PublishPlan:
    """The plan after GitHub refused these comments: they go to the summary, with `note`."""
    if plan.review is None or not fingerprints:
        return plan
    kept = [
        (c, fp)
        for c, fp in zip(plan.review.comments, plan.review.fingerprints, strict=True)
        if fp not in fingerprints
    ]
    placed = tuple(
        p.model_copy(update={"placement": Placement.REJECTED_BY_GITHUB, "note": note})
        if p.finding.fingerprint in fingerprints and p.placement is Placement.INLINE
        else p
        for p in plan.placed
    )
    review = _review(
        placed, [c for c, _ in kept], [fp for _, fp in kept], settings, head_sha, plan.workflow
    )
    findings = tuple(
        t.model_copy(update={"inline": False, "refused": cut(note, MAX_REASON)})
        if t.fingerprint in fingerprints
        else t
        for t in plan.state.findings
    )
    return plan.model_copy(
        update={
            "placed": placed,
            "review": review,
            "state": plan.state.model_copy(update={"findings": findings}),
        }
    )
