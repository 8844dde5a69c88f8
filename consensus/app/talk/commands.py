"""`consensus action` on an `issue_comment` event: slash commands (an edge over GitHub).

Safe by default, in this order, before anything is spent:

1. only a comment just *created* on a *pull request* counts: edits, deletions and plain
   issues are ignored; so are comments by bots and by the identity consensus posts as;
2. the commands are found as CommonMark shows them (slash.py); configuration comes from
   the PR's base branch, as for reviews;
3. a command marked `write` (and any that spends tokens) runs only for users whose
   repository permission, asked of the collaborators API, is write, maintain or admin;
   the comment's `author_association` is never trusted. Others get a polite answer, and
   it comes before the arguments are looked at, so nothing they wrote is echoed;
4. arguments are parsed strictly by the command's grammar; what the answer quotes of a
   comment (a bad argument, a reason) passes through the sanitiser (render/untrusted.py).

Accepted commands get 👀, then 🚀 when all went well or 😕 when one failed; all of a
comment's commands are answered in one comment. State (finding ids, fingerprints,
dismissals, pause) lives in the summary comment's hidden block, so any runner can answer.
"""

from __future__ import annotations

from collections.abc import Callable

from consensus.app.pull.context import Turn
from consensus.app.pull.inputs import base_guidelines, base_settings, repository_personas
from consensus.app.pull.review import own_identity
from consensus.app.services import ActionStep, Services
from consensus.app.talk.spend_commands import review_now, verify_now, workflow_now
from consensus.errors import ConfigError, ConsensusError
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.publish.answers import (
    WRITE_LEVELS,
    Section,
    config_section,
    denied_section,
    explain_section,
    help_section,
    personas_section,
    render_answer,
    workflows_section,
)
from consensus.publish.slash import (
    GRAMMARS,
    MAX_COMMANDS,
    ArgumentError,
    Arguments,
    Grammar,
    Invocation,
    find_invocations,
    parse_arguments,
)
from consensus.publish.state import Dismissal, Pause
from consensus.publish.thread import PullRequestThread
from consensus.queue.apply import queue_markdown
from consensus.render.markdown import code, escape_markdown_text
from consensus.render.untrusted import escape_line
from consensus.review.guidelines import describe_guidelines
from consensus.settings.commands import CommandSpec, load_commands, resolve
from consensus.settings.workflows import Workflow, workflow_command

EYES, ROCKET, CONFUSED = "eyes", "rocket", "confused"


def handle_comment(services: Services, step: ActionStep, event: IssueCommentEvent) -> FlowResult:
    """Answer the slash commands of the comment in `event`."""
    specs = load_commands(handlers=GRAMMARS)  # broken command files fail here, at start-up
    comment, login = event.comment, event.comment.user.login
    host, log, inputs = services.host, services.log, step.inputs
    why = _ignored(event)
    if why is not None:
        log(why)
        return FlowResult.skipped(why)
    identity = own_identity(host, inputs, log)  # once per run, and only when needed
    if identity.owns(login):
        log(f"a comment by {login}, the login consensus posts as: ignored.")
        return FlowResult.skipped("a comment of consensus's own")
    info = host.pull_request(event.issue.number)
    settings = base_settings(host, info, inputs)
    services.mask(services.keys.secrets(settings))
    invocations = find_invocations(comment.body, mention=settings.commands.mention)
    if not invocations:
        log("no /consensus command in the comment: nothing to do.")
        return FlowResult.skipped("no command")
    turn = Turn(services, step, info, settings, login, identity)
    _answer(turn, comment.id, invocations, specs)
    return FlowResult(kind=ResultKind.DONE, reason="the commands were answered")


def _ignored(event: IssueCommentEvent) -> str | None:
    """Why the comment runs no command before anything is asked of GitHub; None if it may."""
    comment, login = event.comment, event.comment.user.login
    if event.action != "created":
        return f"comment {event.action}: only new comments run commands; nothing to do."
    if not event.issue.is_pull_request:
        return "a comment on an issue, not a pull request: nothing to do."
    if comment.user.is_bot or not login:
        return f"a comment by a bot ({login or 'unknown'}): bots never run commands."
    if not find_invocations(comment.body) and not any(
        line.lstrip().startswith("@") for line in comment.body.splitlines()
    ):
        return "no /consensus command in the comment: nothing to do."
    return None


