"""`consensus action`: the GitHub Actions face. Reads the event, hands it to app/.

Dispatches on GITHUB_EVENT_NAME: `pull_request` (opened, synchronize, reopened,
ready_for_review) is reviewed and published (app.pull.review), then agent PRs move in the
queue, and replies on our inline comments not answered yet are answered
(app.talk.reply_event); `issue_comment` runs slash commands (app.talk.commands);
`pull_request_review_comment` answers a reply on one of our inline comments; `schedule`,
`workflow_dispatch`, `pull_request_review` and a closed PR reconcile the agent-PR queue
(app.queue); a closed PR's findings get their outcomes (app.pull.outcomes), and with the
`learnings` input `schedule` and `workflow_dispatch` propose `.consensus/learned.yml`
(app.learnings) and do nothing else.

Each flow returns a FlowResult; app/exit_codes.py turns it into the exit code, as for the CLI:
0 done, 1 findings at or above fail-on, 2 configuration, 3 no review or an incomplete one
(no provider answered, quorum not met, budget reached) unless on-no-review is "warn".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from consensus.action.log import ActionLog
from consensus.action.log_guard import guarded
from consensus.app.exit_codes import exit_code
from consensus.app.learnings_run import update_learnings
from consensus.app.progress import LogProgress
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.review import review_pull_request
from consensus.app.queue import run_in_action
from consensus.app.secrets import run_secrets
from consensus.app.services import ActionStep, Services
from consensus.app.talk.commands import handle_comment
from consensus.app.talk.reply_event import answer_on_pull, close_on_pull, handle_review_comment
from consensus.app.wiring import action_step, github_host, services
from consensus.errors import ConsensusError, UsageError
from consensus.model.events import (
    IssueCommentEvent,
    Payload,
    PullRequestEvent,
    ReviewCommentEvent,
)
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import GitHubPort, Log
from consensus.settings.event_file import event_payload, read_event_file

REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
# A saved workflow (the `workflow` input) also runs when a label is added: "audit PRs
# labelled security" is a job with `if:` on the labels, triggered on `labeled` too.
WORKFLOW_ACTIONS = REVIEW_ACTIONS | {"labeled"}
PR_EVENTS = frozenset({"pull_request", "pull_request_target"})
QUEUE_EVENTS = frozenset({"schedule", "workflow_dispatch", "pull_request_review"})
REPLY_EVENT = "pull_request_review_comment"
LEARNINGS_EVENTS = frozenset({"schedule", "workflow_dispatch"})
P = TypeVar("P", bound=Payload)
# `api_key_env: NAME` in a .consensus.yml: read from the checkout as the run starts, so
# that a key under a name of the user's choosing is masked too.
API_KEY_ENV = re.compile(r"^[ \t-]*api_key_env:[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def main(env: Mapping[str, str], log: ActionLog) -> int:
    """The step: mask every credential, then run with every line the step prints guarded;
    an error is reported through the same log. The exit code."""
    log.mask(action_secrets(env))
    return guarded(log, lambda: run(env, log=log, warn=log.warning, mask=log.mask))


def action_secrets(env: Mapping[str, str]) -> list[str]:
    """The run's secrets (app/secrets.py) as the step starts: the keys the checked-out
    .consensus.yml names as `api_key_env` among them (the base branch's configuration,
    read later, masks the keys it names too)."""
    config = Path(env.get("GITHUB_WORKSPACE") or ".") / ".consensus.yml"
    try:
        named = API_KEY_ENV.findall(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        named = []
    return run_secrets(env, named)


def run(
    env: Mapping[str, str],
    *,
    log: Log,
    warn: Log | None = None,
    mask: Callable[[Sequence[str]], object] = lambda values: None,
    host: GitHubPort | None = None,
) -> int:
    """Handle the event in `env`; the exit code. `host` is built from `env` when not given
    (and closed when the run is over); `warn` puts a warning annotation on the run, `mask`
    hides the keys the base branch's configuration names."""
    event = env.get("GITHUB_EVENT_NAME", "")
    if not event:
        raise UsageError(
            "not running in a GitHub Actions step (GITHUB_EVENT_NAME is not set)",
            fix="`consensus action` is what action.yml runs; locally, use `consensus review`",
        )
    if event not in PR_EVENTS | QUEUE_EVENTS | {"issue_comment", REPLY_EVENT}:
        log(f"event '{event or '(none)'}' is not handled: run on pull_request events.")
        return 0
    _need(env, "GITHUB_REPOSITORY")
    step = action_step(env)  # the inputs, parsed once
    built = host or github_host(env, log=log, write_interval_s=step.inputs.post_interval_s)
    try:
        # Progress goes through the log: a provider's error in it is foreign text.
        wired = services(env, log=log, github=built, progress=lambda: [LogProgress(log)], mask=mask)
        result = _handle(env, wired, step)
    finally:
        if host is None:
            built.close()
    inputs = step.inputs
    return exit_code(
        result, fail_on=inputs.fail_on, log=log, on_no_review=inputs.on_no_review, warn=warn
    )


