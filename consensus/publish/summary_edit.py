"""The summary comment's one write, composed: a new comment or an edit of ours, with its body.

Everything that changes the summary goes through one `SummaryEdit`, applied by
app/pull/apply.write_summary: a review's publication (its whole page, publish/compose.py)
and a change of the state alone (a command, a reply, labels, outcomes at close), which
`state_edit` composes here from the summary as it was read. Pure: the thread and the new
state in, the edit out.
"""

from __future__ import annotations

from consensus.model.base import Frozen
from consensus.model.host import HostWords
from consensus.publish.state import PublishState
from consensus.publish.state_section import new_summary, rewrite_summary
from consensus.publish.thread import PullRequestThread


class SummaryEdit(Frozen):
    """One write of the summary comment: a new one (`comment_id` None) or an edit of ours,
    and what the log says it did (`edited`, `posted`)."""

    comment_id: int | None
    body: str
    edited: str = "updated"
    posted: str = "posted"


def state_edit(thread: PullRequestThread, state: PublishState, words: HostWords) -> SummaryEdit:
    """`state` written into the summary comment of `thread` (a new one when there is none
    yet). A summary someone else edited last is rewritten whole: we keep no text of theirs."""
    if thread.summary_id is None:
        return SummaryEdit(
            comment_id=None, body=new_summary(state, words), posted="posted (state only)"
        )
    if not thread.summary_trusted:
        notices = [thread.state_problem] if thread.state_problem else []
        return SummaryEdit(
            comment_id=thread.summary_id,
            body=new_summary(state, words, notices),
            edited="rewritten (state only)",
        )
    return SummaryEdit(
        comment_id=thread.summary_id, body=rewrite_summary(thread.summary_body, state, words)
    )