def _answer(
    turn: Turn, comment_id: int, invocations: list[Invocation], specs: dict[str, CommandSpec]
) -> None:
    plan: list[tuple[Invocation, CommandSpec, Arguments]] = []
    sections: list[Section] = []
    chosen: dict[str, Workflow] = {}  # saved workflows asked for, by name
    for invocation in invocations[:MAX_COMMANDS]:
        spec = resolve(invocation.word, specs)
        if spec is None:
            workflow, problem = _saved_workflow(turn, invocation.word)
            if problem is not None:
                sections.append(problem)
                continue
            if workflow is None:
                sections.append(
                    help_section(specs, unknown=invocation.word, workflows=_listed(turn))
                )
                continue
            chosen[workflow.name] = workflow
            spec = workflow_command(workflow)
        if spec.needs_write and not _may_write(turn):
            sections.append(denied_section(spec, turn.login, turn.permission or "none"))
            continue
        grammar = Grammar.NONE if spec.name in chosen else GRAMMARS[spec.name]
        try:
            arguments = parse_arguments(grammar, invocation, spec.usage)
        except ArgumentError as exc:  # its message is Markdown: what it quotes is in code()
            sections.append(Section(f"/consensus {spec.name}", f"Not run: {exc}", ok=False))
            continue
        plan.append((invocation, spec, arguments))
    if len(invocations) > MAX_COMMANDS:
        sections.append(Section("Too many commands", f"At most {MAX_COMMANDS} run per comment."))
    if plan:
        turn.host.add_reaction(comment_id, EYES)
        turn.refresh_thread()
    for _, spec, arguments in plan:
        turn.log(f"running /consensus {spec.name} for {turn.login}")
        try:
            if spec.name in chosen:
                sections.append(workflow_now(turn, chosen[spec.name]))
            else:
                sections.append(HANDLERS[spec.name](turn, arguments, specs))
        except ConsensusError as exc:
            turn.log(f"/consensus {spec.name} failed: {exc.message}")
            why = f"Failed: {escape_line(exc.message)}"
            sections.append(Section(f"/consensus {spec.name}", why, ok=False))
    turn.host.create_issue_comment(
        turn.info.number, render_answer(comment_id, turn.login, sections)
    )
    if plan:
        failed = any(not s.ok for s in sections)
        turn.host.add_reaction(comment_id, CONFUSED if failed else ROCKET)


def _may_write(turn: Turn) -> bool:
    """Asked of the collaborators API once per comment; an error there denies (fails closed)."""
    if turn.permission is None:
        try:
            turn.permission = turn.host.collaborator_permission(turn.login)
        except ConsensusError as exc:
            turn.log(f"warning: cannot read {turn.login}'s permission: {exc.message}")
            turn.permission = "unknown"
    return turn.permission in WRITE_LEVELS


def _saved_workflow(turn: Turn, word: str) -> tuple[Workflow | None, Section | None]:
    """The base branch's saved workflow called `word`; a failed section when its file is
    broken (naming the file and key); (None, None) when there is none of that name."""
    saved = turn.workflows()
    broken = saved.broken.get(word)
    if broken is not None:
        fix = f" Fix: {escape_markdown_text(broken.fix)}" if broken.fix else ""
        body = f"Not run: the workflow file is invalid: {code(broken.message)}.{fix}"
        return None, Section(f"/consensus {word}", body, ok=False)
    return saved.found.get(word), None


def _listed(turn: Turn) -> list[CommandSpec]:
    return [workflow_command(w) for _, w in sorted(turn.workflows().found.items())]


# --------------------------------------------------------------------------- handlers

Handler = Callable[[Turn, Arguments, dict[str, CommandSpec]], Section]


