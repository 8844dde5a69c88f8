"""The agent-PR queue's edge: read the queue's state from GitHub, apply only the difference.

GitHub is the state (labels, reviews, review requests, our comments); this module keeps
none. `reconcile` observes, decides (`queue.decide`), plans (`queue_plan.plan_changes`)
and, with `apply`, writes the plan in order. A run that stops half-way leaves GitHub
partly updated; the next run observes that and completes it. Requests: one page per 100
open PRs, the config and CODEOWNERS, then two per agent PR (comments, files) and one
more for admitted or sent-back ones (reviews): linear in open agent PRs.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, cast

from consensus.codeowners import CODEOWNERS_PATHS, OwnerRule, parse_codeowners
from consensus.config import Settings, parse_settings
from consensus.errors import ConsensusError
from consensus.models import Frozen
from consensus.ports import HostComment, HostReview, OpenPull, PullFile, QueueHost
from consensus.publish import read_thread
from consensus.queue import (
    LABELS,
    AgentPull,
    FileChange,
    GateFinding,
    QueueComment,
    QueueRules,
    QueueStatus,
    QueueView,
    blocking_findings,
    decide,
    is_agent,
    patch_spans,
)
from consensus.queue_plan import (
    COMMENT_MARKER,
    ChangeKind,
    QueueChange,
    plan_changes,
    render_queue_markdown,
)

Log = Callable[[str], None]


class QueueRun(Frozen):
    view: QueueView
    changes: tuple[QueueChange, ...]
    applied: int = 0  # changes written


def load_settings(host: QueueHost, branch: str, config: str = ".consensus.yml") -> Settings:
    """The configuration of the default branch: every runner reconciles the same queue."""
    text = host.read_file(config, branch)
    source = f"{config} (default branch {branch})"
    return parse_settings(text, source=source) if text is not None else Settings()


def load_codeowners(host: QueueHost, branch: str) -> tuple[OwnerRule, ...]:
    for path in CODEOWNERS_PATHS:
        text = host.read_file(path, branch)
        if text is not None:
            return parse_codeowners(text)
    return ()


def _ours(author: str, is_bot: bool, trusted: Collection[str]) -> bool:
    return is_bot or author in trusted


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


def _queue_comment(comments: list[HostComment], trusted: Collection[str]) -> QueueComment | None:
    for c in comments:
        if _ours(c.author, c.author_is_bot, trusted) and c.body.startswith(COMMENT_MARKER):
            return QueueComment(id=c.id, body=c.body)
    return None


def observe_pull(
    host: QueueHost, pull: OpenPull, rules: QueueRules, trusted: Collection[str]
) -> AgentPull:
    """One agent PR: its gate result (summary state), files, queue comment, and — when it
    is admitted or sent back — its reviews."""
    if pull.draft:
        comments = host.issue_comments(pull.number) if pull.labels & set(LABELS.values()) else []
        return AgentPull(pull=pull, comment=_queue_comment(comments, trusted))
    comments = host.issue_comments(pull.number)
    thread = read_thread(comments, [], trusted_authors=trusted)
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
        comment=_queue_comment(comments, trusted),
    )
    blocked = agent.reviewed_head == pull.head_sha and blocking_findings(
        agent, rules.request_changes_on
    )
    if not blocked and LABELS[QueueStatus.READY] not in pull.labels:
        return agent
    return agent.model_copy(update=_reviews(host.pull_reviews(pull.number), trusted))


def _reviews(reviews: list[HostReview], trusted: Collection[str]) -> dict[str, Any]:
    ours = [r for r in reviews if _ours(r.author, r.author_is_bot, trusted)]
    return {
        "gate_review_heads": frozenset(
            r.commit_sha for r in ours if r.state in ("CHANGES_REQUESTED", "DISMISSED")
        ),
        "dismissed_heads": frozenset(r.commit_sha for r in ours if r.state == "DISMISSED"),
        "human_reviewed": any(
            not _ours(r.author, r.author_is_bot, trusted) and r.state != "PENDING" for r in reviews
        ),
    }


def observe(
    host: QueueHost, settings: Settings, branch: str, trusted: Collection[str]
) -> tuple[QueueRules, list[AgentPull]]:
    rules = QueueRules(
        queue=settings.queue,
        request_changes_on=settings.publish.request_changes_on,
        codeowners=load_codeowners(host, branch),
    )
    pulls = [p for p in host.open_pulls() if is_agent(p, settings.queue)]
    return rules, [observe_pull(host, p, rules, trusted) for p in pulls]


def reconcile(
    host: QueueHost,
    *,
    apply: bool,
    log: Log,
    config: str = ".consensus.yml",
    trusted: Collection[str] = (),
    settings: Settings | None = None,
) -> QueueRun:
    """Observe, decide, plan; with `apply`, write the plan. Idempotent."""
    branch = host.default_branch()
    settings = settings or load_settings(host, branch, config)
    rules, agents = observe(host, settings, branch, trusted)
    view = decide(agents, rules)
    changes = plan_changes(view, {a.pull.number: a for a in agents})
    if not apply:
        return QueueRun(view=view, changes=changes)
    return QueueRun(view=view, changes=changes, applied=apply_changes(host, changes, log))


def apply_changes(host: QueueHost, changes: tuple[QueueChange, ...], log: Log) -> int:
    """Write the changes in order; the first failure stops the run (the next completes it),
    except a reviewer GitHub refuses (422), which is logged and skipped."""
    done = 0
    for change in changes:
        number = change.number
        if change.kind is ChangeKind.ADD_LABELS:
            host.add_labels(number, change.labels)
        elif change.kind is ChangeKind.REMOVE_LABEL:
            host.remove_label(number, change.labels[0])
        elif change.kind is ChangeKind.REQUEST_REVIEWERS:
            try:
                host.request_reviewers(number, change.reviewers, change.teams)
            except ConsensusError as exc:
                if "HTTP 422" not in exc.message:
                    raise
                log(f"warning: #{number}: GitHub refused the reviewers: {exc.message}")
                continue
        elif change.kind is ChangeKind.REQUEST_CHANGES:
            host.create_review(
                number,
                commit_sha=change.head_sha,
                body=change.body,
                event="REQUEST_CHANGES",
                comments=[],
            )
        elif change.kind is ChangeKind.CREATE_COMMENT:
            host.create_issue_comment(number, change.body)
        else:
            assert change.comment_id is not None
            host.edit_issue_comment(change.comment_id, change.body)
        done += 1
        log(change.describe())
    return done


def queue_markdown(
    host: QueueHost,
    *,
    config: str = ".consensus.yml",
    trusted: Collection[str] = (),
    now: datetime.datetime | None = None,
) -> str:
    """The queue as Markdown, read-only: what `/consensus queue` replies."""
    run = reconcile(host, apply=False, log=lambda line: None, config=config, trusted=trusted)
    return render_queue_markdown(run.view, now or datetime.datetime.now(datetime.timezone.utc))


# --------------------------------------------------------------------------- the Action


def github_host(env: Mapping[str, str], repo: str, log: Log, interval_s: float = 1.0) -> QueueHost:
    from consensus.github_host import GitHubHost

    return GitHubHost(
        repo,
        token=env.get("GITHUB_TOKEN", ""),
        base_url=env.get("GITHUB_API_URL") or "https://api.github.com",
        write_interval_s=interval_s,
        log=log,
        conditional=True,
    )


def as_queue_host(host: object) -> QueueHost | None:
    return cast(QueueHost, host) if hasattr(host, "open_pulls") else None


def run_in_action(
    env: Mapping[str, str],
    host: object,
    log: Log,
    *,
    why: str,
    pull_payload: Mapping[str, Any] | None = None,
) -> int:
    """Reconcile from a workflow run (schedule, dispatch, a PR opened, pushed, closed or
    reviewed). With `pull_payload` (after a review), only when that PR is an agent PR."""
    from consensus.action_inputs import ActionInputs

    if pull_payload is not None and not _maybe_agent(pull_payload):
        return 0  # a human's unlabelled PR: no request spent on the queue
    inputs = ActionInputs.from_env(env)
    repo = env.get("GITHUB_REPOSITORY", "").strip()
    queue_host = as_queue_host(host) or github_host(env, repo, log, inputs.post_interval_s)
    trusted = [inputs.trusted_login] if inputs.trusted_login else []
    branch = queue_host.default_branch()
    settings = load_settings(queue_host, branch, inputs.config)
    if pull_payload is not None and not payload_is_agent(pull_payload, settings):
        return 0
    log(f"agent-PR queue: reconciling ({why})")
    try:
        run = reconcile(
            queue_host,
            apply=True,
            log=log,
            config=inputs.config,
            trusted=trusted,
            settings=settings,
        )
    except ConsensusError as exc:
        if "HTTP 403" not in exc.message:
            raise
        # A fork PR's run, or a workflow without write permissions: not this run's job.
        log(f"agent-PR queue: the token may not write ({exc.message}); the next run will")
        return 0
    ready = sum(1 for e in run.view.entries if e.status is QueueStatus.READY)
    log(
        f"agent-PR queue: {ready} in review, {len(run.view.entries)} agent PR(s), "
        f"{run.applied} change(s) written"
    )
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        now = datetime.datetime.now(datetime.timezone.utc)
        with Path(summary).open("a", encoding="utf-8") as handle:
            handle.write(render_queue_markdown(run.view, now) + "\n")
    return 0


def _maybe_agent(payload: Mapping[str, Any]) -> bool:
    """Before the config is read: a bot author, or labels (perhaps the agent label)."""
    pull = payload.get("pull_request") or {}
    user = pull.get("user") or {}
    login = str(user.get("login") or "")
    return str(user.get("type")) == "Bot" or login.endswith("[bot]") or bool(pull.get("labels"))


def payload_is_agent(payload: Mapping[str, Any], settings: Settings) -> bool:
    """Whether the event's pull request is an agent PR (from the payload: no request)."""
    pull = payload.get("pull_request") or {}
    user = pull.get("user") or {}
    login = str(user.get("login") or "")
    opened = OpenPull(
        number=int(pull.get("number") or 0),
        author=login,
        author_is_bot=str(user.get("type") or "") == "Bot" or login.endswith("[bot]"),
        labels=frozenset(str(label.get("name")) for label in pull.get("labels") or ()),
        head_sha="",
    )
    return is_agent(opened, settings.queue)


def repo_from_remote(cwd: Path) -> str | None:
    """OWNER/NAME of the `origin` remote when it is on GitHub (https or ssh)."""
    from consensus.errors import DiffError
    from consensus.gitdiff import git

    try:
        url = git(cwd, ["remote", "get-url", "origin"]).decode().strip()
    except DiffError:
        return None
    match = re.search(r"github\.com[:/]([^/]+/[^/]+?)(?:\.git)?/?$", url)
    return match.group(1) if match else None
