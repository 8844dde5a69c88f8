"""Resolved means resolved on GitHub too: which review threads to resolve or unresolve. Pure.

A thread is ours when its first comment is one of our inline comments (written by a bot or
a trusted login, its fingerprint marker on the last line). We touch only such threads, and
only while no human wrote last in them: a reply from a person is a conversation that a bot
must not close (nor reopen) under them.

- resolve: the finding was resolved by this run (fixed, or its file left the diff) and
  the thread is open;
- unresolve: the finding is open again (posted now or earlier, still found) and the
  thread was resolved by us: by a bot or a trusted login, or by an account GitHub does
  not name (an app, for which `resolvedBy` is null) after an earlier run marked the
  finding resolved. A thread a person resolved stays resolved.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from consensus.model.base import Frozen
from consensus.ports import HostComment, ReviewThread
from consensus.publish.thread import ACTIONS, Identity

_MARKER = re.compile(r"^<!-- consensus:fp=([0-9a-f]{8,64}(?:-\d{1,4})?) -->$")


class ThreadChange(Frozen):
    thread_id: str
    fingerprint: str
    resolve: bool  # True: resolve it; False: unresolve it


def marker_of(comment: HostComment) -> str | None:
    """The fingerprint in a comment's last line, where model text never is."""
    match = _MARKER.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
    return match.group(1) if match else None


class ThreadChanges(Frozen):
    """What a run changes on the review threads, by the fingerprint their first comment ends
    with: `resolve` the findings it resolved; `open_now` the findings inline now (posted by
    it or by an earlier run), of which those in `earlier` (marked resolved in the state
    before it) are reopened where we resolved them."""

    resolve: frozenset[str]
    open_now: frozenset[str]
    earlier: frozenset[str]

    @property
    def any(self) -> bool:
        """Whether the host's threads need to be read at all."""
        return bool(self.resolve or self.earlier & self.open_now)


def thread_changes(
    threads: Sequence[ReviewThread], wanted: ThreadChanges, *, identity: Identity = ACTIONS
) -> list[ThreadChange]:
    """The threads this run resolves or unresolves, in the order the host listed them."""

    def ours(comment: HostComment) -> bool:
        return identity.owns(comment.author)

    changes = []
    for thread in threads:
        fingerprint = marker_of(thread.first)
        if fingerprint is None or not ours(thread.first) or not ours(thread.last):
            continue
        if fingerprint in wanted.resolve and not thread.resolved:
            changes.append(ThreadChange(thread_id=thread.id, fingerprint=fingerprint, resolve=True))
        elif (
            fingerprint in wanted.open_now
            and thread.resolved
            and _by_us(thread, identity, wanted.earlier)
        ):
            changes.append(
                ThreadChange(thread_id=thread.id, fingerprint=fingerprint, resolve=False)
            )
    return changes


def _by_us(thread: ReviewThread, identity: Identity, again: Collection[str]) -> bool:
    who = thread.resolved_by
    if who is None:
        return marker_of(thread.first) in again
    return identity.owns(who)  # resolvedBy is a User: an app's resolution is null
