"""What is already on the PR: our summary, our inline comments, and the state they carry.

**Ours** means written by the identity our token acts as, and nothing else (`Identity`):
the login `viewer_login()` finds once per run (a personal access token's user), else the
configured `trusted-login` (a GitHub App's `name[bot]`), else `github-actions[bot]` (a
workflow's GITHUB_TOKEN, which cannot ask who it is); plus the configured login when one
is set. Another bot imitating our markers is someone else: its comments are never read
as our summary or our inline comments, never edited, never deleted.

**The state is believed only when we wrote it last.** Anyone with write access can edit
any comment, ours included, and could make our summary's hidden state say "paused by
@someone" or dismiss a finding in someone else's name. Two ways to keep that out were
weighed:

- keep the state where only our identity can write: a check run's output can be
  updated only by the app that created it. But a personal access token cannot create
  check runs at all, a check run belongs to one commit (the state would have to be
  carried from push to push and found again after a force push), it needs one more
  permission (`checks: write`), and with the default GITHUB_TOKEN any workflow in the
  repository acts as the same app, exactly as it can edit our comment;
- keep it in the comment, and ask GitHub (GraphQL `editor`, `lastEditedAt`) who last
  edited it: one request per run, any token, no new permission, and the state stays on
  the page it describes.

We chose the second. A summary whose last editor is not our identity has its state
ignored: the next summary starts it afresh and says so in one line, and a command that
saves state rewrites the whole page rather than keep text someone else wrote under our
name. Fields of a believed state are still validated as they are read (state.py) and
sanitised wherever they are shown. With the default GITHUB_TOKEN, a workflow someone
pushes to the repository acts as `github-actions[bot]` too; a dedicated GitHub App or
token identity (and `trusted-login`) closes that door.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from consensus.model.base import Frozen
from consensus.ports import CommentEdit, Conversation, HostComment
from consensus.publish.state import (
    PublishState,
    decode_state,
    state_line_present,
)

GITHUB_ACTIONS_BOT = "github-actions[bot]"
_FP_LINE = re.compile(r"^<!-- consensus:fp=([0-9a-f]{8,64}(?:-\d{1,4})?) -->$")
SUMMARY_MARKER = "<!-- consensus:summary -->"


def fingerprint_marker(fingerprint: str) -> str:
    return f"<!-- consensus:fp={fingerprint} -->"


def review_marker(head_sha: str) -> str:
    return f"<!-- consensus:review head={head_sha} -->"


class Identity(Frozen):
    """The logins whose comments are ours (lowercase: GitHub logins ignore case)."""

    logins: frozenset[str]

    @classmethod
    def of(cls, viewer: str | None, configured: str = "") -> Identity:
        """`viewer`: who the token says it is (None for GITHUB_TOKEN); `configured`: the
        `trusted-login` input, the App's `name[bot]` or any login we also post as."""
        acting = viewer or configured or GITHUB_ACTIONS_BOT
        return cls(
            logins=frozenset(login.strip().lower() for login in (acting, configured) if login)
        )

    def owns(self, author: str) -> bool:
        return author.lower() in self.logins

    def describe(self) -> str:
        return ", ".join(sorted(self.logins))


ACTIONS = Identity.of(None)  # a workflow's GITHUB_TOKEN, with nothing configured


class PullRequestThread(Frozen):
    """What earlier runs left on the PR: the summary comment, its state, inline markers."""

    summary_id: int | None = None
    summary_body: str = ""
    state: PublishState = PublishState()
    inline_fingerprints: frozenset[str] = frozenset()
    state_problem: str = ""  # why a state block on the summary was ignored
    summary_trusted: bool = True  # False: someone else edited it last; do not keep its text


def duplicates(
    issue_comments: Sequence[HostComment],
    review_comments: Sequence[HostComment],
    *,
    identity: Identity = ACTIONS,
) -> tuple[list[int], list[int]]:
    """(review comment ids, summary ids) that repeat an older one of ours: what two runs on
    one PR at once both posted. Every run computes the same answer (the oldest survives)."""
    by_print: dict[str, list[int]] = {}
    for comment in review_comments:
        if identity.owns(comment.author):
            match = _FP_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
            if match:
                by_print.setdefault(match.group(1), []).append(comment.id)
    inline = [extra for ids in by_print.values() for extra in sorted(ids)[1:]]
    summaries = sorted(c.id for c in _summaries(issue_comments, identity))
    return sorted(inline), summaries[1:]


def _summaries(comments: Sequence[HostComment], identity: Identity) -> list[HostComment]:
    return [
        c
        for c in comments
        if identity.owns(c.author) and c.body.split("\n", 1)[0].strip() == SUMMARY_MARKER
    ]


def find_summary(
    issue_comments: Sequence[HostComment], identity: Identity = ACTIONS
) -> HostComment | None:
    """Our summary comment: ours, the marker on its first line; the oldest (the one users
    have seen) when two runs at once both posted one."""
    summaries = _summaries(issue_comments, identity)
    return summaries[0] if summaries else None


def read_thread(
    issue_comments: Sequence[HostComment],
    review_comments: Sequence[HostComment],
    *,
    identity: Identity = ACTIONS,
    summary_edit: CommentEdit | None = None,
) -> PullRequestThread:
    """Find our summary (first line is the marker) and our inline fingerprints (last line).

    `summary_edit` is who last edited the summary (None: nobody since we posted it); the
    state of a summary someone else edited last is ignored, and `state_problem` says so.
    """
    summary = find_summary(issue_comments, identity)
    fingerprints = set()
    for comment in review_comments:
        if identity.owns(comment.author):
            match = _FP_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
            if match:
                fingerprints.add(match.group(1))
    foreign = summary_edit is not None and not identity.owns(summary_edit.editor)
    state = decode_state(summary.body) if summary and not foreign else None
    problem = ""
    if summary is not None and foreign:
        assert summary_edit is not None
        problem = (
            f"summary comment {summary.id} was last edited by {summary_edit.editor or 'unknown'}"
            f"{f' at {summary_edit.edited_at}' if summary_edit.edited_at else ''}, not by "
            "consensus: its state block was ignored (findings, dismissals and pause start "
            "afresh)"
        )
    elif summary is not None and state is None and state_line_present(summary.body):
        problem = (
            f"the state block of summary comment {summary.id} is unreadable or was altered: "
            "ignored (findings, dismissals and pause start afresh)"
        )
    return PullRequestThread(
        summary_id=summary.id if summary else None,
        summary_body=summary.body if summary else "",
        state=state or PublishState(),
        inline_fingerprints=frozenset(fingerprints),
        state_problem=problem,
        summary_trusted=not foreign,
    )


def load_thread(
    host: Conversation,
    number: int,
    identity: Identity,
    *,
    issue_comments: Sequence[HostComment] | None = None,
    review_comments: Sequence[HostComment] = (),
) -> PullRequestThread:
    """The thread as GitHub has it now: the comments (unless given), and who last edited
    our summary (one GraphQL request, when there is a summary)."""
    comments = host.issue_comments(number) if issue_comments is None else issue_comments
    summary = find_summary(comments, identity)
    edit = host.comment_edit(summary) if summary is not None else None
    return read_thread(comments, review_comments, identity=identity, summary_edit=edit)
