"""What a reply in one of our threads comes to, composed as a review's publication is: the
answer posted in the thread, the summary's state after it, and whether the thread is
resolved. Pure: the reply, what the flow read and asked (the state, the finding, a model's
answer, a check on the head) in; a `ReplyOutcome` out, which app/pull/apply.apply_reply
applies in one place (the state, then the answer, then the thread).
"""

from __future__ import annotations

from consensus.model.base import Frozen
from consensus.model.host import HostWords
from consensus.publish.conversation import Reply, dismissed_answer, fixed_answer, model_answer
from consensus.publish.dismissal import dismissed, resolved
from consensus.publish.state import PublishState


class ReplyOutcome(Frozen):
    """What one reply changes on the PR: `answer` posted in its thread, `state` written into
    the summary (None: unchanged), the thread resolved (`resolve`)."""

    answer: str
    state: PublishState | None = None
    resolve: bool = False


class Finding(Frozen):
    """The finding a reply is about (the thread's fingerprint), as the summary shows it: its
    id ("" when the state lost it) and its title."""

    id: str
    title: str


def _dismissed_by(state: PublishState, reply: Reply, finding: Finding, reason: str) -> PublishState:
    by, about = reply.comment.author, (finding.id, finding.title)
    return dismissed(state, reply.fingerprint, by=by, reason=reason, finding=about, via="reply")


def dismissal(
    state: PublishState, reply: Reply, finding: Finding, reason: str, words: HostWords
) -> ReplyOutcome:
    """A maintainer disagrees: the finding dismissed with their `reason`, said so, resolved."""
    return ReplyOutcome(
        answer=dismissed_answer(reply, finding.id, reason, words),
        state=_dismissed_by(state, reply, finding, reason),
        resolve=True,
    )


def fix_checked(
    state: PublishState, reply: Reply, finding: Finding, head_sha: str, *, gone: bool, why: str
) -> ReplyOutcome:
    """A "fixed" checked on the head: gone resolves the finding and its thread; else the
    answer says what still fails (`why`) or that it is not sure."""
    answer = fixed_answer(reply, finding.id, head_sha, gone=gone, why=why)
    if not gone:
        return ReplyOutcome(answer=answer)
    findings = resolved(state.findings, reply.fingerprint, "fixed")
    return ReplyOutcome(
        answer=answer, state=state.model_copy(update={"findings": findings}), resolve=True
    )


def unchecked(reply: Reply, finding: Finding, head_sha: str) -> ReplyOutcome:
    """A "fixed" about a finding the state holds no record of: nothing to check it with."""
    return ReplyOutcome(answer=fixed_answer(reply, finding.id, head_sha, gone=False, why=""))


def answered(
    state: PublishState,
    reply: Reply,
    finding: Finding,
    text: str,
    *,
    conceded: bool,
    dismissal_reason: str | None,
    words: HostWords,
) -> ReplyOutcome:
    """A model's answer (`text`, redacted and scrubbed); a concession by a person who may
    dismiss (`dismissal_reason` not None) dismisses the finding too."""
    dismissing = conceded and dismissal_reason is not None
    answer = model_answer(
        reply, finding.id, text, conceded=conceded, dismissed=dismissing, words=words
    )
    if not dismissing or dismissal_reason is None:
        return ReplyOutcome(answer=answer)
    return ReplyOutcome(answer=answer, state=_dismissed_by(state, reply, finding, dismissal_reason))
