"""A pull request reviewed and published: what `consensus action` does on a push.

Configuration and repository personas come from the PR's BASE commit through the
contents API, never from its head; the diff from the PR's files; one review (new inline
comments only) and one summary comment, edited in place. Files whose diff is unchanged
since a run decided them keep that run's decisions (the summary's hidden state,
publish/carry.py): a re-run, a `reopened` event or a push that changes one file asks the
models about nothing else. `full-review` and `/consensus review` decide every file again;
fingerprints keep anything from being posted twice either way.

What is posted is composed first (publish/compose.py) and then applied (app/pull/apply.py).
The flow returns a FlowResult (reviewed, incomplete, skipped with the reason); the face
turns it into an exit code (app/exit_codes.py).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

from consensus import __version__
from consensus.app.jobs import JobRequest, prepare_job
from consensus.app.journaled import run_review
from consensus.app.pull.apply import post
from consensus.app.pull.gates import Superseded, check_head, stopped_by_pr_budget
from consensus.app.pull.inputs import (
    base_guidelines,
    base_learned,
    fork_setup_link,
    not_reviewed,
    repository_personas,
)
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.saved_workflows import base_workflow
from consensus.app.services import ActionStep, Services
from consensus.model.diff import ReviewDiff
from consensus.model.flow_result import FlowResult
from consensus.model.report import Report
from consensus.ports import Analyzers, SourceReader
from consensus.publish.carry import Carried, carry_forward, decision_basis
from consensus.publish.compose import PullView, compose, own_part
from consensus.publish.thread import Identity, PullRequestThread
from consensus.review.job import ReviewJob
from consensus.review.pipeline import run_id_for
from consensus.review.prompt import prompts_digest
from consensus.settings.workflows import Workflow

# A push's review, and the review a slash command runs.
__all__ = ["review_and_publish", "review_pull_request"]


def review_pull_request(
    services: Services,
    step: ActionStep,
    number: int,
    *,
    event: str,
    carry: bool,
    identity: Identity,
    after: Callable[[PullContext], None] | None = None,
    event_head: str = "",
) -> FlowResult:
    """Gates first (a superseded head, a draft, a pause, the base branch's rules, a fork
    without keys, the PR's budget), then the review of the PR head, published; then `after`
    (the replies on our threads), only when an earlier run had published on the PR."""
    context = PullContext.open(services, step, number, identity)
    why = _stopped(context, event=event, event_head=event_head)
    if why is not None:
        return FlowResult.skipped(why)
    thread = context.summary_thread()  # read once by the gates: the pause, the budget, the review
    left = stopped_by_pr_budget(
        context.host,
        number,
        state=thread.state,
        budget=context.read_settings().budget,
        head=context.info.head_sha,
        ours=identity,
        words=context.words,
    )
    if left is None:
        context.log(
            f"{context.words.ref(number)}: the {context.words.short}'s budget is spent; "
            "`/consensus review` runs a review now."
        )
        return FlowResult.skipped("the pull request's budget is spent")
    running = context.running(workflow=_saved_workflow(context), allowance=left)
    result = review_and_publish(running, carry=carry, thread=thread)
    # Replies and 👍/👎 wait only on comments an earlier run posted (one a summary records).
    if after is not None and thread.summary_id is not None:
        after(running)
    return result


def _saved_workflow(context: PullContext) -> Workflow | None:
    """The saved review workflow the Action's `workflow` input names, from the base branch."""
    name = context.inputs.workflow
    if not name:
        return None
    workflow = base_workflow(context.host, context.info, name)
    context.log(
        f"{context.words.ref(context.info.number)}: running the saved review workflow '{name}'"
    )
    return workflow


def _stopped(context: PullContext, *, event: str, event_head: str) -> str | None:
    """Why the PR is not reviewed now (logged), before any model is asked; None if it is."""
    info, log, inputs = context.info, context.log, context.inputs
    pull = context.words.ref(info.number)  # "PR #4", "MR !4"
    if event_head and event_head != info.head_sha:
        log(
            f"{pull}: head {event_head[:12]} was superseded by {info.head_sha[:12]} "
            "before this run started: not reviewed (the newer push's run reviews it)."
        )
        return "superseded by a newer push"
    if info.draft and not inputs.review_drafts:
        log(f"{pull} is a draft: skipped (set review-drafts to review drafts).")
        return "a draft"
    if _paused(context, context.read_thread()):
        return "automatic reviews are paused"
    context.read_base_for_review()  # one request for what every run reads
    keys = context.services.keys
    if not_reviewed(context.read_settings(), info, keys, event=event, log=log):
        return "not reviewed by the base branch's rules"
    fork = info.head_repo != info.base_repo
    if event == "pull_request" and fork and keys.none_usable(context.read_settings()):
        log(
            f"PR #{info.number} comes from a fork ({info.head_repo or 'deleted repository'}): "
            "GitHub gives its pull_request runs no secrets, so no provider can be called. "
            "Nothing was reviewed. For fork PRs use the safe setup: "
            f"{fork_setup_link(context.step.runner)}"
        )
        return "a fork's pull_request run has no provider key"
    return None


def review_and_publish(
    context: PullContext, *, carry: bool, thread: PullRequestThread
) -> FlowResult:
    """Review the PR head and publish: one review, the summary comment, the step outputs.

    `thread`: what earlier runs left on the PR, read before anything is posted. `carry`:
    reuse the decisions the summary's state holds for files whose diff is unchanged
    (publish/carry.py); False is a fresh look that decides every file again and says where
    it decided differently.
    """
    job = _job(context)  # the diff, ingested and cut (app/jobs.py), and what reviews it
    _say_if_nothing_to_review(context, job.diff)
    basis = decision_basis([job.decision_inputs(), __version__, prompts_digest()])
    previous = own_part(thread, context.workflow).state  # a workflow's own part only
    carried = carry_forward(previous, job.diff, basis=basis, fresh=not carry)
    try:
        report = _run(context, job, carried)
    except Superseded as moved:
        context.log(
            f"{context.words.ref(context.info.number)}: {moved}: stopped before the model phase."
        )
        return FlowResult.skipped("superseded by a newer push")
    publication = compose(report, carried, job.diff, _view(context, thread))
    posted = post(context, publication)
    asks = context.read_settings().publish.request_changes_on
    return FlowResult.of(report, posted.posted, changes_floor=asks)


def _job(context: PullContext) -> ReviewJob:
    """What the review decides from: the PR's diff under the base branch's settings,
    providers, personas and guidelines, narrowed by the saved workflow when there is one;
    within what is left of the PR's budget."""
    info, settings, host = context.info, context.read_settings(), context.host
    request = JobRequest(
        settings=settings,
        providers=lambda: context.services.keys.providers(settings),
        personas=lambda chosen, source: repository_personas(host, info, chosen, source=source),
        personas_from=f"{info.base_ref} config",
        guidelines=lambda chosen: base_guidelines(host, info, chosen, context.base_files()),
        label=f"{info.base_repo}#{info.number} @ {info.head_sha[:12]}",
        workflow=context.workflow,
    )
    job = prepare_job(context.raw_diff(), request, context.services.keys, context.log)
    if context.allowance is None:
        return job
    return ReviewJob.model_validate({**dict(job), "ceiling": context.allowance.ceiling()})


def _say_if_nothing_to_review(context: PullContext, diff: ReviewDiff) -> None:
    """The report and the summary still say what was skipped and why."""
    if not diff.files:
        reasons = Counter(item.reason for item in diff.skipped)
        tally = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
        context.log(
            f"{context.words.ref(context.info.number)}: nothing to review "
            f"({len(diff.skipped)} files skipped: {tally})."
        )


def _run(context: PullContext, job: ReviewJob, carried: Carried) -> Report:
    """The run's report: the review of what is not carried, through the run journal like
    `consensus review` (resume, replay), with the carried decisions; no model is asked
    when every file's decisions are carried."""
    fresh = _review_rest(context, job, carried)
    return carried.report(
        fresh,
        job.diff,
        run_id=run_id_for(job.diff, job.settings, job.providers, job.workflow),
        threshold=job.settings.threshold,
        workflow=job.workflow.name if job.workflow else None,
        notes=context.pull_diff().notes,
    )


def _review_rest(context: PullContext, job: ReviewJob, carried: Carried) -> Report | None:
    heads = ", ".join(h[:12] for h in carried.carry.heads)
    if not carried.asks:
        context.log(
            f"every file is unchanged since {heads}: "
            "its decisions are carried, no model is asked (`/consensus review` decides afresh)"
        )
        return None
    if carried.carry.files:
        context.log(
            f"{len(carried.carry.files)} of {len(carried.digests)} files are unchanged since "
            f"{heads}: their decisions are carried"
        )
    check_head(context.host, context.info.number, context.info.head_sha)  # models from here
    rest = job.with_diff(carried.rest)
    source, trees = context.head_source(), context.trees()
    if trees is None:
        context.log(
            "warning: the judges cannot read the repository: the checkout does not hold the "
            "PR's base and head commits (actions/checkout with fetch-depth: 0); they vote on "
            "what their question shows"
        )
    analyzers = _analyzers(context, rest, source)
    run = run_review(rest, context.services, source=source, trees=trees, analyzers=analyzers)
    return asyncio.run(run)


def _analyzers(context: PullContext, job: ReviewJob, head: SourceReader) -> Analyzers | None:
    """The base branch's analyzers and SARIF files (the Action's `analyzer-sarif` among
    them), on the PR head against its base; on a fork's head the configured analyzers are
    refused (its code is not run), the SARIF files are read."""
    info = context.info
    fork = info.head_repo != info.base_repo
    workspace = context.step.runner.workspace
    base = context.base_files()
    return context.services.analyzers(job.settings, workspace, head, base, not fork)


def _view(context: PullContext, thread: PullRequestThread) -> PullView:
    """The PR as compose sees it: the thread as it was, its files, its base's learnings."""
    return PullView(
        thread=thread,
        head_sha=context.info.head_sha,
        changed=frozenset(f.path for f in context.pull_files()),
        links=context.links,
        settings=context.read_settings().publish,
        learned=base_learned(context.base_files(), context.log),
        workflow=context.workflow,
        allowance=context.allowance,
        words=context.words,
        code_at=context.code_at(),
    )


def _paused(context: PullContext, thread: PullRequestThread) -> bool:
    """`/consensus pause` stops automatic reviews of this PR (the summary's state says so)."""
    paused = thread.state.paused
    if paused is not None:
        context.log(
            f"{context.words.ref(context.info.number)}: automatic reviews are paused "
            f"(by {paused.by}); "
            "`/consensus resume` restarts them, `/consensus review` runs one now."
        )
    return paused is not None
