"""`consensus gitlab`: the GitLab CI face. Reads the job's variables, hands the merge request
to app/, turns the result into the job's exit code.

Dispatches on `CI_PIPELINE_SOURCE`:

- `merge_request_event`: the merge request is reviewed and published (app.pull.review:
  the target branch's configuration, one summary note, inline discussions), then the
  replies in our discussions not answered yet are answered and the 👍/👎 on our notes
  recorded (app.talk.reply_event);
- `trigger`: the pipeline a comments webhook started, with the note in `TRIGGER_PAYLOAD`:
  its slash commands, or the reply it is in one of our discussions (app.talk.note_event);
- anything else: nothing to do (exit 0).

The token is `CONSENSUS_GITLAB_TOKEN`; the other settings are the Action's, under the same
`CONSENSUS_*` names (`CONSENSUS_FAIL_ON`, `CONSENSUS_CONFIG`, …). Everything the job prints
goes through the job log (action/gitlab_log.py): the run's secrets masked, control
sequences a foreign text wrote made inert. The exit code is the Action's (app/exit_codes.py),
and a review that asks for changes (`publish.request_changes_on`) fails the job: GitLab has
no review event to carry it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from consensus.action.gitlab_log import GitLabLog
from consensus.action.log_guard import guarded
from consensus.app.exit_codes import exit_code
from consensus.app.progress import LogProgress
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.review import review_pull_request
from consensus.app.secrets import run_secrets
from consensus.app.services import ActionStep, Services
from consensus.app.talk.note_event import handle_note
from consensus.app.talk.reply_event import answer_on_pull
from consensus.app.wiring import gitlab_host, gitlab_services, gitlab_step, gitlab_token
from consensus.errors import ConsensusError, UsageError
from consensus.model.flow_result import FlowResult
from consensus.model.gitlab_events import MergeRequestHook, NoteHook
from consensus.ports import Log
from consensus.settings.gitlab_job import (
    MERGE_REQUEST_EVENT,
    TOKEN_VARIABLE,
    TRIGGER,
    GitLabJob,
    read_trigger_payload,
)


def main(env: Mapping[str, str], log: GitLabLog) -> int:
    """The job: mask every secret, then run with every line the job prints guarded; an
    error is reported through the same log. The exit code."""
    log.mask(run_secrets(env))
    return guarded(log, lambda: run(env, log=log, mask=log.mask))


def run(
    env: Mapping[str, str],
    *,
    log: Log,
    mask: Callable[[Sequence[str]], object] = lambda values: None,
) -> int:
    """Handle the pipeline `env` describes; the exit code. `mask` hides the keys the target
    branch's configuration names from what the job prints."""
    job = GitLabJob.from_env(env)
    step = gitlab_step(env, job)  # the settings, parsed once
    number, note_id = _what(job, log)
    if number is None:
        return 0
    if not gitlab_token(env):
        if job.from_fork:
            log(
                f"!{number} comes from a fork: its pipeline runs in the fork's project, "
                f"without this project's {TOKEN_VARIABLE} or provider keys. Nothing was "
                "reviewed. A maintainer can run the merge request's pipeline in this "
                "project (Pipelines → Run pipeline); the configuration is read from the "
                "target branch either way."
            )
            return 0
        raise UsageError(
            f"{TOKEN_VARIABLE} is not set",
            fix="add a project access token (role Developer, scope api) as a masked CI/CD "
            f"variable named {TOKEN_VARIABLE} (docs/gitlab.md)",
        )
    host = gitlab_host(env, job, log=log)
    try:
        # Progress goes through the log: a provider's error in it is foreign text.
        wired = gitlab_services(env, host, log=log, progress=lambda: [LogProgress(log)], mask=mask)
        result = _handle(wired, step, job, number, note_id)
    finally:
        host.close()
    inputs = step.inputs
    return exit_code(
        result,
        fail_on=inputs.fail_on,
        log=log,
        on_no_review=inputs.on_no_review,
        changes_fail=True,
    )


def _what(job: GitLabJob, log: Log) -> tuple[int | None, int | None]:
    """The merge request the pipeline is for, and the note a trigger delivered (None for a
    review); (None, None) when there is nothing to do, said in the log."""
    if job.pipeline_source == MERGE_REQUEST_EVENT:
        return job.merge_request_iid, None
    if job.pipeline_source != TRIGGER or job.trigger_payload is None:
        log(
            f"pipeline source '{job.pipeline_source}' is not handled: consensus runs in "
            "merge request pipelines, and in pipelines a comments webhook triggers."
        )
        return None, None
    event = read_trigger_payload(job.trigger_payload)
    why = _not_a_command(event, job)
    if why is not None:
        log(why)
        return None, None
    assert isinstance(event, NoteHook) and event.merge_request is not None
    return event.merge_request.iid, event.object_attributes.id


def _not_a_command(event: MergeRequestHook | NoteHook, job: GitLabJob) -> str | None:
    """Why a triggered pipeline's event asks nothing of us; None for a new note on a merge
    request of this project (its text and author are read back from the API)."""
    if isinstance(event, MergeRequestHook):
        return (
            "a merge request event in a triggered pipeline: merge request pipelines review "
            "merge requests; point the webhook at comments only. Nothing to do."
        )
    note = event.object_attributes
    if not event.on_merge_request:
        return f"a note on a {note.noteable_type or 'non-merge-request'}: nothing to do."
    if note.system:
        return "a system note (GitLab's own): nothing to do."
    if note.action not in ("", "create"):
        return f"note {note.action}: only new notes are answered; nothing to do."
    if str(event.project.id) != job.project_id:
        return (
            f"the event is of project {event.project.id}, this pipeline runs in project "
            f"{job.project_id}: nothing to do."
        )
    return None


def _handle(
    services: Services, step: ActionStep, job: GitLabJob, number: int, note_id: int | None
) -> FlowResult:
    if note_id is not None:
        return handle_note(services, step, number, note_id)
    log = services.log
    identity = PullContext.own_identity(services, step.inputs)

    def replies(context: PullContext) -> None:  # what a run missed: no comments webhook
        try:
            answer_on_pull(context)
        except ConsensusError as exc:
            log(f"warning: replies in our discussions were not answered: {exc.message}")

    return review_pull_request(
        services,
        step,
        number,
        event=MERGE_REQUEST_EVENT,
        carry=not step.inputs.full_review,
        identity=identity,
        after=replies,
        event_head=job.head_sha,
    )
