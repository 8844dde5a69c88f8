"""Slash commands in a pull request's comments: `consensus action` on an `issue_comment` event,
and `consensus gitlab` on a note a webhook's pipeline trigger delivered (app/talk/note_event.py).

Safe by default, in this order, before anything is spent:

1. only a comment just *created* on a *pull request* counts: edits, deletions and plain
   issues are ignored; so are comments by bots and by the identity consensus posts as
   (`answer_comment` takes the comment as the host has it, after those checks);
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

from dataclasses import dataclass

from consensus.app.pull.pull_context import PullContext
from consensus.app.services import ActionStep, Services
from consensus.app.talk.builtins import BUILTINS, saved_commands
from consensus.app.talk.registry import Command, lookup, workflow_command
from consensus.errors import ConsensusError
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import HostComment
from consensus.publish.answers import Section, denied_section, help_section, render_answer
from consensus.publish.slash import (
    MAX_COMMANDS,
    ArgumentError,
    Arguments,
    Invocation,
    find_invocations,
    parse_arguments,
)
from consensus.publish.thread import Identity
from consensus.render.markdown import code, escape_markdown_text
from consensus.render.untrusted import escape_line

EYES, ROCKET, CONFUSED = "eyes", "rocket", "confused"


def handle_comment(services: Services, step: ActionStep, event: IssueCommentEvent) -> FlowResult:
    """Answer the slash commands of the comment in `event`."""
    why = _ignored(event)
    if why is not None:
        services.log(why)
        return FlowResult.skipped(why)
    comment = event.comment
    said = HostComment(
        id=comment.id,
        body=comment.body,
        author=comment.user.login,
        author_is_bot=comment.user.is_bot,
    )
    return answer_comment(services, step, event.issue.number, said)


def answer_comment(
    services: Services,
    step: ActionStep,
    number: int,
    comment: HostComment,
    identity: Identity | None = None,
) -> FlowResult:
    """Answer the slash commands of `comment` on pull request `number`, as the host has it
    (a GitHub event's comment; a GitLab note read back through the API). `identity`: who we
    are, when the caller asked already."""
    builtins = BUILTINS.load()  # broken command files fail here, at start-up
    login, log = comment.author, services.log
    if identity is None:  # asked only for a comment it answers
        identity = PullContext.own_identity(services, step.inputs)
    if identity.owns(login):
        log(f"a comment by {login}, the login consensus posts as: ignored.")
        return FlowResult.skipped("a comment of consensus's own")
    context = PullContext.open(services, step, number, identity, asker=login)
    invocations = find_invocations(comment.body, mention=context.read_settings().commands.mention)
    if not invocations:
        log("no /consensus command in the comment: nothing to do.")
        return FlowResult.skipped("no command")
    runs, refused = _accepted(context, invocations, builtins)
    answered = _run(context, comment.id, runs)
    context.host.create_issue_comment(
        context.info.number, render_answer(comment.id, login, [*refused, *answered])
    )
    if runs:
        failed = any(not s.ok for s in [*refused, *answered])
        context.host.add_reaction(context.info.number, comment.id, CONFUSED if failed else ROCKET)
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


@dataclass(frozen=True)
class _Accepted:
    """A command that will run: it exists, the asker may run it, its arguments parse."""

    command: Command
    arguments: Arguments


def _accepted(
    context: PullContext, invocations: list[Invocation], builtins: dict[str, Command]
) -> tuple[list[_Accepted], list[Section]]:
    """The commands that run, in order; a section for each that does not, and why."""
    accepted: list[_Accepted] = []
    refused: list[Section] = []
    for invocation in invocations[:MAX_COMMANDS]:
        found = lookup(invocation.word, builtins) or _saved(context, invocation.word, builtins)
        if isinstance(found, Section):
            refused.append(found)
            continue
        if found.needs_write and not context.may_write(context.asker):
            permission = context.permission(context.asker)
            refused.append(denied_section(found.spec, context.asker, permission, context.words))
            continue
        try:
            arguments = parse_arguments(found.grammar, invocation, found.spec.usage)
        except ArgumentError as exc:  # its message is Markdown: what it quotes is in code()
            refused.append(Section(f"/consensus {found.name}", f"Not run: {exc}", ok=False))
            continue
        accepted.append(_Accepted(found, arguments))
    if len(invocations) > MAX_COMMANDS:
        refused.append(Section("Too many commands", f"At most {MAX_COMMANDS} run per comment."))
    return accepted, refused


def _saved(context: PullContext, word: str, builtins: dict[str, Command]) -> Command | Section:
    """The base branch's saved workflow called `word`, as a command; a failed section when
    its file is broken (naming the file and key), the help with a near miss when there is
    none of that name."""
    saved = context.saved_workflows()
    broken = saved.broken.get(word)
    if broken is not None:
        fix = f" Fix: {escape_markdown_text(broken.fix)}" if broken.fix else ""
        body = f"Not run: the workflow file is invalid: {code(broken.message)}.{fix}"
        return Section(f"/consensus {word}", body, ok=False)
    workflow = saved.found.get(word)
    if workflow is not None:
        return workflow_command(workflow)
    specs = {name: command.spec for name, command in builtins.items()}
    listed = [c.spec for c in saved_commands(context)]
    return help_section(specs, words=context.words, unknown=word, workflows=listed)


def _run(context: PullContext, comment_id: int, accepted: list[_Accepted]) -> list[Section]:
    """Run the accepted commands under 👀, each with the summary's state as it is now; a
    command that fails is a failed section, and the others still run."""
    if not accepted:
        return []
    context.host.add_reaction(context.info.number, comment_id, EYES)
    context.refresh_thread()
    sections = []
    for item in accepted:
        name = item.command.name
        context.log(f"running /consensus {name} for {context.asker}")
        try:
            sections.append(item.command.handler(context, item.arguments))
        except ConsensusError as exc:
            context.log(f"/consensus {name} failed: {exc.message}")
            sections.append(
                Section(f"/consensus {name}", f"Failed: {escape_line(exc.message)}", ok=False)
            )
    return sections
