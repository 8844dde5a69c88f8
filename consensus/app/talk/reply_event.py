"""`consensus action` on a `pull_request_review_comment` event, after a push's review, and
when a PR closes: the replies on our inline comments (app/talk/conversation.py answers them),
the 👍/👎 on them, and the outcomes (app/pull/outcomes.py).

Only a reply just *created* in a thread counts: edits, deletions and new threads are left
alone; so are replies by bots and by the identity consensus posts as. Configuration comes
from the PR's base branch, as for reviews and slash commands. Model calls go through the
run journal (a re-run of the same event pays nothing twice) and the base branch's budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from consensus.app.pull.outcomes import record_labels, record_outcomes
from consensus.app.pull.pull_context import PullContext
from consensus.app.services import ActionStep, Services
from consensus.app.talk.conversation import (
    Answered,
    AnswerTools,
    answer_replies,
    waiting,
)
from consensus.app.talk.spend_commands import verify_record
from consensus.errors import ConfigError
from consensus.model.events import ReviewCommentEvent
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.publish.conversation import Step
from consensus.settings.config import ProviderSettings


def handle_review_comment(
    services: Services, step: ActionStep, event: ReviewCommentEvent
) -> FlowResult:
    """Answer the reply in `event` when it is one of ours to answer."""
    comment, login, log = event.comment, event.comment.user.login, services.log
    why = ""
    if event.action != "created":
        why = f"review comment {event.action}: only new replies are answered; nothing to do."
    elif comment.user.is_bot or not login:
        why = f"a review comment by a bot ({login or 'unknown'}): bots are never answered."
    elif comment.in_reply_to_id is None:
        why = "a new review thread, not a reply to one of ours: nothing to do."
    if why:
        log(why)
        return FlowResult.skipped(why)
    identity = PullContext.own_identity(services, step.inputs)
    if identity.owns(login):
        log(f"a review comment by {login}, the login consensus posts as: ignored.")
        return FlowResult.skipped("a comment of consensus's own")
    context = PullContext.open(services, step, event.pull_request.number, identity)
    answer_on_pull(context, only=comment.id)
    return FlowResult(kind=ResultKind.DONE, reason="the reply was read")


def answer_on_pull(context: PullContext, *, only: int | None = None) -> list[Answered]:
    """The replies on the PR not answered yet (or the comment `only`), answered; after a
    push's review (`only` None), the 👍/👎 on our inline comments recorded too."""
    comments = context.host.review_comments(context.info.number)  # read once: both below
    threads = waiting(context, comments, only=only)
    answered = [Answered(s.comment_id, Step.IGNORE, s.why) for s in threads.skipped]
    if threads.pending:  # the journal and a client only when someone waits for an answer
        with _answer_tools(context) as tools:
            answered = answer_replies(context, tools, threads)
    else:
        for item in answered:
            context.log(f"reply {item.comment_id}: {item.step.value} ({item.why})")
    if only is None:
        record_labels(context, comments)
    return answered


def close_on_pull(context: PullContext, *, merged: bool) -> None:
    """The PR closed: every finding we posted gets its outcome in the state."""
    record_outcomes(context, merged=merged)


@contextmanager
def _answer_tools(context: PullContext) -> Iterator[AnswerTools]:
    """What answering needs: the PR's model client (its `redact:` patterns applied) behind
    a run of the journal (opened and finished here), the providers that can be called, the
    "fixed" check."""
    info, services = context.info, context.services
    journal = services.journal()
    base_id = f"conversation-{info.base_repo.replace('/', '-')}-{info.number}"
    run_id, _ = journal.resolve_run(base_id, fresh=False, resume=None)
    journal.start_run(run_id, base_id, f"{info.base_repo}#{info.number} conversation", "{}")
    client = journal.recording_client(run_id, context.read_models())
    try:
        yield AnswerTools(
            client=client,
            providers=_callable(context),
            judge_now=lambda record: verify_record(context, record, client),
            secrets=context.secrets(),
        )
    finally:
        journal.finish_run(run_id, status="done", report="", cost_usd=0.0)
        journal.close()


def _callable(context: PullContext) -> tuple[ProviderSettings, ...]:
    keys = context.services.keys
    try:
        providers = keys.providers(context.read_settings())
    except ConfigError:
        return ()
    unavailable = keys.unavailable(providers)
    return tuple(p for p in providers if p.model not in unavailable)
