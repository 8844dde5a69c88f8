"""A pull request reviewed and published: what `consensus action` does on a push.

Configuration and repository personas come from the PR's BASE commit through the
contents API, never from its head; the diff from the PR's files; one review (new inline
comments only) and one summary comment, edited in place. On synchronize only the files
changed since the last reviewed head (the summary's hidden state) are reviewed again,
unless full-review is set or history was rewritten; fingerprints keep anything from being
posted twice either way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consensus.app.progress import LogProgress
from consensus.app.publishing import (
    exit_code,
    post_review,
    settle_concurrent_runs,
    sync_review_threads,
    upsert_summary,
    write_outputs,
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
from consensus.errors import ConsensusError
from consensus.ingest.chunking import split_large_hunks
from consensus.ingest.detections import detections
from consensus.ingest.pull_diff import PullDiff, build_pull_diff, host_hunks, review_hunks
from consensus.ingest.review_diff import ingest
from consensus.model.diff import ReviewDiff
from consensus.model.report import Report
from consensus.ports import Conversation, GitHubPort, Log, PullFile, PullReader, PullRequestInfo
from consensus.publish.plan import PublishPlan, plan_publish
from consensus.publish.state import with_workflow, workflow_view
from consensus.publish.suggestion import head_lines
from consensus.publish.summary import (
    BUDGET,
    WORKFLOW_BUDGET,
    render_summary,
    render_workflow_section,
)
from consensus.publish.thread import Identity, PullRequestThread, load_thread
from consensus.publish.workflow_section import put_section, workflow_sections
from consensus.review.guidelines import Guidelines, collect_guidelines
from consensus.review.job import ReviewJob
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import (
    Settings,
    duplicate_model_warnings,
    parse_settings,
    resolve_providers,
)
from consensus.settings.personas import Persona, load_personas, parse_persona, select_personas
from consensus.settings.scope import DEPENDENCY_BOTS
from consensus.settings.workflows import VerifyMode, Workflow, narrow_providers, narrow_settings

FORK_SETUP = "#fork-pull-requests"


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
    incremental: bool,
    log: Log,
    identity: Identity,
) -> int:
    info = host.pull_request(number)
    if info.draft and not inputs.review_drafts:
        log(f"PR #{number} is a draft: skipped (set review-drafts to review drafts).")
        return 0
    thread = pull_thread(host, number, identity, log)  # read once: the pause, the review
    if _paused(thread, info, log):
        return 0
    settings = base_settings(host, info, inputs)
    if _skipped(settings, info, env, event=event, log=log):
        return 0
    fork = info.head_repo != info.base_repo
    if event == "pull_request" and fork and no_provider_key(settings, env):
        log(
            f"PR #{number} comes from a fork ({info.head_repo or 'deleted repository'}): "
            "GitHub gives its pull_request runs no secrets, so no provider can be called. "
            f"Nothing was reviewed. For fork PRs use the safe setup: {_docs(env)}"
        )
        return 0
    run = PullRun(env, inputs, host, info, settings, log, identity)
    if inputs.workflow:
        run = for_workflow(run, base_workflow(host, info, inputs.workflow))
        log(f"PR #{number}: running the saved review workflow '{inputs.workflow}'")
    return review_and_publish(run, incremental=incremental, thread=thread)


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
        gitattributes=run.host.read_file(".gitattributes", info.base_sha) or "",
    )
    diff = diff.model_copy(update={"skipped": (*diff.skipped, *pull.skipped)})
    return diff, pull, files


def review_and_publish(run: PullRun, *, incremental: bool, thread: PullRequestThread) -> int:
    """Review the PR head and publish: one review, the summary comment, the step outputs."""
    host, info, log = run.host, run.info, run.log
    diff, pull, files = pull_review_diff(run)
    page_thread = thread  # a workflow sees only its own part of the state
    if run.workflow is not None:
        view = workflow_view(page_thread.state, run.workflow.name)
        thread = page_thread.model_copy(update={"state": view})
    scope, scope_note = _scope(host, info, thread, log) if incremental else (None, "")
    hunks = review_hunks(diff)
    if scope is not None:
        diff = diff.model_copy(update={"files": tuple(f for f in diff.files if f.path in scope)})
    if not diff.files:
        reasons = Counter(item.reason for item in diff.skipped)
        tally = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
        log(f"PR #{info.number}: nothing to review ({len(diff.skipped)} files skipped: {tally}).")
        if scope is not None and not detections(diff):
            return 0  # nothing changed since the last review: its summary stands
        # Else the report and the summary still say what was skipped and why.
    report = _review(run, split_large_hunks(diff))
    notes = [*report.notes, *pull.notes, *([scope_note] if scope_note else [])]
    report = report.model_copy(update={"notes": notes})
    server = (run.env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    links = [f"{server}/{info.base_repo}/"]
    plan = plan_publish(
        report,
        thread,
        run.settings.publish,
        head_sha=info.head_sha,
        hunks=hunks,
        reviewed_paths={p for r in report.providers if r.status == "ok" for p in r.files_seen},
        diff_paths={f.path for f in files},
        unchanged_paths={f.path for f in files} - scope if scope is not None else (),
        links=links,
        head=head_lines(diff),
    )
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
    return exit_code(report, plan, run.inputs, log)


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


def _scope(
    host: GitHubPort, info: PullRequestInfo, thread: PullRequestThread, log: Log
) -> tuple[frozenset[str] | None, str]:
    """On a push: the files changed since the last reviewed head (None: the whole PR).

    Each changed file is reviewed with its whole PR diff, so findings anchor on PR lines;
    files the push left alone keep their open findings. A rewritten history (force push,
    rebase), or a comparison GitHub cannot give whole, gets a full review.
    """
    last = thread.state.head_sha
    if not last or last == info.head_sha:
        return None, ""
    try:
        comparison = host.compare(last, info.head_sha)
    except ConsensusError as exc:
        log(f"warning: cannot compare with the last reviewed head: {exc.message}")
        return None, f"the whole PR was reviewed (no comparison with {last[:12]})"
    if comparison.status != "ahead" or comparison.truncated:
        return None, f"the whole PR was reviewed: history changed since {last[:12]}"
    changed = {f.path for f in comparison.files} | {
        f.previous_path for f in comparison.files if f.previous_path
    }
    log(f"incremental review: {len(changed)} file(s) changed since {last[:12]}")
    return frozenset(changed), (
        f"incremental: only the {len(changed)} file(s) changed since {last[:12]} were reviewed "
        "(set full-review to review the whole PR on every push)"
    )


# --------------------------------------------------------------------------- inputs


def base_settings(host: PullReader, info: PullRequestInfo, inputs: ActionInputs) -> Settings:
    """The configuration of the BASE commit: a PR cannot rewrite who reviews it, or how."""
    text = host.read_file(inputs.config, info.base_sha)
    source = f"{inputs.config} (base branch {info.base_ref or info.base_sha[:12]})"
    settings = parse_settings(text, source=source) if text is not None else Settings()
    update: dict[str, Any] = {}
    if inputs.min_severity is not None:
        update["min_severity"] = inputs.min_severity
    if inputs.max_inline_comments is not None:
        update["max_inline_comments"] = inputs.max_inline_comments
    publish = settings.publish.model_copy(update=update)
    return settings.model_copy(update={"publish": publish})


def _skipped(
    settings: Settings, info: PullRequestInfo, env: Mapping[str, str], *, event: str, log: Log
) -> bool:
    """The base branch's `ignore` rules, and dependency-bot PRs whose run has no secrets."""
    why = settings.ignore.reason(author=info.author, labels=info.labels, title=info.title)
    if why is not None:
        log(f"PR #{info.number} is not reviewed: {why} (.consensus.yml on the base branch).")
        return True
    bot = info.author
    if event == "pull_request" and bot in DEPENDENCY_BOTS and no_provider_key(settings, env):
        log(
            f"PR #{info.number} was opened by {bot} and this pull_request run has no "
            f"provider key{_bot_secrets(bot)}: nothing was reviewed. To skip its PRs "
            f"quietly, list {bot} under ignore.authors in .consensus.yml."
        )
        return True
    return False