def _handle(env: Mapping[str, str], services: Services, step: ActionStep) -> FlowResult:
    event, host, log = env.get("GITHUB_EVENT_NAME", ""), services.github_port, services.log
    if event == "issue_comment":  # looks up our identity only for a comment it answers
        return handle_comment(services, step, read_event(env, IssueCommentEvent))
    if event == REPLY_EVENT:
        return handle_review_comment(services, step, read_event(env, ReviewCommentEvent))
    if event in QUEUE_EVENTS:
        identity = PullContext.own_identity(services, step.inputs)
        if step.inputs.learnings and event in LEARNINGS_EVENTS:  # a learnings step does only that
            update_learnings(host, identity, log)
            return FlowResult(kind=ResultKind.DONE, reason="the learnings were counted")
        return run_in_action(services, step, why=event, identity=identity)
    pull = read_event(env, PullRequestEvent)
    if pull.action == "closed":
        number, why = pull.pull_request.number, f"#{pull.pull_request.number} closed"
        identity = PullContext.own_identity(services, step.inputs)
        try:  # what people decided about our findings, for the learnings
            merged = bool(pull.pull_request.merged)
            close_on_pull(PullContext.open(services, step, number, identity), merged=merged)
        except ConsensusError as exc:
            log(f"warning: the outcomes of our findings were not recorded: {exc.message}")
        return run_in_action(services, step, why=why, identity=identity)
    reviewed_on = WORKFLOW_ACTIONS if step.inputs.workflow else REVIEW_ACTIONS
    if pull.action not in reviewed_on:
        log(f"{event} '{pull.action}': nothing to review (reviews run on {sorted(reviewed_on)}).")
        return FlowResult.skipped(f"{event} '{pull.action}'")
    # Every pull_request run carries the decisions of unchanged files (a re-run, `reopened`,
    # a push that changes one file); `full-review: true` decides every file afresh.
    carry = not step.inputs.full_review
    number = pull.pull_request.number
    identity = PullContext.own_identity(
        services, step.inputs
    )  # once per run: the review and the queue

    def replies(context: PullContext) -> None:  # what a run missed (no reply workflow, a failure)
        try:
            answer_on_pull(context)
        except ConsensusError as exc:
            log(f"warning: replies on our inline comments were not answered: {exc.message}")

    result = review_pull_request(
        services,
        step,
        number,
        event=event,
        carry=carry,
        identity=identity,
        after=replies,
        event_head=pull.pull_request.head.sha,
    )
    try:  # the gate result of an agent PR moves the queue; the review is published either way
        run_in_action(services, step, why="after its review", pull=pull, identity=identity)
    except ConsensusError as exc:
        log(f"warning: the agent-PR queue was not reconciled: {exc.message}")
    return result


def read_event(env: Mapping[str, str], model: type[P]) -> P:
    """The event file as `model`; a UsageError naming the file and the field otherwise."""
    path = _need(env, "GITHUB_EVENT_PATH")
    data = read_event_file("GITHUB_EVENT_PATH", Path(path))
    event = env.get("GITHUB_EVENT_NAME", "")
    return event_payload(
        model,
        data,
        invalid=f"GITHUB_EVENT_PATH {path}: not a valid {event} event payload",
        fix="give the step the event file GitHub wrote for this run",
    )


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set", fix="run `consensus action` inside GitHub Actions")
    return value
