"""`consensus action` on a `pull_request_review_comment` event, and after a push's review:
the replies on our inline comments (app/conversation.py answers them).

Only a reply just *created* in a thread counts: edits, deletions and new threads are left
alone; so are replies by bots and by the identity consensus posts as. Configuration comes
from the PR's base branch, as for reviews and slash commands. Model calls go through the
run journal (a re-run of the same event pays nothing twice) and the base branch's budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from consensus.app.command_context import Context
from consensus.app.conversation import Answered, Conversation, answer_replies, waiting
from consensus.app.outcomes import record_labels, record_outcomes
from consensus.app.pull_inputs import base_settings
from consensus.app.pull_review import own_identity
from consensus.app.spend_commands import verify_record
from consensus.app.wiring import journaled_client, open_journal, unavailable_providers
from consensus.errors import ConfigError
from consensus.model.events import ReviewCommentEvent
from consensus.ports import GitHubPort, Log, PullRequestInfo
from consensus.publish.conversation import Step
from consensus.publish.thread import Identity
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import ProviderSettings, Settings, resolve_providers


def handle_review_comment(
    env: Mapping[str, str], event: ReviewCommentEvent, *, host: GitHubPort, log: Log
) -> int:
    """Answer the reply in `event` when it is one of ours to answer; the exit code (0)."""
    comment, login = event.comment, event.comment.user.login
    if event.action != "created":
        log(f"review comment {event.action}: only new replies are answered; nothing to do.")
        return 0
    if comment.user.is_bot or not login:
        log(f"a review comment by a bot ({login or 'unknown'}): bots are never answered.")
        return 0
    if comment.in_reply_to_id is None:
        log("a new review thread, not a reply to one of ours: nothing to do.")
        return 0
    inputs = ActionInputs.from_env(env)
    identity = own_identity(host, inputs, log)
    if identity.owns(login):
        log(f"a review comment by {login}, the login consensus posts as: ignored.")
        return 0
    answer_on_pull(env, inputs, host, event.pull_request.number, identity, log, only=comment.id)
    return 0


def answer_on_pull(
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: GitHubPort,
    number: int,
    identity: Identity,
    log: Log,
    *,
    only: int | None = None,
    known: tuple[PullRequestInfo, Settings] | None = None,
) -> list[Answered]:
    """The replies on PR `number` not answered yet (or the comment `only`), answered; after
    a push's review (`only` None), the 👍/👎 on our inline comments recorded too. `known`:
    the PR and its base settings, as the review just read them."""
    if known is not None:
        context = Context(env, inputs, host, *known, "", log, identity)
    else:
        context = pull_context(env, inputs, host, number, identity, log)
    comments = host.review_comments(number)  # read once: the replies, then the reactions
    threads = waiting(context, comments, only=only)
    answered = [Answered(s.comment_id, Step.IGNORE, s.why) for s in threads.skipped]
    if threads.pending:  # the journal and a client only when someone waits for an answer
        with _conversation(context) as conversation:
            answered = answer_replies(context, conversation, threads)
    else:
        for item in answered:
            log(f"reply {item.comment_id}: {item.step.value} ({item.why})")
    if only is None:
        record_labels(context, comments)
    return answered


def close_on_pull(
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: GitHubPort,
    number: int,
    identity: Identity,
    log: Log,
    *,
    merged: bool,
) -> None:
    """PR `number` closed: every finding we posted gets its outcome in the state."""
    record_outcomes(pull_context(env, inputs, host, number, identity, log), merged=merged)


def pull_context(
    env: Mapping[str, str],
    inputs: ActionInputs,
    host: GitHubPort,
    number: int,
    identity: Identity,
    log: Log,
) -> Context:
    """The PR as the conversation sees it: its settings from the base branch."""
    info = host.pull_request(number)
    settings = base_settings(host, info, inputs)
    return Context(env, inputs, host, info, settings, "", log, identity)


@contextmanager
def _conversation(context: Context) -> Iterator[Conversation]:
    """The services a conversation needs: the journaled client (opened and finished here),
    the providers that can be called, and the check of a "fixed" finding."""
    env, info = context.env, context.info
    journal = open_journal(env, warn=lambda line: context.log(f"warning: {line}"))
    base_id = f"conversation-{info.base_repo.replace('/', '-')}-{info.number}"
    run_id, _ = journal.resolve_run(base_id, fresh=False, resume=None)
    journal.start_run(run_id, base_id, f"{info.base_repo}#{info.number} conversation", "{}")
    client = journaled_client(env, journal, run_id)
    try:
        yield Conversation(
            client=client,
            providers=_callable(context),
            check=lambda record: verify_record(context, record, client),
        )
    finally:
        journal.finish_run(run_id, status="done", report="", cost_usd=0.0)
        journal.close()


def _callable(context: Context) -> tuple[ProviderSettings, ...]:
    try:
        providers = resolve_providers(context.settings, context.env)
    except ConfigError:
        return ()
    unavailable = unavailable_providers(providers, context.env)
    return tuple(p for p in providers if p.model not in unavailable)
