"""A pull request reviewed and published: what `consensus action` does on a push.

Configuration and repository personas come from the PR's BASE commit through the
contents API, never from its head; the diff from the PR's files; one review (new inline
comments only) and one summary comment, edited in place. Files whose diff is unchanged
since a run decided them keep that run's decisions (the summary's hidden state,
publish/carry.py): a re-run, a `reopened` event or a push that changes one file asks the
models about nothing else. `full-review` and `/consensus review` decide every file again;
fingerprints keep anything from being posted twice either way.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from consensus import __version__
from consensus.app.progress import LogProgress
from consensus.app.publishing import (
    exit_code,
    post_review,
    settle_concurrent_runs,
    sync_review_threads,
    upsert_summary,
    write_outputs,
)
from consensus.app.pull_inputs import (
    BaseFiles,
    base_guidelines,
    base_settings,
    fork_setup_link,
    not_reviewed,
    repository_personas,
)
from consensus.app.runner import run_review
from consensus.app.saved_workflows import base_workflow
from consensus.app.wiring import (
    model_client,
    no_provider_key,
    open_journal,
    pull_source,
    token_counter,
    unavailable_providers,
    workspace_sections,
)
from consensus.ingest.chunking import split_large_hunks
from consensus.ingest.pull_diff import PullDiff, build_pull_diff, host_hunks, review_hunks
from consensus.ingest.review_diff import ingest
from consensus.model.diff import ReviewDiff
from consensus.model.report import Report
from consensus.ports import Conversation, GitHubPort, Log, PullFile, PullRequestInfo
from consensus.publish.carry import (
    carried_files,
    carried_report,
    decision_basis,
    decision_changes,
    diff_digests,
    next_decisions,
    plan_carry,
    with_carried,
    without_paths,
)
from consensus.publish.plan import PublishPlan, plan_publish
from consensus.publish.state import Decisions, PublishState, with_workflow, workflow_view
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
from consensus.settings.config import (
    Settings,
    duplicate_model_warnings,
    resolve_providers,
)
from consensus.settings.workflows import VerifyMode, Workflow, narrow_providers, narrow_settings


@dataclass(frozen=True)
class PullRun:
    """One run on one pull request: where it runs, with what, and where it logs."""

    env: Mapping[str, str]
    inputs: ActionInputs
    host: GitHubPort
    info: PullRequestInfo
    settings: Settings
    log: Log
    identity: Identity  # whose comments are ours (looked up once per run)
    workflow: Workflow | None = None  # a saved review workflow (settings already narrowed)
    base: BaseFiles | None = None  # files of the base commit, read once

    def base_files(self) -> BaseFiles:
        return self.base or BaseFiles(self.host, self.info.base_sha, ())

    @property
    def workspace(self) -> Path:
        return Path(self.env.get("GITHUB_WORKSPACE") or ".")

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
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: GitHubPort,
    number: int,
    *,
    event: str,
    carry: bool,
    log: Log,
    identity: Identity,
    warn: Log | None = None,
) -> int:
    """Review PR `number` and publish; the exit code. `warn` puts a warning on the run (the
    Action's annotation) where the outcome is advisory."""
    info = host.pull_request(number)
    if info.draft and not inputs.review_drafts:
        log(f"PR #{number} is a draft: skipped (set review-drafts to review drafts).")
        return 0
    thread = pull_thread(host, number, identity, log)  # read once: the pause, the review
    if _paused(thread, info, log):
        return 0
    base = BaseFiles.for_review(host, info, inputs)  # one request for what every run reads
    settings = base_settings(host, info, inputs, base)
    if not_reviewed(settings, info, env, event=event, log=log):
        return 0
    fork = info.head_repo != info.base_repo
    if event == "pull_request" and fork and no_provider_key(settings, env):
        log(
            f"PR #{number} comes from a fork ({info.head_repo or 'deleted repository'}): "
            "GitHub gives its pull_request runs no secrets, so no provider can be called. "
            f"Nothing was reviewed. For fork PRs use the safe setup: {fork_setup_link(env)}"
        )
        return 0
    run = PullRun(env, inputs, host, info, settings, log, identity, base=base)
    if inputs.workflow:
        run = for_workflow(run, base_workflow(host, info, inputs.workflow))
        log(f"PR #{number}: running the saved review workflow '{inputs.workflow}'")
    return review_and_publish(run, carry=carry, thread=thread, warn=warn)


def for_workflow(run: PullRun, workflow: Workflow) -> PullRun:
    """The same run as saved workflow `workflow`: its settings narrowed from the base's."""
    return dataclasses.replace(
        run, settings=narrow_settings(workflow, run.settings), workflow=workflow
    )


def pull_review_diff(run: PullRun) -> tuple[ReviewDiff, PullDiff, list[PullFile]]:
    """The PR's diff as GitHub lists its files (omitted patches from the checkout), ingested
    under the base branch's settings; with the files GitHub listed."""
    info, settings = run.info, run.settings
    files = run.host.pull_files(info.number)
    pull = build_pull_diff(
        files,
        changed_files=info.changed_files,
        fallback=lambda: workspace_sections(run.workspace, info.base_sha, info.head_sha),
    )
    diff = ingest(
        pull.text,
        include=settings.paths,
        exclude=settings.exclude,
        redact_patterns=settings.redact,
        gitattributes=run.base_files().read(".gitattributes") or "",
    )
    diff = diff.model_copy(update={"skipped": (*diff.skipped, *pull.skipped)})
    return diff, pull, files


def review_and_publish(
    run: PullRun, *, carry: bool, thread: PullRequestThread, warn: Log | None = None
) -> int:
    """Review the PR head and publish: one review, the summary comment, the step outputs.

    `carry`: reuse the decisions the summary's state holds for files whose diff is unchanged
    (publish/carry.py); False is a fresh look that decides every file again and says where
    it decided differently.
    """
    host, info, log = run.host, run.info, run.log
    diff, pull, files = pull_review_diff(run)
    page_thread = thread  # a workflow sees only its own part of the state
    if run.workflow is not None:
        view = workflow_view(page_thread.state, run.workflow.name)
        thread = page_thread.model_copy(update={"state": view})
    hunks = review_hunks(diff)
    if not diff.files:  # the report and the summary still say what was skipped and why
        reasons = Counter(item.reason for item in diff.skipped)
        tally = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
        log(f"PR #{info.number}: nothing to review ({len(diff.skipped)} files skipped: {tally}).")
    decided = _decide(run, diff, thread.state, carry=carry)
    report = decided.report.model_copy(update={"notes": [*decided.report.notes, *pull.notes]})
    server = (run.env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    links = [f"{server}/{info.base_repo}/"]
    seen = {p for r in report.providers if r.status == "ok" for p in r.files_seen}
    plan = plan_publish(
        report,
        thread,
        run.settings.publish,
        head_sha=info.head_sha,
        hunks=hunks,
        reviewed_paths=seen | decided.carried_paths,
        diff_paths={f.path for f in files},
        rechecked_paths=decided.rechecked_paths,
        links=links,
        head=head_lines(diff),
    )
    state = plan.state.model_copy(update={"decisions": decided.decisions})
    plan = plan.model_copy(update={"state": state})
    plan = post_review(host, info, plan, run.settings, host_hunks(files), log)
    notices = [page_thread.state_problem] if page_thread.state_problem else []
    sync_review_threads(host, info.number, plan, thread.state, run.identity, log)

    def page(with_state: bool) -> str:
        if run.workflow is not None:
            return _workflow_page(run.workflow, page_thread, report, plan, info, links, with_state)
        carried = workflow_sections(page_thread.summary_body).values() if with_state else ()
        return render_summary(
            report,
            plan,
            head_sha=info.head_sha,
            links=links,
            notices=notices,
            with_state=with_state,
            workflows=list(carried),
        )

    upsert_summary(host, info.number, page_thread, page(True), log)
    settle_concurrent_runs(host, info.number, run.identity, log)
    write_outputs(run.env, run.inputs, report, plan, page(False))
    return exit_code(report, plan, run.inputs, log, warn)


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


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Decided:
    """A run's decisions: its report (carried findings included), what the state carries to
    the next run, and the files whose decisions were carried rather than made."""

    report: Report
    decisions: Decisions
    carried_paths: frozenset[str]
    rechecked_paths: frozenset[str]  # decided again on unchanged code (a fresh look)


def _decide(run: PullRun, diff: ReviewDiff, state: PublishState, *, carry: bool) -> Decided:
    """Carry what the state decided on unchanged code (unless `carry` is False or what decides
    changed), review the rest, and compare a fresh look with the earlier decisions."""
    job = _job(run, diff)
    basis = decision_basis([job.decision_inputs(), __version__, prompts_digest()])
    digests = diff_digests(diff)
    carried = plan_carry(state, digests, basis=basis, fresh=not carry)
    rest = without_paths(diff, carried.paths)
    asked = bool(rest.files or rest.links or not carried.files)
    if asked:
        if carried.files:
            run.log(
                f"{len(carried.files)} of {len(digests)} files are unchanged since "
                f"{', '.join(h[:12] for h in carried.heads)}: their decisions are carried"
            )
        fresh = _run(run, dataclasses.replace(job, diff=split_large_hunks(rest)))
        report = with_carried(fresh, carried)
    else:
        run.log(
            f"every file is unchanged since {', '.join(h[:12] for h in carried.heads)}: "
            "its decisions are carried, no model is asked (`/consensus review` decides afresh)"
        )
        report = carried_report(
            carried,
            diff,
            run_id=run_id_for(diff, job.settings, job.providers, job.workflow),
            threshold=job.settings.threshold,
            workflow=job.workflow.name if job.workflow else None,
        )
    report = report.model_copy(
        update={
            "decision_changes": decision_changes(report, carried),
            "carried": carried_files(carried, len(digests)),
        }
    )
    decisions = next_decisions(
        report, carried, digests, head_sha=run.info.head_sha, basis=basis, fresh_run=asked
    )
    return Decided(report, decisions, carried.paths, frozenset(f.path for f in carried.rechecked))


def _job(run: PullRun, diff: ReviewDiff) -> ReviewJob:
    """What the review decides from: the base branch's settings, providers, personas and
    guidelines, narrowed by the saved workflow when there is one."""
    env, settings, info, log = run.env, run.settings, run.info, run.log
    workflow = run.workflow
    providers = resolve_providers(settings, env)
    if workflow is not None:
        settings, providers = narrow_providers(workflow, settings, providers)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = unavailable_providers(providers, env)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    source = workflow.path if workflow is not None and workflow.personas else ""
    return ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(repository_personas(run.host, info, settings, source=source)),
        unavailable=unavailable,
        verify=workflow is None or workflow.verify is not VerifyMode.NONE,
        label=f"{info.base_repo}#{info.number} @ {info.head_sha[:12]}"
        + (f" (workflow {workflow.name})" if workflow else ""),
        workflow=workflow,
        guidelines=base_guidelines(run.host, info, settings, run.base),
    )


def _run(run: PullRun, job: ReviewJob) -> Report:
    """The review, through the run journal like `consensus review` (resume, replay)."""
    env, info, log = run.env, run.info, run.log
    journal = open_journal(env, warn=lambda line: log(f"warning: {line}"))
    try:
        return asyncio.run(
            run_review(
                job,
                journal=journal,
                client=model_client(env),
                counter=token_counter(),
                source=pull_source(run.host, info.head_sha, run.workspace),
                observers=[LogProgress(log)],
                log=log,
            )
        )
    finally:
        journal.close()
