"""A note on a GitLab merge request, as a webhook's pipeline trigger delivered it: a slash
command (app/talk/commands.py), or a reply in the discussion of one of our inline comments
(app/talk/reply_event.py). The same flows as on GitHub, after GitLab's own checks.

Anyone who holds the trigger token can start a pipeline with any payload, so nothing the
payload says about the note is believed but its id and its merge request: the note is
read back through the API (its text, its author, whether its author is a bot, which
discussion it is in), and the author's role is asked of the members API when a command
needs it. A note the merge request does not hold is nothing to do; so is a bot's note,
one of our own, a new discussion on the diff (commands run from comments, as on GitHub),
and a note we answered already: a payload sent twice is answered once.
"""

from __future__ import annotations

from consensus.app.pull.pull_context import PullContext
from consensus.app.services import ActionStep, Services
from consensus.app.talk.commands import answer_comment
from consensus.app.talk.reply_event import answer_on_pull
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import HostComment
from consensus.publish.answers import answer_marker
from consensus.publish.thread import Identity


def handle_note(services: Services, step: ActionStep, number: int, note_id: int) -> FlowResult:
    """Answer note `note_id` of merge request `number`: its commands, or the reply it is."""
    host, log = services.host, services.log
    on_diff = {comment.id: comment for comment in host.review_comments(number)}
    comments = [] if note_id in on_diff else host.issue_comments(number)
    note = on_diff.get(note_id) or next((c for c in comments if c.id == note_id), None)
    why = _ignored(note, number, on_diff=note_id in on_diff)
    if why is not None:
        log(why)
        return FlowResult.skipped(why)
    assert note is not None
    identity = PullContext.own_identity(services, step.inputs)
    if identity.owns(note.author):
        log(f"a note by {note.author}, the user consensus posts as: ignored.")
        return FlowResult.skipped("a note of consensus's own")
    if note_id in on_diff:  # a reply in a discussion of the diff: ours or not, it decides
        answer_on_pull(PullContext.open(services, step, number, identity), only=note_id)
        return FlowResult(kind=ResultKind.DONE, reason="the reply was read")
    if _answered(comments, note_id, identity):
        log(f"note {note_id} was answered already: nothing to do.")
        return FlowResult.skipped("answered already")
    return answer_comment(services, step, number, note, identity)


def _ignored(note: HostComment | None, number: int, *, on_diff: bool) -> str | None:
    """Why the note asks nothing of us, before our identity is asked; None if it may."""
    if note is None:
        return f"the note is not on !{number} (deleted, or the event names another): nothing to do."
    if note.author_is_bot or not note.author:
        return f"a note by a bot ({note.author or 'unknown'}): bots are never answered."
    if on_diff and note.in_reply_to is None:
        return "a new discussion on the diff, not a reply to one of ours: nothing to do."
    return None


def _answered(comments: list[HostComment], note_id: int, identity: Identity) -> bool:
    marker = answer_marker(note_id)
    return any(identity.owns(c.author) and c.body.startswith(marker) for c in comments)
