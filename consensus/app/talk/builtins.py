"""The built-in slash commands: each handler registered with its argument grammar, paired
with its file (`commands/<name>.md`) when `BUILTINS` is loaded. Registered in the order
`/consensus help` and the documentation (docs/slash-commands.md) list them.

A handler takes the PR's context and the arguments its grammar let through, and returns
its section of the answer; a ConsensusError is a failed section (app/talk/commands.py).
Only `review` and `verify` call a provider (app/talk/spend_commands.py).
"""

from __future__ import annotations

from consensus.app.pull.apply import write_state
from consensus.app.pull.inputs import base_guidelines, repository_personas
from consensus.app.pull.pull_context import PullContext
from consensus.app.talk.registry import Command, Registry, lookup, workflow_command
from consensus.app.talk.spend_commands import review_now, verify_now
from consensus.errors import ConfigError, ConsensusError
from consensus.publish.answers import (
    Section,
    config_section,
    explain_section,
    help_section,
    personas_section,
    workflows_section,
)
from consensus.publish.dismissal import dismissed
from consensus.publish.slash import Arguments, Grammar
from consensus.publish.state import Pause
from consensus.queue.reconcile import queue_markdown
from consensus.render.markdown import escape_markdown_text
from consensus.render.untrusted import escape_line
from consensus.review.guidelines import describe_guidelines
from consensus.settings.command_files import CommandSpec

BUILTINS = Registry()


def saved_commands(context: PullContext) -> list[Command]:
    """The base branch's saved review workflows, as commands, by name."""
    return [workflow_command(w) for _, w in sorted(context.saved_workflows().found.items())]


@BUILTINS.command("review", Grammar.NONE)
def _review(context: PullContext, arguments: Arguments) -> Section:
    return review_now(context)


@BUILTINS.command("explain", Grammar.FINDING)
def _explain(context: PullContext, arguments: Arguments) -> Section:
    state = context.summary_thread().state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    fingerprint = record.fingerprint if record else tracked.fingerprint if tracked else ""
    try:
        return explain_section(record, tracked, state.dismissal(fingerprint))
    except LookupError:
        raise _no_finding(arguments.finding, context) from None


@BUILTINS.command("verify", Grammar.FINDING)
def _verify(context: PullContext, arguments: Arguments) -> Section:
    assert arguments.finding is not None
    record = context.summary_thread().state.record(arguments.finding)
    if record is None:
        raise _no_finding(arguments.finding, context)
    return verify_now(context, record)


@BUILTINS.command("dismiss", Grammar.FINDING_REASON)
def _dismiss(context: PullContext, arguments: Arguments) -> Section:
    state = context.summary_thread().state
    assert arguments.finding is not None
    record, tracked = state.record(arguments.finding), state.tracked(arguments.finding)
    found = record or tracked
    if found is None:
        raise _no_finding(arguments.finding, context)
    by, reason = context.asker, arguments.reason
    finding = (found.id, found.title)
    write_state(
        context,
        dismissed(state, found.fingerprint, by=by, reason=reason, finding=finding, via="command"),
    )
    why = f" ({escape_line(arguments.reason)})" if arguments.reason else ""
    return Section(
        f"/consensus dismiss {found.id}",
        f"Dismissed {found.id}{why}: not posted again on this {context.words.short} unless "
        "its code changes.",
    )


@BUILTINS.command("queue", Grammar.NONE)
def _queue(context: PullContext, arguments: Arguments) -> Section:
    """The agent-PR queue as Markdown (read-only: nothing is labelled or requested here)."""
    host = context.services.github_port  # GitHub's only: elsewhere an error names it
    status = queue_markdown(host, config=context.inputs.config, identity=context.identity)
    return Section("Agent-PR queue", status)


@BUILTINS.command("personas", Grammar.NONE)
def _personas(context: PullContext, arguments: Arguments) -> Section:
    personas = repository_personas(context.host, context.info, context.read_settings())
    try:
        providers = context.services.keys.providers(context.read_settings())
    except ConfigError:
        providers = ()
    return personas_section(personas, providers)


@BUILTINS.command("workflows", Grammar.NONE)
def _workflows(context: PullContext, arguments: Arguments) -> Section:
    saved = context.saved_workflows()
    broken = {name: exc.message for name, exc in saved.broken.items()}
    return workflows_section([c.spec for c in saved_commands(context)], broken, words=context.words)


@BUILTINS.command("config", Grammar.NONE)
def _config(context: PullContext, arguments: Arguments) -> Section:
    source = f"{context.inputs.config} (base branch {context.info.base_ref or 'unknown'})"
    overrides = {
        key: value
        for key, value in context.inputs.model_dump(mode="json").items()
        if key not in ("trusted_login", "post_interval_s")
    }
    section = config_section(context.read_settings(), source, overrides)
    used = base_guidelines(context.host, context.info, context.read_settings())
    listed = "\n".join(
        f"- {escape_markdown_text(line)}"
        for line in describe_guidelines(used, context.read_settings().context)
    )
    guidelines = f"\n\n**Guidelines given to reviewers** (from the base branch):\n{listed}"
    return Section(section.title, section.body + guidelines, section.ok)


@BUILTINS.command("pause", Grammar.NONE)
def _pause(context: PullContext, arguments: Arguments) -> Section:
    state = context.summary_thread().state
    if state.paused is None:
        write_state(context, state.model_copy(update={"paused": Pause(by=context.asker)}))
    return Section(
        "/consensus pause",
        f"Automatic reviews are paused on this {context.words.short}. `/consensus resume` "
        "restarts them.",
    )


@BUILTINS.command("resume", Grammar.NONE)
def _resume(context: PullContext, arguments: Arguments) -> Section:
    state = context.summary_thread().state
    if state.paused is not None:
        write_state(context, state.model_copy(update={"paused": None}))
    return Section("/consensus resume", "Automatic reviews run again on the next push.")


@BUILTINS.command("help", Grammar.COMMAND)
def _help(context: PullContext, arguments: Arguments) -> Section:
    builtins = BUILTINS.load()
    specs = {name: command.spec for name, command in builtins.items()}
    workflows = [c.spec for c in saved_commands(context)]
    found = lookup(arguments.topic, builtins) if arguments.topic else None
    topic = found.spec if found is not None else None
    if arguments.topic and topic is None:
        saved = next((w for w in workflows if w.name == arguments.topic), None)
        if saved is not None:  # its text comes from a repository file: escaped
            text = {"summary": saved.summary, "help": saved.help}
            escaped = {key: escape_markdown_text(value) for key, value in text.items()}
            topic = CommandSpec.model_validate({**dict(saved), **escaped})
    if arguments.topic and topic is None:
        return help_section(
            specs, words=context.words, unknown=arguments.topic, workflows=workflows
        )
    return help_section(specs, words=context.words, topic=topic, workflows=workflows)


def _no_finding(finding: str, context: PullContext) -> ConsensusError:
    ids = sorted({r.id for r in context.summary_thread().state.records}, key=lambda i: int(i[1:]))
    known = f"the summary lists {', '.join(ids)}" if ids else "the summary lists no findings"
    where = context.words.short
    return ConsensusError(f"there is no finding {finding} on this {where} ({known})")
