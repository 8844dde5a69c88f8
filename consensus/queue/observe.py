"""The agent-PR queue's eyes: read where each agent PR stands from GitHub, through the port.

GitHub is the state (labels, reviews, review requests, our comments); the queue keeps
none. Requests: one page per 100 open PRs, the config and CODEOWNERS, then two per agent
PR (comments, files), one more when it carries our summary (who last edited it: a state
someone else wrote is not believed) and one more for admitted or sent-back ones
(reviews): linear in open agent PRs. "Ours" is the run's identity, never any bot.
"""

from __future__ import annotations

from typing import Any

from consensus.ports import GitHubPort, HostComment, HostReview, OpenPull, PullFile
from consensus.publish.thread import Identity, load_thread
from consensus.queue.codeowners import CODEOWNERS_PATHS, OwnerRule, parse_codeowners
from consensus.queue.standing import (
    LABELS,
    AgentPull,
    FileChange,
    GateFinding,
    QueueComment,
    QueueRules,
    QueueStatus,
    blocking_findings,
    is_agent,
    patch_spans,
)
from consensus.queue.writes import (
    COMMENT_MARKER,
)
from consensus.settings.config import Settings, parse_settings


def load_settings(host: GitHubPort, branch: str, config: str = ".consensus.yml") -> Settings:
    """The configuration of the default branch: every runner reconciles the same queue."""
    text = host.read_file(config, branch)
    source = f"{config} (default branch {branch})"
    return parse_settings(text, source=source) if text is not None else Settings()


def load_codeowners(host: GitHubPort, branch: str) -> tuple[OwnerRule, ...]:
    for path in CODEOWNERS_PATHS:
        text = host.read_file(path, branch)
        if text is not None:
            return parse_codeowners(text)
    return ()


def _files(files: list[PullFile]) -> tuple[FileChange, ...]:
    return tuple(
        FileChange(
            path=f.path,
            previous_path=f.previous_path,
            additions=f.additions,
            deletions=f.deletions,
            spans=patch_spans(f.patch),
        )
        for f in files
    )


def _queue_comment(comments: list[HostComment], identity: Identity) -> QueueComment | None:
    for c in comments:
        if identity.owns(c.author) and c.body.startswith(COMMENT_MARKER):
            return QueueComment(id=c.id, body=c.body)
    return None


def observe_pull(
    host: GitHubPort, pull: OpenPull, rules: QueueRules, identity: Identity
) -> AgentPull:
    """One agent PR: its gate result (summary state, believed only if we edited it last),
    files, queue comment, and — when it is admitted or sent back — its reviews."""
    if pull.draft:
        comments = host.issue_comments(pull.number) if pull.labels & set(LABELS.values()) else []
        return AgentPull(pull=pull, comment=_queue_comment(comments, identity))
    comments = host.issue_comments(pull.number)
    thread = load_thread(host, pull.number, identity, issue_comments=comments)
    findings = tuple(
        GateFinding(id=t.id, severity=t.severity, title=t.title, path=t.path, line=t.line)
        for t in thread.state.findings
        if not t.resolved
    )
    agent = AgentPull(
        pull=pull,
        reviewed_head=thread.state.head_sha or None,
        findings=findings,
        files=_files(host.pull_files(pull.number)),
        comment=_queue_comment(comments, identity),
    )
    blocked = agent.reviewed_head == pull.head_sha and blocking_findings(
        agent, rules.request_changes_on
    )
    if not blocked and LABELS[QueueStatus.READY] not in pull.labels:
        return agent
    return agent.model_copy(update=_reviews(host.pull_reviews(pull.number), identity))


def _reviews(reviews: list[HostReview], identity: Identity) -> dict[str, Any]:
    ours = [r for r in reviews if identity.owns(r.author)]
    return {
        "gate_review_heads": frozenset(
            r.commit_sha for r in ours if r.state in ("CHANGES_REQUESTED", "DISMISSED")
        ),
        "dismissed_heads": frozenset(r.commit_sha for r in ours if r.state == "DISMISSED"),
        "human_reviewed": any(
            not r.author_is_bot and not identity.owns(r.author) and r.state != "PENDING"
            for r in reviews
        ),
    }


def observe(
    host: GitHubPort, settings: Settings, branch: str, identity: Identity
) -> tuple[QueueRules, list[AgentPull]]:
    rules = QueueRules(
        queue=settings.queue,
        request_changes_on=settings.publish.request_changes_on,
        codeowners=load_codeowners(host, branch),
    )
    pulls = [p for p in host.open_pulls() if is_agent(p, settings.queue)]
    return rules, [observe_pull(host, p, rules, identity) for p in pulls]


# --------------------------------------------------------------------------- the Action
