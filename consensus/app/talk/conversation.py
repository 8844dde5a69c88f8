"""Replies on our inline comments, answered once: `consensus action` on a
`pull_request_review_comment` event, and every reply not answered yet at the next run.

The flow (`answer_replies`) takes its services as parameters: the PR's conversation
(`PullContext`, with the host, the base branch's settings and the summary's state), a model
client (journaled by the face) and the check of a "fixed" finding. What to do with each
reply is publish/conversation.py's pure decision, and what it comes to (the answer, the
state, the thread) publish/reply_outcome.py's pure composition, applied by
app/pull/apply.apply_reply as a review's publication is by `post`; this module reads and
asks:

- who may dismiss by reply is who may run `/consensus dismiss` (commands/dismiss.md: write,
  maintain or admin): asked of the collaborators API only for a disagreement or a
  concession, an error there denies; anyone may ask a question or say "fixed" (the cap);
- one model call at most per reply (review/converse.py), through the run's budget;
- a "fixed" reply verifies the finding on the current head (publish/state's record, never
  a carried decision) and resolves the thread when it is gone;
- every answer ends with `<!-- consensus:answer to=ID -->`: any later run sees it, so a
  reply is never answered twice, and the PR's cap counts them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from consensus.app.pull.apply import apply_reply
from consensus.app.pull.pull_context import PullContext
from consensus.app.talk.builtins import BUILTINS
from consensus.decide.judgement import Judgement
from consensus.errors import ConsensusError, HostError
from consensus.ingest.redact import redact_text
from consensus.model.reply import ConverseReply
from consensus.ports import HostComment, ModelClient
from consensus.publish.conversation import (
    FixCheck,
    Reply,
    ReplyKind,
    Step,
    Threads,
    classify_words,
    fix_outcome,
    pending_replies,
    plan_reply,
    reason_of,
    scrubbed,
)
from consensus.publish.reply_outcome import (
    Finding,
    answered,
    dismissal,
    fix_checked,
    unchecked,
)
from consensus.publish.state import FindingRecord, PublishState
from consensus.review.converse import Topic, converse, converse_request
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.settings.config import ProviderSettings

JudgeOnHead = Callable[[FindingRecord], Judgement]  # a finding judged on the current head


@dataclass(frozen=True)
class AnswerTools:
    """What answering needs besides the PR: who answers, through which client, the check."""

    client: ModelClient  # journaled by the face; budgeted here
    providers: tuple[ProviderSettings, ...]  # callable ones; the first answers
    judge_now: JudgeOnHead
    secrets: tuple[str, ...] = ()  # the run's key and token values: never written


@dataclass(frozen=True)
class Answered:
    comment_id: int
    step: Step
    why: str


def waiting(
    context: PullContext, comments: Sequence[HostComment], *, only: int | None = None
) -> Threads:
    """Our threads' replies among the PR's review `comments` waiting for an answer (or only
    the comment `only`); none when the conversation is off."""
    if not context.read_settings().conversation.enabled:
        context.log("conversation is off (conversation.enabled in .consensus.yml)")
        return Threads()
    return pending_replies(comments, context.identity, only=only)


def answer_replies(context: PullContext, tools: AnswerTools, threads: Threads) -> list[Answered]:
    """Answer the replies `threads` holds waiting (see `waiting`)."""
    done = [Answered(s.comment_id, Step.IGNORE, s.why) for s in threads.skipped]
    answers = threads.answers
    ledger = Ledger(context.read_settings().budget)
    ledger.without_plan()  # one reply: only the caps that are set hold
    client = GuardedClient(tools.client, ledger)
    for reply in threads.pending:
        step, why = _one(context, tools, client, reply, answers)
        answers += step is not Step.IGNORE
        done.append(Answered(reply.comment.id, step, why))
    for item in done:
        context.log(f"reply {item.comment_id}: {item.step.value} ({item.why})")
    return done


def _one(
    context: PullContext, tools: AnswerTools, client: ModelClient, reply: Reply, answers: int
) -> tuple[Step, str]:
    cap = context.read_settings().conversation.max_answers
    kind = classify_words(reply.comment.body)
    disagrees = kind is ReplyKind.DISAGREEMENT
    may_write = _may_dismiss(context, reply.comment.author) if disagrees else None
    plan = plan_reply(reply, kind, may_write=may_write, answers=answers, cap=cap)
    if plan.step is Step.IGNORE:  # nothing read, nothing written
        return plan.step, plan.why
    state = context.refresh_thread().state
    record = _record(state, reply.fingerprint)
    finding = Finding(
        id=record.id if record else _tracked_id(state, reply.fingerprint),
        title=record.title if record else reply.thread.body.split("\n", 1)[0],
    )
    if plan.step is Step.DISMISS:
        _dismiss(context, state, reply, finding)
        return plan.step, plan.why
    if plan.step is Step.CHECK_FIXED:
        return _check_fixed(context, tools, reply, finding, record), plan.why
    answer = _ask(context, tools, client, reply, record)
    if answer is None:
        return Step.IGNORE, "no usable answer from the model (nothing posted)"
    if plan.step is Step.CLASSIFY:
        kind = ReplyKind(answer.kind)
        if kind is ReplyKind.DISAGREEMENT:
            may_write = _may_dismiss(context, reply.comment.author)
        plan = plan_reply(reply, kind, may_write=may_write, answers=answers, cap=cap)
        if plan.step is Step.DISMISS:
            _dismiss(context, state, reply, finding)
            return plan.step, f"{plan.why} (read by the model)"
        if plan.step is Step.CHECK_FIXED:
            return _check_fixed(context, tools, reply, finding, record), plan.why
        if plan.step is not Step.ANSWER:
            return Step.IGNORE, f"{plan.why} (read by the model)"
    conceded = not answer.stands
    dismissing = conceded and _may_dismiss(context, reply.comment.author)
    redact = context.read_settings().redact
    text = scrubbed(redact_text(answer.answer, redact)[0], tools.secrets)
    outcome = answered(
        state,
        reply,
        finding,
        text,
        conceded=conceded,
        dismissal_reason=_reason(context, reply) if dismissing else None,
        words=context.words,
    )
    apply_reply(context, reply, outcome)
    return Step.ANSWER, plan.why + (" (conceded)" if conceded else "")


def _ask(
    context: PullContext,
    tools: AnswerTools,
    client: ModelClient,
    reply: Reply,
    record: FindingRecord | None,
) -> ConverseReply | None:
    if not tools.providers:
        context.log("warning: no provider can be called: replies that need a model wait")
        return None
    topic = _topic(reply, record)
    commit = reply.thread.commit_id or context.info.head_sha
    try:
        source = context.host.read_file(topic.path, commit)
    except HostError as exc:
        context.log(f"warning: cannot read {topic.path} at {commit[:12]}: {exc.message}")
        source = None
    wanted = context.read_settings().conversation.model
    provider = next((p for p in tools.providers if p.model == wanted), tools.providers[0])
    request = converse_request(
        provider,
        topic,
        source,
        author=reply.comment.author,
        reply=reply.comment.body,
        language=context.read_settings().response_language,
        redact=context.read_settings().redact,
    )
    return asyncio.run(converse(client, request))


def _topic(reply: Reply, record: FindingRecord | None) -> Topic:
    if record is not None:
        return Topic(
            title=record.title,
            body=record.body,
            path=record.path,
            line=record.line,
            end_line=record.end_line,
        )
    line = reply.thread.line or 1  # the state lost it: our inline comment says it all
    title = reply.thread.body.split("\n", 1)[0][:300]
    path = reply.thread.path or ""
    return Topic(title=title, body=reply.thread.body, path=path, line=line, end_line=line)


def _check_fixed(
    context: PullContext,
    tools: AnswerTools,
    reply: Reply,
    finding: Finding,
    record: FindingRecord | None,
) -> Step:
    """Verify the finding on the current head: gone → resolved; else what still fails."""
    head = context.info.head_sha
    if record is None:
        apply_reply(context, reply, unchecked(reply, finding, head))
        return Step.CHECK_FIXED
    try:
        checked = tools.judge_now(record)
    except ConsensusError as exc:
        context.log(f"warning: the fixed finding was not checked: {exc.message}")
        checked = None
    if checked is not None:
        context.log(f"{finding.id or record.id} checked on {head[:12]}: {checked.reason}")
    counts = checked.verification if checked is not None else None
    outcome = fix_outcome(counts.confirmed, counts.refuted, counts.uncertain) if counts else None
    gone = outcome is FixCheck.GONE
    why = _still_failing(checked) if outcome is FixCheck.STILL and checked else ""
    state = context.summary_thread().state  # as the check left it
    apply_reply(context, reply, fix_checked(state, reply, finding, head, gone=gone, why=why))
    return Step.CHECK_FIXED


def _still_failing(checked: Judgement) -> str:
    counts = checked.verification
    reasons = [v.reason for v in counts.votes if v.verdict == "confirmed"] if counts else []
    return reasons[0] if reasons else checked.reason


def _dismiss(context: PullContext, state: PublishState, reply: Reply, finding: Finding) -> None:
    reason = _reason(context, reply)
    apply_reply(context, reply, dismissal(state, reply, finding, reason, context.words))


def _reason(context: PullContext, reply: Reply) -> str:
    """The reply's words as a dismissal's reason, redacted as the repository asks."""
    return redact_text(reason_of(reply.comment.body), context.read_settings().redact)[0]


def _may_dismiss(context: PullContext, login: str) -> bool:
    """Whether `login` may dismiss, as `/consensus dismiss` says (commands/dismiss.md): their
    permission is asked only when it needs write access; an error denies (fails closed)."""
    if not BUILTINS.load()["dismiss"].needs_write:
        return True
    return context.may_write(login)


def _record(state: PublishState, fingerprint: str) -> FindingRecord | None:
    return next((r for r in state.records if r.fingerprint == fingerprint), None)


def _tracked_id(state: PublishState, fingerprint: str) -> str:
    return next((t.id for t in state.findings if t.fingerprint == fingerprint), "")