def _help(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    topic = resolve(arguments.topic, specs) if arguments.topic else None
    workflows = _listed(turn)
    if arguments.topic and topic is None:
        saved = next((w for w in workflows if w.name == arguments.topic), None)
        if saved is not None:  # its text comes from a repository file: escaped
            text = {"summary": saved.summary, "help": saved.help}
            escaped = {key: escape_markdown_text(value) for key, value in text.items()}
            topic = CommandSpec.model_validate({**dict(saved), **escaped})
    if arguments.topic and topic is None:
        return help_section(specs, unknown=arguments.topic, workflows=workflows)
    return help_section(specs, topic=topic, workflows=workflows)


def _explain(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = turn.thread.state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    fingerprint = record.fingerprint if record else tracked.fingerprint if tracked else ""
    try:
        return explain_section(record, tracked, state.dismissal(fingerprint))
    except LookupError:
        raise _no_finding(arguments.finding, turn.thread) from None


def _dismiss(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = turn.thread.state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    found = record or tracked
    if found is None:
        raise _no_finding(arguments.finding, turn.thread)
    dismissal = Dismissal(
        fingerprint=found.fingerprint,
        id=found.id,
        title=found.title[:200],
        by=turn.login,
        reason=arguments.reason,
    )
    findings = tuple(
        t.model_copy(update={"resolved": True, "resolved_reason": "dismissed"})
        if t.fingerprint == found.fingerprint
        else t
        for t in state.findings
    )
    kept = tuple(d for d in state.dismissed if d.fingerprint != found.fingerprint)
    turn.save_state(
        state.model_copy(update={"dismissed": (*kept, dismissal), "findings": findings})
    )
    why = f" ({escape_line(arguments.reason)})" if arguments.reason else ""
    return Section(
        f"/consensus dismiss {found.id}",
        f"Dismissed {found.id}{why}: later runs on this PR do not post it again unless the "
        "code at that place changes.",
    )


def _pause(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = turn.thread.state
    if state.paused is None:
        turn.save_state(state.model_copy(update={"paused": Pause(by=turn.login)}))
    return Section(
        "/consensus pause",
        "Automatic reviews are paused on this PR. `/consensus resume` restarts them.",
    )


def _resume(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    state = turn.thread.state
    if state.paused is not None:
        turn.save_state(state.model_copy(update={"paused": None}))
    return Section("/consensus resume", "Automatic reviews run again on the next push.")


def _config(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    source = f"{turn.inputs.config} (base branch {turn.info.base_ref or 'unknown'})"
    overrides = {
        key: value
        for key, value in turn.inputs.model_dump(mode="json").items()
        if key not in ("trusted_login", "post_interval_s")
    }
    section = config_section(turn.settings, source, overrides)
    used = base_guidelines(turn.host, turn.info, turn.settings)
    listed = "\n".join(
        f"- {escape_markdown_text(line)}"
        for line in describe_guidelines(used, turn.settings.context)
    )
    guidelines = f"\n\n**Guidelines given to reviewers** (from the base branch):\n{listed}"
    return Section(section.title, section.body + guidelines, section.ok)


def _personas(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    personas = repository_personas(turn.host, turn.info, turn.settings)
    try:
        providers = turn.services.keys.providers(turn.settings)
    except ConfigError:
        providers = ()
    return personas_section(personas, providers)


def _workflows(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    saved = turn.workflows()
    broken = {name: exc.message for name, exc in saved.broken.items()}
    return workflows_section(_listed(turn), broken)


def _queue(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    return Section("Agent-PR queue", queue_status(turn))


def queue_status(turn: Turn) -> str:
    """The agent-PR queue as Markdown (read-only: nothing is labelled or requested here)."""
    return queue_markdown(turn.host, config=turn.inputs.config, identity=turn.identity)


def _review(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    return review_now(turn)


def _verify(turn: Turn, arguments: Arguments, specs: dict[str, CommandSpec]) -> Section:
    assert arguments.finding is not None
    record = turn.thread.state.record(arguments.finding)
    if record is None:
        raise _no_finding(arguments.finding, turn.thread)
    return verify_now(turn, record)


HANDLERS: dict[str, Handler] = {
    "review": _review,
    "explain": _explain,
    "verify": _verify,
    "dismiss": _dismiss,
    "queue": _queue,
    "personas": _personas,
    "workflows": _workflows,
    "config": _config,
    "pause": _pause,
    "resume": _resume,
    "help": _help,
}


def _no_finding(finding: str, thread: PullRequestThread) -> ConsensusError:
    ids = sorted({r.id for r in thread.state.records}, key=lambda i: int(i[1:]))
    known = f"the summary lists {', '.join(ids)}" if ids else "the summary lists no findings"
    return ConsensusError(f"there is no finding {finding} on this PR ({known})")
