"""The agent-PR queue from a workflow run: reconcile, and report in the step summary."""

from __future__ import annotations

import datetime
from pathlib import Path

from consensus.app.services import ActionStep, Services
from consensus.errors import GitHubError
from consensus.model.events import PullRequestEvent
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import OpenPull
from consensus.publish.thread import ACTIONS, Identity
from consensus.queue.observe import load_settings
from consensus.queue.reconcile import reconcile
from consensus.queue.standing import (
    QueueStatus,
    is_agent,
)
from consensus.queue.writes import (
    render_queue_markdown,
)


def run_in_action(
    services: Services,
    step: ActionStep,
    *,
    why: str,
    pull: PullRequestEvent | None = None,
    identity: Identity = ACTIONS,
) -> FlowResult:
    """Reconcile from a workflow run (schedule, dispatch, a PR opened, pushed, closed or
    reviewed). With `pull` (after a review), only when that PR is an agent PR."""
    done = FlowResult(kind=ResultKind.DONE, reason="the agent-PR queue")
    if pull is not None and not _maybe_agent(pull):
        return done  # a human's unlabelled PR: no request spent on the queue
    host, log, inputs = services.github_port, services.log, step.inputs
    branch = host.default_branch()
    settings = load_settings(host, branch, inputs.config)
    if pull is not None and not is_agent(_open_pull(pull), settings.queue):
        return done
    log(f"agent-PR queue: reconciling ({why})")
    try:
        run = reconcile(
            host,
            apply=True,
            log=log,
            config=inputs.config,
            identity=identity,
            settings=settings,
        )
    except GitHubError as exc:
        if exc.status != 403:
            raise
        # A fork PR's run, or a workflow without write permissions: not this run's job.
        log(f"agent-PR queue: the token may not write ({exc.message}); the next run will")
        return done
    ready = sum(1 for e in run.view.entries if e.status is QueueStatus.READY)
    log(
        f"agent-PR queue: {ready} in review, {len(run.view.entries)} agent PR(s), "
        f"{run.applied} change(s) written"
    )
    summary = step.runner.step_summary
    if summary:
        now = datetime.datetime.now(datetime.timezone.utc)
        with Path(summary).open("a", encoding="utf-8") as handle:
            handle.write(render_queue_markdown(run.view, now) + "\n")
    return done


def _maybe_agent(pull: PullRequestEvent) -> bool:
    """Before the config is read: a bot author, or labels (perhaps the agent label)."""
    return pull.pull_request.user.is_bot or bool(pull.pull_request.labels)


def _open_pull(pull: PullRequestEvent) -> OpenPull:
    """The event's pull request as the queue sees an open one (from the payload: no request)."""
    return OpenPull(
        number=pull.pull_request.number,
        author=pull.pull_request.user.login,
        author_is_bot=pull.pull_request.user.is_bot,
        labels=pull.label_names,
        head_sha="",
    )
