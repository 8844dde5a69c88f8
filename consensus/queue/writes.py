"""The agent-PR queue: where each PR stands → the writes that make GitHub say so. Pure.

Desired state per agent PR: exactly the queue label of its status (other `consensus:*`
labels removed), review requests to its reviewers when admitted (only those not
requested yet, and none once a human has reviewed: GitHub drops a reviewer from the
requests when they review), a request-changes review when it is sent back (one per
head), and our one queue comment: created for queued and conflicting PRs, edited in
place for any status once it exists. The plan is the difference from what is observed,
so applying it twice writes nothing the second time. Human PRs are never touched.

Also renders the queue as a text table, Markdown (for `/consensus queue`) and JSON.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from consensus.model.base import Frozen
from consensus.queue.standing import (
    QUEUE_LABELS,
    AgentPull,
    GateFinding,
    QueueEntry,
    QueueStatus,
    QueueView,
)
from consensus.render.markdown import cell
from consensus.render.untrusted import code, escape_line

COMMENT_MARKER = "<!-- consensus:queue -->"
GATE_MARKER = "<!-- consensus:queue-gate head={head} -->"


class ChangeKind(str, Enum):
    ADD_LABELS = "add_labels"
    REMOVE_LABEL = "remove_label"
    REQUEST_REVIEWERS = "request_reviewers"
    REQUEST_CHANGES = "request_changes"
    CREATE_COMMENT = "create_comment"
    EDIT_COMMENT = "edit_comment"


class QueueChange(Frozen):
    kind: ChangeKind
    number: int
    labels: tuple[str, ...] = ()
    reviewers: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()  # team slugs
    body: str = ""
    comment_id: int | None = None
    head_sha: str = ""

    def describe(self) -> str:
        what = {
            ChangeKind.ADD_LABELS: f"add label {', '.join(self.labels)}",
            ChangeKind.REMOVE_LABEL: f"remove label {', '.join(self.labels)}",
            ChangeKind.REQUEST_REVIEWERS: "request review from "
            + ", ".join([*self.reviewers, *(f"team {t}" for t in self.teams)]),
            ChangeKind.REQUEST_CHANGES: f"request changes on {self.head_sha[:7]}",
            ChangeKind.CREATE_COMMENT: "post the queue comment",
            ChangeKind.EDIT_COMMENT: f"update the queue comment {self.comment_id}",
        }[self.kind]
        return f"#{self.number}: {what}"


def plan_changes(view: QueueView, agents: Mapping[int, AgentPull]) -> tuple[QueueChange, ...]:
    """The writes that bring GitHub to `view`, PR by PR in number order."""
    changes: list[QueueChange] = []
    for entry in sorted(view.entries, key=lambda e: e.number):
        changes += _changes_for(entry, agents[entry.number], view)
    return tuple(changes)


def _changes_for(entry: QueueEntry, agent: AgentPull, view: QueueView) -> list[QueueChange]:
    number = entry.number
    changes = []
    wanted = {entry.status.label} - {None}
    present = set(agent.pull.labels) & QUEUE_LABELS
    if wanted - present:
        changes.append(
            QueueChange(kind=ChangeKind.ADD_LABELS, number=number, labels=tuple(sorted(wanted)))
        )
    for label in sorted(present - wanted):
        changes.append(QueueChange(kind=ChangeKind.REMOVE_LABEL, number=number, labels=(label,)))
    if entry.status is QueueStatus.READY and not agent.human_reviewed:
        requested = {r.lower() for r in agent.pull.requested_reviewers}
        teams = {t.lower() for t in agent.pull.requested_teams}
        users = tuple(r for r in entry.reviewers if "/" not in r and r.lower() not in requested)
        slugs = tuple(
            slug
            for r in entry.reviewers
            if "/" in r and (slug := r.split("/", 1)[1]).lower() not in teams
        )
        if users or slugs:
            changes.append(
                QueueChange(
                    kind=ChangeKind.REQUEST_REVIEWERS, number=number, reviewers=users, teams=slugs
                )
            )
    head = entry.head_sha
    if entry.status is QueueStatus.CHANGES_REQUESTED and head not in agent.gate_review_heads:
        changes.append(
            QueueChange(
                kind=ChangeKind.REQUEST_CHANGES,
                number=number,
                head_sha=head,
                body=gate_review_body(entry.blocking, head),
            )
        )
    body = comment_body(entry, view)
    if agent.comment is not None and agent.comment.body != body:
        changes.append(
            QueueChange(
                kind=ChangeKind.EDIT_COMMENT,
                number=number,
                comment_id=agent.comment.id,
                body=body,
            )
        )
    elif agent.comment is None and entry.status in (QueueStatus.QUEUED, QueueStatus.CONFLICT):
        changes.append(QueueChange(kind=ChangeKind.CREATE_COMMENT, number=number, body=body))
    return changes


# --------------------------------------------------------------------------- bodies


def _who(names: Sequence[str]) -> str:
    # Code spans: a reviewer is asked through the review request, never pinged in text.
    return ", ".join(code(n) for n in names) or "nobody (no CODEOWNERS or queue.reviewers)"


def comment_body(entry: QueueEntry, view: QueueView) -> str:
    """Our one queue comment on the PR; nothing in it changes unless its place does."""
    status = entry.status
    if status is QueueStatus.QUEUED:
        text = (
            f"**Queued: position {entry.position}.** Waiting for {entry.waiting_for}. "
            f"At most {view.max_in_review} agent PRs are in human review at a time; this one "
            "is admitted when its turn comes (risk first, then age)."
        )
    elif status is QueueStatus.CONFLICT:
        text = (
            f"**Waiting: it changes the same lines as #{entry.conflicts_with[0]}** "
            f"({code(entry.conflict_at)}). Agent PRs that overlap are reviewed one at a time: "
            f"this one waits for #{entry.conflicts_with[0]} to be merged or closed "
            "(then rebase it if needed)."
        )
    elif status is QueueStatus.READY:
        text = f"**Admitted to human review.** Review requested from {_who(entry.reviewers)}."
    elif status is QueueStatus.CHANGES_REQUESTED:
        text = (
            f"**Sent back to its agent:** {len(entry.blocking)} consensus finding(s) must be "
            "fixed first (see the review). A new push re-enters the queue."
        )
    elif status is QueueStatus.AWAITING_REVIEW:
        text = f"**Waiting for {entry.waiting_for}.** A new push re-enters the queue's gate."
    else:
        text = "**A draft:** not in the queue until it is marked ready for review."
    return f"{COMMENT_MARKER}\n**consensus queue** · {text}"


def gate_review_body(blocking: Sequence[GateFinding], head_sha: str) -> str:
    lines = [
        f"**consensus queue** · sent back: {len(blocking)} consensus finding(s) at or above "
        "the request-changes level must be fixed before a human reviews this PR.",
        "",
    ]
    for finding in blocking:
        title = escape_line(finding.title)
        lines.append(
            f"- **{finding.severity.value}** · {title} ({code(f'{finding.path}:{finding.line}')}"
            f", {finding.id})"
        )
    lines += [
        "",
        "The summary comment has the details. A new push re-enters the queue; dismissing "
        "this review lets the PR through.",
        GATE_MARKER.format(head=head_sha),
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- renders


def age(created_at: str, now: datetime.datetime) -> str:
    try:
        created = datetime.datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return "?"
    seconds = max(0, int((now - created).total_seconds()))
    if seconds >= 86_400:
        return f"{seconds // 86_400}d"
    return f"{seconds // 3600}h" if seconds >= 3600 else f"{seconds // 60}m"


def _cells(entry: QueueEntry, now: datetime.datetime) -> list[str]:
    return [
        f"#{entry.number}",
        entry.author,
        entry.status.value,
        str(entry.position) if entry.position else "-",
        f"{entry.risk.level} ({entry.risk.score})",
        ", ".join(f"#{n}" for n in entry.conflicts_with) or "-",
        age(entry.created_at, now),
    ]


HEADERS = ["PR", "AGENT", "STATUS", "POS", "RISK", "CONFLICTS", "AGE"]


def render_queue_table(view: QueueView, now: datetime.datetime) -> str:
    rows = [HEADERS, *(_cells(e, now) for e in view.entries)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.append(f"\n{view.in_review} of at most {view.max_in_review} agent PRs in review.")
    return "\n".join(lines if view.entries else ["No open agent PRs."])


def render_queue_markdown(view: QueueView, now: datetime.datetime, *, titled: bool = True) -> str:
    """The queue as a Markdown table (the step summary; the reply to `/consensus queue`,
    whose answer has its own title: `titled` False); no pings."""
    head = f"{view.in_review} of at most {view.max_in_review} agent PRs in review"
    head = f"**Agent-PR queue** · {head}" if titled else head
    if not view.entries:
        return f"{head}\n\nNo open agent PRs."
    titles = ["PR", "Agent", "Status", "Position", "Risk", "Conflicts", "Age"]
    lines = [head, "", "| " + " | ".join(titles) + " |"]
    lines.append("|" + "---|" * len(HEADERS))
    for entry in view.entries:
        cells = _cells(entry, now)
        cells[1] = cell(code(entry.author), raw=True)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def queue_json(
    view: QueueView, changes: Sequence[QueueChange], *, applied: bool, now: datetime.datetime
) -> dict[str, Any]:
    return {
        "version": 1,
        "max_in_review": view.max_in_review,
        "in_review": view.in_review,
        "pulls": [
            {
                "number": e.number,
                "title": e.title,
                "author": e.author,
                "status": e.status.value,
                "position": e.position,
                "risk": {
                    "score": e.risk.score,
                    "level": e.risk.level,
                    "max_severity": e.risk.max_severity.value if e.risk.max_severity else None,
                    "changed_lines": e.risk.changed_lines,
                    "sensitive_paths": list(e.risk.sensitive),
                },
                "conflicts_with": list(e.conflicts_with),
                "conflict_at": e.conflict_at or None,
                "reviewers": list(e.reviewers),
                "created_at": e.created_at,
                "age": age(e.created_at, now),
                "waiting_for": e.waiting_for,
            }
            for e in view.entries
        ],
        "changes": [c.describe() for c in changes],
        "applied": applied,
    }
