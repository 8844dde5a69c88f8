"""The agent-PR queue in one call: observe, decide, plan and, with `apply`, write the plan.

A run that stops half-way leaves GitHub partly updated; the next run observes that and
completes it.
"""

from __future__ import annotations

import datetime

from consensus.errors import GitHubError
from consensus.model.base import Frozen
from consensus.ports import GitHubPort, Log
from consensus.publish.thread import ACTIONS, Identity
from consensus.queue.codeowners import skipped_rules
from consensus.queue.observe import load_settings, observe
from consensus.queue.standing import (
    QueueView,
    decide,
)
from consensus.queue.writes import (
    ChangeKind,
    QueueChange,
    plan_changes,
    render_queue_markdown,
)
from consensus.settings.config import Settings


class QueueRun(Frozen):
    view: QueueView
    changes: tuple[QueueChange, ...]
    applied: int = 0  # changes written


def reconcile(
    host: GitHubPort,
    *,
    apply: bool,
    log: Log,
    config: str = ".consensus.yml",
    identity: Identity = ACTIONS,
    settings: Settings | None = None,
) -> QueueRun:
    """Observe, decide, plan; with `apply`, write the plan. Idempotent."""
    branch = host.default_branch()
    settings = settings or load_settings(host, branch, config)
    rules, agents = observe(host, settings, branch, identity)
    for line in skipped_rules(rules.codeowners):
        log(f"warning: {line}")
    view = decide(agents, rules)
    changes = plan_changes(view, {a.pull.number: a for a in agents})
    if not apply:
        return QueueRun(view=view, changes=changes)
    return QueueRun(view=view, changes=changes, applied=apply_changes(host, changes, log))


def apply_changes(host: GitHubPort, changes: tuple[QueueChange, ...], log: Log) -> int:
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
            except GitHubError as exc:
                if exc.status != 422:
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
            host.edit_issue_comment(number, change.comment_id, change.body)
        done += 1
        log(change.describe())
    return done


def queue_markdown(
    host: GitHubPort,
    *,
    config: str = ".consensus.yml",
    identity: Identity = ACTIONS,
    now: datetime.datetime | None = None,
) -> str:
    """The queue as Markdown, read-only: what `/consensus queue` replies."""
    run = reconcile(host, apply=False, log=lambda line: None, config=config, identity=identity)
    when = now or datetime.datetime.now(datetime.timezone.utc)
    return render_queue_markdown(run.view, when, titled=False)
