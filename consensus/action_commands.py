"""`consensus action` on an `issue_comment` event: slash commands (an edge over GitHub).

Safe by default, in this order, before anything is spent:

1. only a comment just *created* on a *pull request* counts: edits, deletions and plain
   issues are ignored; so are comments by bots (this one included) and by the trusted
   login the Action itself posts as;
2. the commands are parsed strictly (slash.py); configuration comes from the PR's base
   branch, as for reviews;
3. a command marked `write` (and any that spends tokens) runs only for users whose
   repository permission, asked of the collaborators API, is write, maintain or admin;
   the comment's `author_association` is never trusted. Others get a polite answer.

Accepted commands get 👀, then 🚀 when all went well or 😕 when one failed; all of a
comment's commands are answered in one reply. State (finding ids, fingerprints,
dismissals, pause) lives in the summary comment's hidden block, so any runner can answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consensus.action_inputs import ActionInputs
from consensus.command_replies import (
    WRITE_LEVELS,
    Section,
    config_section,
    denied_section,
    explain_section,
    help_section,
    personas_section,
    render_reply,
)
from consensus.commands import CommandSpec, load_commands, resolve
from consensus.config import Settings
from consensus.errors import ConsensusError, UsageError
from consensus.ports import CommandHost, PullRequestInfo
from consensus.publish import PullRequestThread, read_thread
from consensus.slash import (
    GRAMMARS,
    MAX_COMMANDS,
    ArgumentError,
    Arguments,
    Invocation,
    find_invocations,
    parse_arguments,
)
from consensus.thread_state import Dismissal, Pause, PublishState

Log = Callable[[str], None]
EYES, ROCKET, CONFUSED = "eyes", "rocket", "confused"


@dataclass
class Context:
    """One command comment being answered."""

    env: Mapping[str, str]
    inputs: ActionInputs
    host: CommandHost
    info: PullRequestInfo
    settings: Settings
    login: str
    log: Log
    permission: str | None = None
    thread: PullRequestThread = field(default_factory=PullRequestThread)

    def refresh_thread(self) -> PullRequestThread:
        trusted = [self.inputs.trusted_login] if self.inputs.trusted_login else []
        self.thread = read_thread(
            self.host.issue_comments(self.info.number), [], trusted_authors=trusted
        )
        if self.thread.state_problem:
            self.log(f"warning: {self.thread.state_problem}")
        return self.thread

    def save_state(self, state: PublishState) -> None:
        """Write `state` into the summary comment (a new one when there is none yet)."""
        from consensus.render.state_section import new_summary, rewrite_summary

        if self.thread.summary_id is None:
            created = self.host.create_issue_comment(self.info.number, new_summary(state))
            self.log(f"summary comment {created.id} posted (state only)")
        else:
            body = rewrite_summary(self.thread.summary_body, state)
            self.host.edit_issue_comment(self.thread.summary_id, body)
            self.log(f"summary comment {self.thread.summary_id} updated")
        self.refresh_thread()


def handle_comment(env: Mapping[str, str], *, log: Log, host: CommandHost | None = None) -> int:
    """Answer the slash commands of the comment in the event; the exit code."""
    specs = load_commands(handlers=GRAMMARS)  # broken command files fail here, at start-up
    payload = _payload(env)
    comment = payload.get("comment") or {}
    issue = payload.get("issue") or {}
    user = comment.get("user") or {}
    login = str(user.get("login") or "")
    inputs = ActionInputs.from_env(env)
    if payload.get("action") != "created":
        log(f"comment {payload.get('action')}: only new comments run commands; nothing to do.")
        return 0
    if not isinstance(issue.get("pull_request"), dict):
        log("a comment on an issue, not a pull request: nothing to do.")
        return 0
    if str(user.get("type")) == "Bot" or login.endswith("[bot]") or not login:
        log(f"a comment by a bot ({login or 'unknown'}): bots never run commands.")
        return 0
    if inputs.trusted_login and login == inputs.trusted_login:
        log(f"a comment by {login}, the login consensus posts as: ignored.")
        return 0
    body = str(comment.get("body") or "")
    if not find_invocations(body) and not any(
        line.lstrip().startswith("@") for line in body.splitlines()
    ):
        log("no /consensus command in the comment: nothing to do.")
        return 0
    if host is None:
        from consensus.github_host import GitHubHost

        host = GitHubHost(
            _need(env, "GITHUB_REPOSITORY"),
            token=env.get("GITHUB_TOKEN", ""),
            base_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            write_interval_s=inputs.post_interval_s,
            log=log,
        )
    from consensus.action import _settings

    info = host.pull_request(int(issue["number"]))
    settings = _settings(host, info, inputs)
    invocations = find_invocations(body, mention=settings.commands.mention)
    if not invocations:
        log("no /consensus command in the comment: nothing to do.")
        return 0
    context = Context(env, inputs, host, info, settings, login, log)
    return _answer(context, int(comment["id"]), invocations, specs)


def _answer(
    context: Context, comment_id: int, invocations: list[Invocation], specs: dict[str, CommandSpec]
) -> int:
    plan: list[tuple[Invocation, CommandSpec, Arguments]] = []
    sections: list[Section] = []
    for invocation in invocations[:MAX_COMMANDS]:
        spec = resolve(invocation.word, specs)
        if spec is None:
            sections.append(help_section(specs, unknown=invocation.word))
            continue
        try:
            arguments = parse_arguments(GRAMMARS[spec.name], invocation, spec.usage)
        except ArgumentError as exc:
            sections.append(Section(f"/consensus {spec.name}", f"Not run: {exc}", ok=False))
            continue
        if spec.needs_write and not _may_write(context):
            sections.append(denied_section(spec, context.login, context.permission or "none"))
            continue
        plan.append((invocation, spec, arguments))
    if len(invocations) > MAX_COMMANDS:
        sections.append(Section("Too many commands", f"At most {MAX_COMMANDS} run per comment."))
    if plan:
        context.host.add_reaction(comment_id, EYES)
        context.refresh_thread()
    for _, spec, arguments in plan:
        context.log(f"running /consensus {spec.name} for {context.login}")
        try:
            sections.append(HANDLERS[spec.name](context, arguments, specs))
        except ConsensusError as exc:
            context.log(f"/consensus {spec.name} failed: {exc.message}")
            sections.append(Section(f"/consensus {spec.name}", f"Failed: {exc.message}", ok=False))
    context.host.create_issue_comment(
        context.info.number, render_reply(comment_id, context.login, sections)
    )
    if plan:
        failed = any(not s.ok for s in sections)
        context.host.add_reaction(comment_id, CONFUSED if failed else ROCKET)
    return 0


def _may_write(context: Context) -> bool:
    """Asked of the collaborators API once per comment; an error there denies (fails closed)."""
    if context.permission is None:
        try:
            context.permission = context.host.collaborator_permission(context.login)
        except ConsensusError as exc:
            context.log(f"warning: cannot read {context.login}'s permission: {exc.message}")
            context.permission = "unknown"
    return context.permission in WRITE_LEVELS


# --------------------------------------------------------------------------- handlers

Handler = Callable[[Context, Arguments, dict[str, CommandSpec]], Section]


def _help(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    topic = resolve(arguments.topic, specs) if arguments.topic else None
    if arguments.topic and topic is None:
        return help_section(specs, unknown=arguments.topic)
    return help_section(specs, topic=topic)


def _explain(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = context.thread.state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    fingerprint = record.fingerprint if record else tracked.fingerprint if tracked else ""
    try:
        return explain_section(record, tracked, state.dismissal(fingerprint))
    except LookupError:
        raise _no_finding(arguments.finding, context.thread) from None


def _dismiss(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = context.thread.state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    found = record or tracked
    if found is None:
        raise _no_finding(arguments.finding, context.thread)
    dismissal = Dismissal(
        fingerprint=found.fingerprint,
        id=found.id,
        title=found.title[:200],
        by=context.login,
        reason=arguments.reason,
    )
    findings = tuple(
        t.model_copy(update={"resolved": True, "resolved_reason": "dismissed"})
        if t.fingerprint == found.fingerprint
        else t
        for t in state.findings
    )
    kept = tuple(d for d in state.dismissed if d.fingerprint != found.fingerprint)
    context.save_state(
        state.model_copy(update={"dismissed": (*kept, dismissal), "findings": findings})
    )
    why = f" ({arguments.reason})" if arguments.reason else ""
    return Section(
        f"/consensus dismiss {found.id}",
        f"Dismissed {found.id}{why}: later runs on this PR do not post it again unless the "
        "code at that place changes.",
    )


def _pause(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = context.thread.state
    if state.paused is None:
        context.save_state(state.model_copy(update={"paused": Pause(by=context.login)}))
    return Section(
        "/consensus pause",
        "Automatic reviews are paused on this PR. `/consensus resume` restarts them.",
    )


def _resume(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = context.thread.state
    if state.paused is not None:
        context.save_state(state.model_copy(update={"paused": None}))
    return Section("/consensus resume", "Automatic reviews run again on the next push.")


def _config(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    source = f"{context.inputs.config} (base branch {context.info.base_ref or 'unknown'})"
    overrides = {
        key: value
        for key, value in context.inputs.model_dump(mode="json").items()
        if key not in ("trusted_login", "post_interval_s")
    }
    return config_section(context.settings, source, overrides)


def _personas(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    from consensus.action import _personas as load_personas
    from consensus.config import resolve_providers
    from consensus.errors import ConfigError

    personas = load_personas(context.host, context.info, context.settings)
    try:
        providers = resolve_providers(context.settings, context.env)
    except ConfigError:
        providers = ()
    return personas_section(personas, providers)


def _queue(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    text = queue_status(context)
    if text is None:
        return Section("Agent-PR queue", "The agent-PR queue is not available in this version.")
    return Section("Agent-PR queue", text)


def queue_status(context: Context) -> str | None:
    """The agent-PR queue as Markdown (read-only: nothing is labelled or requested here);
    None when the host cannot list pull requests."""
    from consensus.queue_edge import as_queue_host, queue_markdown

    host = as_queue_host(context.host)
    if host is None:
        return None
    trusted = [context.inputs.trusted_login] if context.inputs.trusted_login else []
    return queue_markdown(host, config=context.inputs.config, trusted=trusted)


def _review(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    from consensus.command_run import review_now

    return review_now(context)


def _verify(context: Context, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    from consensus.command_run import verify_now

    assert arguments.finding is not None
    record = context.thread.state.record(arguments.finding)
    if record is None:
        raise _no_finding(arguments.finding, context.thread)
    return verify_now(context, record)


HANDLERS: dict[str, Handler] = {
    "review": _review,
    "explain": _explain,
    "verify": _verify,
    "dismiss": _dismiss,
    "queue": _queue,
    "personas": _personas,
    "config": _config,
    "pause": _pause,
    "resume": _resume,
    "help": _help,
}


def _no_finding(finding: str, thread: PullRequestThread) -> ConsensusError:
    ids = sorted({r.id for r in thread.state.records}, key=lambda i: int(i[1:]))
    known = f"the summary lists {', '.join(ids)}" if ids else "the summary lists no findings"
    return ConsensusError(f"there is no finding {finding} on this PR ({known})")


def _payload(env: Mapping[str, str]) -> dict[str, Any]:
    path = _need(env, "GITHUB_EVENT_PATH")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"GITHUB_EVENT_PATH {path}: cannot read the event: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"GITHUB_EVENT_PATH {path}: not an issue_comment event payload")
    return data


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set", fix="run `consensus action` inside GitHub Actions")
    return value
