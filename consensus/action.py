"""`consensus action`: the GitHub Actions entry point (an edge: environment, files, GitHub).

Dispatches on GITHUB_EVENT_NAME. A pull request (opened, synchronize, reopened,
ready_for_review) is reviewed and published: configuration and repository personas come
from the PR's BASE commit through the contents API, never from its head; the diff from the
PR's files; one review (new inline comments only) and one summary comment, edited in
place. On synchronize only the files changed since the last reviewed head (the summary's
hidden state) are reviewed again, unless full-review is set or history was rewritten;
fingerprints keep anything from being posted twice either way.

Agent PRs are then placed in the agent-PR queue (`queue_edge.run_in_action`), which
`schedule`, `workflow_dispatch`, `pull_request` closed and `pull_request_review` events
reconcile on their own.

Exit codes as the CLI: 0 done, 1 findings at or above fail-on, 2 configuration, 3 no
review (no provider answered, quorum not met) unless on-no-review is "warn".
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from consensus.action_inputs import ActionInputs
from consensus.action_publish import (
    exit_code,
    post_review,
    settle_concurrent_runs,
    upsert_summary,
    write_outputs,
)
from consensus.config import Settings, parse_settings, resolve_providers, unavailable_providers
from consensus.errors import ConfigError, ConsensusError, DiffError, UsageError
from consensus.model_adapters import model_client, needed_keys, token_counter
from consensus.models import Report, ReviewDiff
from consensus.ports import (
    CommandHost,
    ComparingHost,
    HostComment,
    PullRequestHost,
    PullRequestInfo,
    SourceReader,
)
from consensus.pr_diff import (
    ContentsSource,
    build_pull_diff,
    git_sections,
    host_hunks,
    review_hunks,
)
from consensus.publish import (
    PullRequestThread,
    plan_publish,
    read_thread,
)

Log = Callable[[str], None]
REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
PR_EVENTS = frozenset({"pull_request", "pull_request_target"})
FORK_SETUP = "#fork-pull-requests"


def run(env: Mapping[str, str], *, log: Log, host: ComparingHost | None = None) -> int:
    """Handle the event in `env`; the exit code."""
    event = env.get("GITHUB_EVENT_NAME", "")
    if event == "issue_comment":
        from consensus.action_commands import handle_comment

        # GitHubHost is a CommandHost; a test's host is passed through as it is.
        return handle_comment(env, log=log, host=cast("CommandHost | None", host))
    if event in ("schedule", "workflow_dispatch", "pull_request_review"):
        return _queue(env, host, log, why=event)
    if event not in PR_EVENTS:
        log(f"event '{event or '(none)'}' is not handled: run on pull_request events.")
        return 0
    payload = _payload(env)
    action = str(payload.get("action") or "")
    if action == "closed":
        return _queue(env, host, log, why=f"#{payload['pull_request'].get('number')} closed")
    if action not in REVIEW_ACTIONS:
        log(f"{event} '{action}': nothing to review (reviews run on {sorted(REVIEW_ACTIONS)}).")
        return 0
    inputs = ActionInputs.from_env(env)
    number = int(payload["pull_request"]["number"])
    repo = _need(env, "GITHUB_REPOSITORY")
    if host is None:
        from consensus.github_host import GitHubHost

        host = GitHubHost(
            repo,
            token=env.get("GITHUB_TOKEN", ""),
            base_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            write_interval_s=inputs.post_interval_s,
            log=log,
        )
    incremental = action == "synchronize" and not inputs.full_review
    code = _review_pull_request(env, inputs, host, number, event, incremental, log)
    _queue_after_review(env, host, payload, log)
    return code


def _queue(env: Mapping[str, str], host: object, log: Log, *, why: str) -> int:
    """Reconcile the agent-PR queue (README, "Agent-PR queue")."""
    from consensus.queue_edge import run_in_action

    _need(env, "GITHUB_REPOSITORY")
    return run_in_action(env, host, log, why=why)


def _queue_after_review(
    env: Mapping[str, str], host: object, payload: dict[str, Any], log: Log
) -> None:
    """After reviewing an agent PR, its gate result moves the queue; a failure here is a
    warning (the review is published; the next run reconciles the queue)."""
    from consensus.queue_edge import run_in_action

    try:
        run_in_action(env, host, log, why="after its review", pull_payload=payload)
    except ConsensusError as exc:
        log(f"warning: the agent-PR queue was not reconciled: {exc.message}")


def _review_pull_request(
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: ComparingHost,
    number: int,
    event: str,
    incremental: bool,
    log: Log,
) -> int:
    info = host.pull_request(number)
    if info.draft and not inputs.review_drafts:
        log(f"PR #{number} is a draft: skipped (set review-drafts to review drafts).")
        return 0
    comments = host.issue_comments(number)  # read once: the pause check and the thread
    if _paused(comments, info, inputs, log):
        return 0
    settings = _settings(host, info, inputs)
    fork = info.head_repo != info.base_repo
    if event == "pull_request" and fork and _no_keys(settings, env):
        log(
            f"PR #{number} comes from a fork ({info.head_repo or 'deleted repository'}): "
            "GitHub gives its pull_request runs no secrets, so no provider can be called. "
            f"Nothing was reviewed. For fork PRs use the safe setup: {_docs(env)}"
        )
        return 0
    return _review_and_publish(env, inputs, host, info, settings, incremental, comments, log)


def _review_and_publish(
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: ComparingHost,
    info: PullRequestInfo,
    settings: Settings,
    incremental: bool,
    issue_comments: Sequence[HostComment],
    log: Log,
) -> int:
    from consensus.chunking import split_large_hunks
    from consensus.ingest import ingest
    from consensus.render.summary import render_summary

    files = host.pull_files(info.number)
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    pull = build_pull_diff(
        files,
        changed_files=info.changed_files,
        fallback=lambda: _git_sections(workspace, info),
    )
    diff = ingest(
        pull.text,
        include=settings.paths,
        exclude=settings.exclude,
        redact_patterns=settings.redact,
        gitattributes=host.read_file(".gitattributes", info.base_sha) or "",
    )
    diff = diff.model_copy(update={"skipped": (*diff.skipped, *pull.skipped)})
    thread = read_thread(
        issue_comments,
        host.review_comments(info.number),
        trusted_authors=[inputs.trusted_login] if inputs.trusted_login else [],
    )
    if thread.state_problem:
        log(f"warning: {thread.state_problem}")
    scope, scope_note = _scope(host, info, thread, log) if incremental else (None, "")
    hunks = review_hunks(diff)
    if scope is not None:
        diff = diff.model_copy(update={"files": tuple(f for f in diff.files if f.path in scope)})
    if not diff.files:
        log(f"PR #{info.number}: nothing to review ({len(diff.skipped)} files skipped).")
        return 0
    report = _review(env, settings, split_large_hunks(diff), host, info, workspace, log)
    notes = [*report.notes, *pull.notes, *([scope_note] if scope_note else [])]
    report = report.model_copy(update={"notes": notes})
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    links = [f"{server}/{info.base_repo}/"]
    plan = plan_publish(
        report,
        thread,
        settings.publish,
        head_sha=info.head_sha,
        hunks=hunks,
        reviewed_paths={p for r in report.providers if r.status == "ok" for p in r.files_seen},
        diff_paths={f.path for f in files},
        unchanged_paths={f.path for f in files} - scope if scope is not None else (),
        links=links,
    )
    plan = post_review(host, info, plan, settings, host_hunks(files), log)

    def page(with_state: bool) -> str:
        return render_summary(
            report,
            plan,
            head_sha=info.head_sha,
            links=links,
            with_state=with_state,
        )

    upsert_summary(host, info.number, thread, page(True), log)
    trusted = [inputs.trusted_login] if inputs.trusted_login else []
    settle_concurrent_runs(host, info.number, trusted, log)
    write_outputs(env, inputs, report, plan, page(False))
    return exit_code(report, plan, inputs, log)


def _paused(
    comments: Sequence[HostComment], info: PullRequestInfo, inputs: ActionInputs, log: Log
) -> bool:
    """`/consensus pause` stops automatic reviews of this PR (the summary's state says so)."""
    trusted = [inputs.trusted_login] if inputs.trusted_login else []
    thread = read_thread(comments, [], trusted_authors=trusted)
    paused = thread.state.paused
    if paused is not None:
        log(
            f"PR #{info.number}: automatic reviews are paused (by {paused.by}); "
            "`/consensus resume` restarts them, `/consensus review` runs one now."
        )
    return paused is not None


def _scope(
    host: ComparingHost, info: PullRequestInfo, thread: PullRequestThread, log: Log
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


def _payload(env: Mapping[str, str]) -> dict[str, Any]:
    path = _need(env, "GITHUB_EVENT_PATH")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"GITHUB_EVENT_PATH {path}: cannot read the event: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("pull_request"), dict):
        raise UsageError(f"GITHUB_EVENT_PATH {path}: not a pull_request event payload")
    return data


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set", fix="run `consensus action` inside GitHub Actions")
    return value


def _settings(host: PullRequestHost, info: PullRequestInfo, inputs: ActionInputs) -> Settings:
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


def _no_keys(settings: Settings, env: Mapping[str, str]) -> bool:
    try:
        providers = resolve_providers(settings, env)
    except ConfigError:
        return True
    return len(unavailable_providers(providers, env, needed_keys)) == len(providers)


def _docs(env: Mapping[str, str]) -> str:
    action_repo = env.get("CONSENSUS_ACTION_REPOSITORY", "").strip()
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    if action_repo:
        return f"{server}/{action_repo}{FORK_SETUP}"
    return f"README.md, section 'Fork pull requests' ({FORK_SETUP})"


def _git_sections(workspace: Path, info: PullRequestInfo) -> dict[str, str] | None:
    from consensus.gitdiff import git_diff

    try:
        raw = git_diff(workspace, info.base_sha, info.head_sha)
    except DiffError:
        return None
    return git_sections(raw.decode("utf-8", errors="replace"))


def _source(host: PullRequestHost, info: PullRequestInfo, workspace: Path) -> SourceReader:
    """The head's files: from the checkout when it holds the head commit, else the API."""
    from consensus.gitdiff import git
    from consensus.sources import GitRevision

    try:
        git(workspace, ["cat-file", "-e", f"{info.head_sha}^{{commit}}"])
    except DiffError:
        return ContentsSource(host, info.head_sha)
    return GitRevision(workspace, info.head_sha)


def _personas(host: PullRequestHost, info: PullRequestInfo, settings: Settings) -> list[Any]:
    from consensus.personas import load_personas, parse_persona, select_personas

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
    return select_personas(available, settings.personas, source=f"{info.base_ref} config")


def _review(
    env: Mapping[str, str],
    settings: Settings,
    diff: ReviewDiff,
    host: PullRequestHost,
    info: PullRequestInfo,
    workspace: Path,
    log: Log,
) -> Report:
    """The review, through the run journal like `consensus review` (resume, replay)."""
    from consensus.config import duplicate_model_warnings
    from consensus.progress import LogProgress
    from consensus.runner import ReviewJob, open_journal, run_review

    providers = resolve_providers(settings, env)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = unavailable_providers(providers, env, needed_keys)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    job = ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(_personas(host, info, settings)),
        unavailable=unavailable,
        verify=True,
        label=f"{info.base_repo}#{info.number} @ {info.head_sha[:12]}",
    )
    journal = open_journal(env, warn=lambda line: log(f"warning: {line}"))
    try:
        return asyncio.run(
            run_review(
                job,
                journal=journal,
                client=model_client(env),
                counter=token_counter(),
                source=_source(host, info, workspace),
                observers=[LogProgress(sys.stderr)],
                log=log,
            )
        )
    finally:
        journal.close()