def _bot_secrets(author: str) -> str:
    if author.startswith("dependabot"):
        return (
            " (GitHub gives runs that Dependabot triggers only Dependabot secrets: add the "
            "provider keys there to review its PRs)"
        )
    return " (give the workflow the provider keys to review its PRs)"


def base_guidelines(host: PullReader, info: PullRequestInfo, settings: Settings) -> Guidelines:
    """The repository's guidelines from the BASE commit (one request), redacted and capped."""
    context = settings.context
    wanted = context.guidelines if context.max_chars else ()
    found = host.read_files(wanted, info.base_sha) if wanted else {}
    return collect_guidelines(found.get, context, settings.redact)


def _docs(env: Mapping[str, str]) -> str:
    action_repo = env.get("CONSENSUS_ACTION_REPOSITORY", "").strip()
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    if action_repo:
        return f"{server}/{action_repo}{FORK_SETUP}"
    return f"README.md, section 'Fork pull requests' ({FORK_SETUP})"


def repository_personas(
    host: PullReader, info: PullRequestInfo, settings: Settings, *, source: str = ""
) -> list[Persona]:
    available = load_personas([])
    for directory in settings.persona_dirs:
        for name in host.list_dir(directory.strip("/"), info.base_sha) or []:
            if not name.endswith(".md") or name.lower() == "readme.md":
                continue
            path = f"{directory.strip('/')}/{name}"
            text = host.read_file(path, info.base_sha)
            if text is not None:
                persona = parse_persona(text, path=path, source=f"{path} (base branch)")
                available[persona.id] = persona
    return select_personas(available, settings.personas, source=source or f"{info.base_ref} config")


def _review(run: PullRun, diff: ReviewDiff) -> Report:
    """The review, through the run journal like `consensus review` (resume, replay)."""
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
    job = ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(repository_personas(run.host, info, settings, source=source)),
        unavailable=unavailable,
        verify=workflow is None or workflow.verify is not VerifyMode.NONE,
        label=f"{info.base_repo}#{info.number} @ {info.head_sha[:12]}"
        + (f" (workflow {workflow.name})" if workflow else ""),
        workflow=workflow,
        guidelines=base_guidelines(run.host, info, settings),
    )
    journal = open_journal(env, warn=lambda line: log(f"warning: {line}"))
    try:
        return asyncio.run(
            run_review(
                job,
                journal=journal,
                client=model_client(env),
                counter=token_counter(),
                source=pull_source(run.host, info.head_sha, run.workspace),
                observers=[LogProgress(sys.stderr)],
                log=log,
            )
        )
    finally:
        journal.close()
