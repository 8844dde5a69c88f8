"""The agent-PR queue: observed pull requests → where each one stands. Pure.

`decide` places every agent PR:

1. **Gate.** The consensus review's result is read from its summary comment (the
   hidden state names the reviewed head and the open findings). No review of the
   current head yet: `awaiting-review` (a new push re-enters the gate). Open findings at
   or above `publish.request_changes_on`: `changes-requested`, unless a maintainer
   dismissed our request-changes review of that head (a human override).
2. **Admitted PRs keep their place.** A PR labelled `consensus:ready` stays in review
   while it is open and not sent back, even when a push awaits its re-review.
3. **Order.** The other clean PRs are taken by risk, then age (oldest first), then
   number. Risk score = 3 × the highest open finding's rank (none/info 0, low 1,
   medium 2, high 3, critical 4) + size (changed lines ≤50: 0, ≤200: 1, ≤500: 2,
   more: 3) + 3 when a changed path is sensitive (`queue.sensitive_paths`). Riskiest
   first by default (`queue.order: safest-first` reverses the score, not the age).
4. **Conflicts.** In that order, a PR whose changed base lines overlap (or touch) those
   of an admitted or earlier-queued PR is `conflict`, naming it; it waits for that PR.
5. **Admission.** Otherwise it is admitted (`ready`) while fewer than `max_in_review`
   agent PRs are in review and each of its reviewers has fewer than
   `max_in_review_per_reviewer`; else `queued`, numbered by position.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import Enum

from consensus.ingest.pathfilter import Glob
from consensus.model.base import Frozen, Severity
from consensus.ports import OpenPull
from consensus.queue.codeowners import OwnerRule, owners_of_all
from consensus.settings.config import QueueSettings

WHOLE_FILE = (0, 10**9)  # the span of a file whose patch GitHub omits
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


class QueueStatus(str, Enum):
    READY = "ready"
    QUEUED = "queued"
    CONFLICT = "conflict"
    CHANGES_REQUESTED = "changes-requested"
    AWAITING_REVIEW = "awaiting-review"
    DRAFT = "draft"

    @property
    def label(self) -> str | None:
        """The label this status carries on GitHub (None: no queue label)."""
        return LABELS.get(self)


LABELS = {
    QueueStatus.READY: "consensus:ready",
    QueueStatus.QUEUED: "consensus:queued",
    QueueStatus.CONFLICT: "consensus:conflict",
    QueueStatus.CHANGES_REQUESTED: "consensus:changes-requested",
}
QUEUE_LABELS = frozenset(LABELS.values())


class FileChange(Frozen):
    """One changed file; `spans` are its changed BASE-side lines, doubled: line k is 2k and
    the gap before it 2k-1, so an insertion is a point and touching changes overlap."""

    path: str
    previous_path: str | None = None
    additions: int = 0
    deletions: int = 0
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def base_path(self) -> str:
        return self.previous_path or self.path


class GateFinding(Frozen):
    id: str
    severity: Severity
    title: str
    path: str
    line: int


class QueueComment(Frozen):
    id: int
    body: str


class AgentPull(Frozen):
    """An agent PR as observed on GitHub: the PR, its gate result, files, our traces."""

    pull: OpenPull
    reviewed_head: str | None = None  # the head the last consensus review covered
    findings: tuple[GateFinding, ...] = ()  # open findings of that review
    files: tuple[FileChange, ...] = ()
    comment: QueueComment | None = None  # our queue comment, edited in place
    gate_review_heads: frozenset[str] = frozenset()  # heads our request-changes review covers
    dismissed_heads: frozenset[str] = frozenset()  # heads where a human dismissed it
    human_reviewed: bool = False  # a human has submitted a review


class QueueRules(Frozen):
    queue: QueueSettings = QueueSettings()
    request_changes_on: Severity = Severity.CRITICAL
    codeowners: tuple[OwnerRule, ...] = ()


class Risk(Frozen):
    score: int
    max_severity: Severity | None
    changed_lines: int
    sensitive: tuple[str, ...]

    @property
    def level(self) -> str:
        return "high" if self.score >= 6 else "medium" if self.score >= 3 else "low"


class QueueEntry(Frozen):
    number: int
    title: str
    author: str
    status: QueueStatus
    position: int | None = None  # 1-based, for queued PRs
    risk: Risk
    conflicts_with: tuple[int, ...] = ()
    conflict_at: str = ""  # e.g. "src/app.py:10-14"
    reviewers: tuple[str, ...] = ()
    created_at: str = ""
    head_sha: str = ""
    blocking: tuple[GateFinding, ...] = ()
    waiting_for: str = ""


class QueueView(Frozen):
    entries: tuple[QueueEntry, ...]  # ready, queued by position, conflict, sent back, …
    max_in_review: int
    in_review: int


# --------------------------------------------------------------------------- inputs


def is_agent(pull: OpenPull, settings: QueueSettings) -> bool:
    """Authored by a listed agent or any non-excluded `[bot]`, or labelled as an agent PR."""
    author = pull.author.lower()
    if author in {a.lower() for a in settings.agents} or settings.agent_label in pull.labels:
        return True
    excluded = author in {b.lower() for b in settings.exclude_bots}
    return settings.include_bots and pull.author_is_bot and not excluded


def patch_spans(patch: str | None) -> tuple[tuple[int, int], ...]:
    """Changed base-side lines of a GitHub `patch`, doubled (see FileChange)."""
    if patch is None:
        return (WHOLE_FILE,)
    spans: list[tuple[int, int]] = []
    old = 0
    start: int | None = None
    for text in patch.split("\n"):
        header = _HUNK.match(text)
        marker = text[:1]
        if header or marker == " " or marker == "":
            if start is not None:
                spans.append((2 * start - 1, 2 * old - 1))
                start = None
            if header:
                first, count = int(header.group(1)), header.group(2)
                old = first if count != "0" else first + 1
            elif marker == " ":
                old += 1
        elif marker in ("-", "+"):
            if start is None:
                start = old
            if marker == "-":
                old += 1
    if start is not None:
        spans.append((2 * start - 1, 2 * old - 1))
    return tuple(spans)


def _lines(span: tuple[int, int]) -> str:
    if span == WHOLE_FILE:
        return "whole file"
    first, last = (span[0] + 1) // 2, span[1] // 2
    return f"{first}" if last <= first else f"{first}-{last}"


# --------------------------------------------------------------------------- decisions


def risk_of(agent: AgentPull, settings: QueueSettings) -> Risk:
    worst = max((f.severity for f in agent.findings), key=lambda s: s.rank, default=None)
    lines = sum(f.additions + f.deletions for f in agent.files)
    size = 0 if lines <= 50 else 1 if lines <= 200 else 2 if lines <= 500 else 3
    globs = [Glob(p) for p in settings.sensitive_paths]
    sensitive = tuple(sorted({f.path for f in agent.files if _sensitive(f.path, globs)}))
    score = 3 * (worst.rank if worst else 0) + size + (3 if sensitive else 0)
    return Risk(score=score, max_severity=worst, changed_lines=lines, sensitive=sensitive)


def _sensitive(path: str, globs: Sequence[Glob]) -> bool:
    """The path, or a directory above it, matches (`*auth*` covers `src/auth/x.py`)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    return any(g.matches(prefix) for g in globs for prefix in prefixes)


