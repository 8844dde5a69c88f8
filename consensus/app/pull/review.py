"""A pull request reviewed and published: what `consensus action` does on a push.

Configuration and repository personas come from the PR's BASE commit through the
contents API, never from its head; the diff from the PR's files; one review (new inline
comments only) and one summary comment, edited in place. Files whose diff is unchanged
since a run decided them keep that run's decisions (the summary's hidden state,
publish/carry.py): a re-run, a `reopened` event or a push that changes one file asks the
models about nothing else. `full-review` and `/consensus review` decide every file again;
fingerprints keep anything from being posted twice either way.

The flow returns a FlowResult (reviewed, incomplete, skipped with the reason); the face
turns it into an exit code (app/exit_codes.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from consensus import __version__
from consensus.app.jobs import JobRequest, RawDiff, prepare_job
from consensus.app.journaled import run_review
from consensus.app.pull.apply import (
    post_review,
    settle_concurrent_runs,
    sync_review_threads,
    upsert_summary,
    write_outputs,
)
from consensus.app.pull.budget import Superseded, check_head, stopped_by_pr_budget
from consensus.app.pull.inputs import (
    BaseFiles,
    base_guidelines,
    base_learned,
    base_settings,
    fork_setup_link,
    not_reviewed,
    repository_personas,
)
from consensus.app.pull.saved_workflows import base_workflow
from consensus.app.services import ActionStep, Services
from consensus.ingest.pull_diff import PullDiff, build_pull_diff, host_hunks, review_hunks
from consensus.model.base import Severity
from consensus.model.diff import ReviewDiff
from consensus.model.flow_result import FlowResult
from consensus.model.report import Report
from consensus.ports import Conversation, GitHubPort, Log, PullFile, PullRequestInfo
from consensus.publish.carry import Carried, carry_forward, decision_basis
from consensus.publish.learnings import learned_marks
from consensus.publish.plan import Placement, PublishPlan, Scope, plan_publish
from consensus.publish.spend import PrAllowance, spent_after
from consensus.publish.state import PublishState, with_workflow, workflow_view
from consensus.publish.suggestion import head_lines
from consensus.publish.summary import (
    BUDGET,
    WORKFLOW_BUDGET,
    render_summary,
    render_workflow_section,
)
from consensus.publish.thread import Identity, PullRequestThread, load_thread
from consensus.publish.workflow_section import put_section, workflow_sections
from consensus.review.job import ReviewJob
from consensus.review.pipeline import run_id_for
from consensus.review.prompt import prompts_digest
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import Settings
from consensus.settings.workflows import Workflow, narrow_settings


@dataclass(frozen=True)
class PullRun:
    """One run on one pull request: its services, its step, the PR and its settings."""

    services: Services
    step: ActionStep
    info: PullRequestInfo
    settings: Settings
    identity: Identity  # whose comments are ours (looked up once per run)
    workflow: Workflow | None = None  # a saved review workflow (settings already narrowed)
    base: BaseFiles | None = None  # files of the base commit, read once
    # An automatic run: what is left of the PR's budget (None: `/consensus review`)
    allowance: PrAllowance | None = None

    @property
    def host(self) -> GitHubPort:
        return self.services.host

    @property
    def log(self) -> Log:
        return self.services.log

    def base_files(self) -> BaseFiles:
        return self.base or BaseFiles(self.host, self.info.base_sha, ())

    def thread(self) -> PullRequestThread:
        return pull_thread(self.host, self.info.number, self.identity, self.log)


def pull_thread(host: GitHubPort, number: int, identity: Identity, log: Log) -> PullRequestThread:
    """What is on the PR now: our summary (its state believed only if we edited it last)
    and our inline comments."""
    review_comments = host.review_comments(number)
    thread = load_thread(host, number, identity, review_comments=review_comments)
    if thread.state_problem:
        log(f"warning: {thread.state_problem}")
    return thread


def own_identity(host: Conversation, inputs: ActionInputs, log: Log) -> Identity:
    """Whose comments are ours: asked of the token once per run (publish/thread.py)."""
    identity = Identity.of(host.viewer_login(), inputs.trusted_login)
    log(f"comments by {identity.describe()} are consensus's own")
    return identity


def review_pull_request(
    services: Services,
    step: ActionStep,
    number: int,
    *,
    event: str,
    carry: bool,
    identity: Identity,
    after: Callable[[PullRun], None] | None = None,
    event_head: str = "",
) -> FlowResult:
    """Gates first (a superseded head, a draft, a pause, the base branch's rules, a fork
    without keys, the PR's budget), then the review of the PR head, published; then
    `after` (the replies on our threads), only when the PR was reviewed."""
    host, log, inputs = services.host, services.log, step.inputs
    info = host.pull_request(number)
    if event_head and event_head != info.head_sha:
        log(
            f"PR #{number}: head {event_head[:12]} was superseded by {info.head_sha[:12]} "
            "before this run started: not reviewed (the newer push's run reviews it)."
        )
        return FlowResult.skipped("superseded by a newer push")
    if info.draft and not inputs.review_drafts:
        log(f"PR #{number} is a draft: skipped (set review-drafts to review drafts).")
        return FlowResult.skipped("a draft")
    thread = pull_thread(host, number, identity, log)  # read once: the pause, the review
    if _paused(thread, info, log):
        return FlowResult.skipped("automatic reviews are paused")
    base = BaseFiles.for_review(host, info, inputs)  # one request for what every run reads
    settings = base_settings(host, info, inputs, base)
    services.mask(services.keys.secrets(settings))
    if not_reviewed(settings, info, services.keys, event=event, log=log):
        return FlowResult.skipped("not reviewed by the base branch's rules")
    fork = info.head_repo != info.base_repo
    if event == "pull_request" and fork and services.keys.none_usable(settings):
        log(
            f"PR #{number} comes from a fork ({info.head_repo or 'deleted repository'}): "
            "GitHub gives its pull_request runs no secrets, so no provider can be called. "
            f"Nothing was reviewed. For fork PRs use the safe setup: {fork_setup_link(step.runner)}"
        )
        return FlowResult.skipped("a fork's pull_request run has no provider key")
    left = stopped_by_pr_budget(
        host, number, state=thread.state, budget=settings.budget, head=info.head_sha, ours=identity
    )
    if left is None:
        log(f"PR #{number}: the PR's budget is spent; `/consensus review` runs a review now.")
        return FlowResult.skipped("the pull request's budget is spent")
    run = PullRun(services, step, info, settings, identity, base=base, allowance=left)
    if inputs.workflow:
        run = for_workflow(run, base_workflow(host, info, inputs.workflow))
        log(f"PR #{number}: running the saved review workflow '{inputs.workflow}'")
    result = review_and_publish(run, carry=carry, thread=thread)
    # Replies and 👍/👎 wait only on comments an earlier run posted (one a summary records).
    if after is not None and thread.summary_id is not None:
        after(run)
    return result


def for_workflow(run: PullRun, workflow: Workflow) -> PullRun:
    """The same run as saved workflow `workflow`: its settings narrowed from the base's."""
    return dataclasses.replace(
        run, settings=narrow_settings(workflow, run.settings), workflow=workflow
    )


def pull_review_diff(run: PullRun) -> tuple[RawDiff, PullDiff, list[PullFile]]:
    """The PR's diff as GitHub lists its files (omitted patches from the checkout), with
    the base branch's .gitattributes, for `prepare_job` to ingest; and the files GitHub
    listed."""
    info = run.info
    files = run.host.pull_files(info.number)
    workspace, checkout = run.step.runner.workspace, run.services.checkout
    pull = build_pull_diff(
        files,
        changed_files=info.changed_files,
        fallback=lambda: checkout.sections(workspace, info.base_sha, info.head_sha),
    )
    gitattributes = run.base_files().read(".gitattributes") or ""
    return RawDiff(pull.text, gitattributes, pull.skipped), pull, files


def review_and_publish(run: PullRun, *, carry: bool, thread: PullRequestThread) -> FlowResult:
    """Review the PR head and publish: one review, the summary comment, the step outputs.

    `carry`: reuse the decisions the summary's state holds for files whose diff is unchanged
    (publish/carry.py); False is a fresh look that decides every file again and says where
    it decided differently.
    """
    raw, pull, files = pull_review_diff(run)
    own = _own_part(run, thread)  # a workflow sees only its own part of the state
    job = _job(run, raw)
    diff = job.diff
    _say_if_nothing_to_review(run, diff)
    basis = decision_basis([job.decision_inputs(), __version__, prompts_digest()])
    carried = carry_forward(own.state, diff, basis=basis, fresh=not carry)
    try:
        fresh = _run(run, job, carried)
    except Superseded as moved:
        run.log(f"PR #{run.info.number}: {moved}: stopped before the model phase.")
        return FlowResult.skipped("superseded by a newer push")
    report = carried.report(
        fresh,
        diff,
        run_id=run_id_for(diff, job.settings, job.providers, job.workflow),
        threshold=job.settings.threshold,
        workflow=job.workflow.name if job.workflow else None,
        notes=pull.notes,
    )
    plan = _publish(run, thread, own, report, carried, diff, files)
    return FlowResult.of(report, _posted(plan))


def _own_part(run: PullRun, thread: PullRequestThread) -> PullRequestThread:
    if run.workflow is None:
        return thread
    return PullRequestThread.model_validate(
        {**dict(thread), "state": workflow_view(thread.state, run.workflow.name)}
    )


def _say_if_nothing_to_review(run: PullRun, diff: ReviewDiff) -> None:
    """The report and the summary still say what was skipped and why."""
    if not diff.files:
        reasons = Counter(item.reason for item in diff.skipped)
        tally = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
        run.log(
            f"PR #{run.info.number}: nothing to review "
            f"({len(diff.skipped)} files skipped: {tally})."
        )


def _job(run: PullRun, raw: RawDiff) -> ReviewJob:
    """What the review decides from: the base branch's settings, providers, personas and
    guidelines, narrowed by the saved workflow when there is one."""
    info, settings = run.info, run.settings
    request = JobRequest(
        settings=settings,
        providers=lambda: run.services.keys.providers(settings),
        personas=lambda chosen, source: repository_personas(run.host, info, chosen, source=source),
        personas_from=f"{info.base_ref} config",
        guidelines=lambda chosen: base_guidelines(run.host, info, chosen, run.base),
        label=f"{info.base_repo}#{info.number} @ {info.head_sha[:12]}",
        workflow=run.workflow,
    )
    job = prepare_job(raw, request, run.services.keys, run.log)
    if run.allowance is None:
        return job
    return ReviewJob.model_validate({**dict(job), "ceiling": run.allowance.ceiling()})


def _run(run: PullRun, job: ReviewJob, carried: Carried) -> Report | None:
    """The review of what is not carried, through the run journal like `consensus review`
    (resume, replay); None when every file's decisions are carried."""
    heads = ", ".join(h[:12] for h in carried.carry.heads)
    if not carried.asks:
        run.log(
            f"every file is unchanged since {heads}: "
            "its decisions are carried, no model is asked (`/consensus review` decides afresh)"
        )
        return None
    if carried.carry.files:
        run.log(
            f"{len(carried.carry.files)} of {len(carried.digests)} files are unchanged since "
            f"{heads}: their decisions are carried"
        )
    check_head(run.host, run.info.number, run.info.head_sha)  # the model phase starts here
    checkout = run.services.checkout
    source = checkout.head_source(run.host, run.info.head_sha, run.step.runner.workspace)
    rest = job.with_diff(carried.rest)
    return asyncio.run(run_review(rest, run.services, source=source))


def _publish(
    run: PullRun,
    thread: PullRequestThread,
    own: PullRequestThread,
    report: Report,
    carried: Carried,
    diff: ReviewDiff,
    files: list[PullFile],
) -> PublishPlan:
    """The review, the review threads, the summary comment, the step's outputs."""
    host, info, log = run.host, run.info, run.log
    links = [f"{run.step.runner.server_url}/{info.base_repo}/"]
    seen = {p for r in report.providers if r.status == "ok" for p in r.files_seen}
    plan = plan_publish(
        report,
        own,
        run.settings.publish,
        scope=Scope(
            head_sha=info.head_sha,
            reviewed=seen | carried.carry.paths,
            in_diff={f.path for f in files},
            rechecked=frozenset(f.path for f in carried.carry.rechecked),
            decisions=carried.decisions(report, head_sha=info.head_sha),
        ),
        hunks=review_hunks(diff),
        links=links,
        head=head_lines(diff),
        marks=learned_marks(base_learned(run.base_files(), log), report.findings),
    )
    # What the PR's runs have spent, this one's included, in the state the summary keeps.
    spent = spent_after(thread.state.spent, report, run.allowance)
    if run.workflow is None:
        plan = PublishPlan.model_validate(
            {
                **dict(plan),
                "state": PublishState.model_validate({**dict(plan.state), "spent": spent}),
            }
        )
    else:
        thread = PullRequestThread.model_validate(
            {
                **dict(thread),
                "state": PublishState.model_validate({**dict(thread.state), "spent": spent}),
            }
        )
    plan = post_review(host, info, plan, run.settings, host_hunks(files), log)
    sync_review_threads(host, info.number, plan, own.state, run.identity, log)

    def page(with_state: bool) -> str:
        if run.workflow is not None:
            return _workflow_page(run.workflow, thread, report, plan, info, links, with_state)
        carried_sections = workflow_sections(thread.summary_body).values() if with_state else ()
        return render_summary(
            report,
            plan,
            head_sha=info.head_sha,
            links=links,
            notices=[thread.state_problem] if thread.state_problem else [],
            with_state=with_state,
            workflows=list(carried_sections),
        )

    upsert_summary(host, info.number, thread, page(True), log)
    settle_concurrent_runs(host, info.number, run.identity, log)
    write_outputs(run.step, report, plan, page(False))
    return plan


def _posted(plan: PublishPlan) -> list[Severity]:
    """The severities of what this run posted and nobody dismissed (fail-on reads them)."""
    return [
        p.finding.severity
        for p in plan.placed
        if p.finding.status.posted
        and p.placement not in (Placement.DISMISSED, Placement.SUPPRESSED)
    ]


def _workflow_page(
    workflow: Workflow,
    thread: PullRequestThread,
    report: Report,
    plan: PublishPlan,
    info: PullRequestInfo,
    links: list[str],
    with_state: bool,
) -> str:
    """The summary comment with this workflow's section (and its part of the state) redone;
    the section alone for the step summary."""
    own = workflow_sections(thread.summary_body).get(workflow.name, [])
    others = len(thread.summary_body) - len("\n".join(own))
    section = render_workflow_section(
        report,
        plan,
        title=workflow.title,
        description=workflow.description,
        head_sha=info.head_sha,
        links=links,
        budget=max(1_000, min(WORKFLOW_BUDGET, BUDGET - others)),
    )
    if not with_state:
        return "\n".join(section)
    state = with_workflow(thread.state, workflow.name, plan.state)
    return put_section(thread.summary_body, workflow.name, section, state)


def _paused(thread: PullRequestThread, info: PullRequestInfo, log: Log) -> bool:
    """`/consensus pause` stops automatic reviews of this PR (the summary's state says so)."""
    paused = thread.state.paused
    if paused is not None:
        log(
            f"PR #{info.number}: automatic reviews are paused (by {paused.by}); "
            "`/consensus resume` restarts them, `/consensus review` runs one now."
        )
    return paused is not None
