"""People's decisions into the PR's state: 👍/👎 on our inline comments at each run (labels),
and every posted finding's outcome when the PR closes (publish/outcomes.py decides both).
An edge over the GitHub port: the flow takes the PR's `PullContext` (host, state, log)."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.app.pull.apply import write_state
from consensus.app.pull.pull_context import PullContext
from consensus.ports import HostComment
from consensus.publish.conversation import thread_fingerprint
from consensus.publish.outcomes import LABELS, close_outcomes, downvoters, labels_from

# People's decisions, recorded after a review and when the PR closes.
__all__ = ["record_labels", "record_outcomes"]


def record_labels(context: PullContext, comments: Sequence[HostComment] | None = None) -> None:
    """Read the reactions on our inline comments (among the PR's review `comments`, read
    when not given): only of those the listing counts a 👍 or 👎 on (or gives no counts
    for); save the labels when they changed. The summary is read only when someone gave a
    👍 or 👎."""
    if comments is None:
        comments = context.host.review_comments(context.info.number)
    ours = {
        fingerprint: comment
        for comment in comments
        if (fingerprint := thread_fingerprint(comment, context.identity)) is not None
    }
    # Who gave a 👍 or 👎 is one read per comment: only where the listing counted some.
    reactions = {
        fp: context.host.review_comment_reactions(context.info.number, comment.id)
        if comment.thumbs != 0
        else []
        for fp, comment in ours.items()
    }
    if not any(r.content in LABELS for found in reactions.values() for r in found):
        return
    thread = context.refresh_thread()
    if thread.summary_id is None:
        return
    labels = labels_from(thread.state, reactions, context.identity.logins)
    if labels != thread.state.labels:
        write_state(context, thread.state.model_copy(update={"labels": labels}))
        context.log(f"labels: {len(labels)} 👍/👎 on our inline comments recorded")


def record_outcomes(context: PullContext, *, merged: bool) -> None:
    """At close: labels read once more, then each posted finding's outcome saved."""
    record_labels(context)
    context.refresh_thread()
    state = context.summary_thread().state
    if context.summary_thread().summary_id is None or not (state.findings or state.workflows):
        context.log(f"PR #{context.info.number} closed: no finding of ours to record")
        return
    writers = frozenset(login for login in downvoters(state) if context.may_write(login))
    outcomes = close_outcomes(state, writers=writers)
    closed = "merged" if merged else "closed"
    write_state(context, state.model_copy(update={"outcomes": outcomes, "closed": closed}))
    tally = {
        kind: sum(1 for o in outcomes if o.outcome == kind)
        for kind in ("fixed", "dismissed", "left")
    }
    context.log(
        f"PR #{context.info.number} {closed}: outcomes recorded "
        + ", ".join(f"{n} {kind}" for kind, n in tally.items())
    )