def blocking_findings(agent: AgentPull, floor: Severity) -> tuple[GateFinding, ...]:
    return tuple(f for f in agent.findings if f.severity.at_least(floor))


def reviewers_of(agent: AgentPull, rules: QueueRules) -> tuple[str, ...]:
    """The configured reviewers, else the CODEOWNERS of its files; never its author."""
    names = rules.queue.reviewers or owners_of_all((f.path for f in agent.files), rules.codeowners)
    return tuple(n for n in names if n.lower() != agent.pull.author.lower())


def overlap(a: AgentPull, b: AgentPull) -> str | None:
    """Where two PRs change the same (or touching) base lines, e.g. "src/x.py:10-12"."""
    spans = {f.base_path: f.spans for f in b.files}
    for change in a.files:
        for lo, hi in change.spans:
            for other_lo, other_hi in spans.get(change.base_path, ()):
                if lo <= other_hi and other_lo <= hi:
                    return f"{change.base_path}:{_lines((max(lo, other_lo), min(hi, other_hi)))}"
    return None


def _created_key(agent: AgentPull) -> tuple[str, int]:
    return (agent.pull.created_at, agent.pull.number)


def _gate(
    agents: Sequence[AgentPull], risks: Mapping[int, Risk], rules: QueueRules
) -> tuple[dict[int, QueueEntry], list[AgentPull], list[AgentPull]]:
    """Each agent PR's entry before the limits: drafts, changes requested and PRs awaiting
    their review are placed here; the admitted ones (already labelled ready) and the
    candidates for a review slot are returned for the limits to place."""
    entries: dict[int, QueueEntry] = {}
    admitted: list[AgentPull] = []
    candidates: list[AgentPull] = []
    for agent in agents:
        pull = agent.pull
        base = QueueEntry(
            number=pull.number,
            title=pull.title,
            author=pull.author,
            status=QueueStatus.DRAFT,
            risk=risks[pull.number],
            created_at=pull.created_at,
            head_sha=pull.head_sha,
        )
        entries[pull.number] = base
        blocking = blocking_findings(agent, rules.request_changes_on)
        reviewed = agent.reviewed_head == pull.head_sha
        if pull.draft:
            entries[pull.number] = base.model_copy(update={"waiting_for": "ready for review"})
        elif reviewed and blocking and pull.head_sha not in agent.dismissed_heads:
            entries[pull.number] = base.model_copy(
                update={
                    "status": QueueStatus.CHANGES_REQUESTED,
                    "blocking": blocking,
                    "waiting_for": f"its agent: {len(blocking)} finding(s) at or above "
                    f"{rules.request_changes_on.value}",
                }
            )
        elif LABELS[QueueStatus.READY] in pull.labels:
            admitted.append(agent)
        elif not reviewed:
            waiting = f"the consensus review of {pull.head_sha[:7]}"
            entries[pull.number] = base.model_copy(
                update={"status": QueueStatus.AWAITING_REVIEW, "waiting_for": waiting}
            )
        else:
            candidates.append(agent)
    return entries, admitted, candidates


def decide(agents: Sequence[AgentPull], rules: QueueRules) -> QueueView:
    """Place every agent PR: gate, admitted ones kept, the rest in order, conflicts, limits."""
    settings = rules.queue
    risks = {a.pull.number: risk_of(a, settings) for a in agents}
    sign = -1 if settings.order == "riskiest-first" else 1

    def order(agent: AgentPull) -> tuple[int, str, int]:
        return (sign * risks[agent.pull.number].score, *_created_key(agent))

    entries, admitted, candidates = _gate(agents, risks, rules)
    load: Counter[str] = Counter()
    claimed: list[AgentPull] = []
    for agent in sorted(admitted, key=order):
        reviewers = reviewers_of(agent, rules)
        load.update(reviewers)
        claimed.append(agent)
        entries[agent.pull.number] = entries[agent.pull.number].model_copy(
            update={"status": QueueStatus.READY, "reviewers": reviewers, "waiting_for": "review"}
        )
    in_review = len(admitted)
    per_reviewer = settings.max_in_review_per_reviewer
    queued: list[int] = []
    for agent in sorted(candidates, key=order):
        number = agent.pull.number
        reviewers = reviewers_of(agent, rules)
        hits = [(other, where) for other in claimed if (where := overlap(agent, other))]
        if hits:
            first, where = hits[0]
            entries[number] = entries[number].model_copy(
                update={
                    "status": QueueStatus.CONFLICT,
                    "conflicts_with": tuple(other.pull.number for other, _ in hits),
                    "conflict_at": where,
                    "reviewers": reviewers,
                    "waiting_for": f"#{first.pull.number} to be merged or closed",
                }
            )
            continue
        busy = [r for r in reviewers if per_reviewer is not None and load[r] >= per_reviewer]
        claimed.append(agent)
        if in_review < settings.max_in_review and not busy:
            in_review += 1
            load.update(reviewers)
            update = {"status": QueueStatus.READY, "reviewers": reviewers, "waiting_for": "review"}
            entries[number] = entries[number].model_copy(update=update)
            continue
        queued.append(number)
        why = (
            f"a review slot of {', '.join(busy)}"
            if busy and in_review < settings.max_in_review
            else f"a review slot ({settings.max_in_review} agent PRs at most in review)"
        )
        entries[number] = entries[number].model_copy(
            update={
                "status": QueueStatus.QUEUED,
                "position": len(queued),
                "reviewers": reviewers,
                "waiting_for": why,
            }
        )
    rank = {status: index for index, status in enumerate(QueueStatus)}
    sequence = {a.pull.number: i for i, a in enumerate(sorted(agents, key=order))}
    shown = sorted(entries.values(), key=lambda e: (rank[e.status], sequence[e.number]))
    return QueueView(
        entries=tuple(shown), max_in_review=settings.max_in_review, in_review=in_review
    )
