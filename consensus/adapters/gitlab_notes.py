"""What the GitLab adapter keeps of a merge request's discussions, and where a review's
inline comments land on its diff version. Pure: no request is sent here.

A note is addressed under its merge request (`/merge_requests/:iid/notes/:id`), as the port
addresses every comment (its pull request's number and the comment's id); a reply goes under
the note's discussion, which the port does not name, so `Discussions` remembers the
discussion of every diff note the adapter has read or written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from consensus.adapters.gitlab_position import PositionError, text_position
from consensus.adapters.gitlab_wire import diff_refs, note_comment
from consensus.ports import HostComment, InlineComment, ReviewRejected

Json = dict[str, Any]


class Discussions:
    """Note id → its discussion, for the notes of diff discussions read or written."""

    def __init__(self) -> None:
        self._of: dict[int, str] = {}

    def remember(self, notes: Iterable[Json], discussion: str) -> None:
        for note in notes:
            self._of[int(note["id"])] = discussion

    def of(self, note_id: int) -> str | None:
        return self._of.get(note_id)

    def first_note(self, discussion: str) -> int | None:
        return next((n for n, d in self._of.items() if d == discussion), None)


def notes_of(discussion: Mapping[str, Any]) -> list[Json]:
    """A discussion's notes people and bots wrote (GitLab's system notes left out)."""
    return [n for n in discussion.get("notes") or () if not n.get("system")]


def on_diff(discussion: Mapping[str, Any]) -> bool:
    """A discussion on the diff: its first note has a position."""
    notes = notes_of(discussion)
    return bool(notes) and bool(notes[0].get("position"))


def first_on_diff(discussion: Mapping[str, Any]) -> tuple[str, str]:
    """The file and the body of a diff discussion's first note."""
    first = notes_of(discussion)[0]
    position = first.get("position") or {}
    return str(position.get("new_path") or ""), str(first.get("body") or "")


def diff_comments(discussions: Iterable[Mapping[str, Any]]) -> list[HostComment]:
    """The notes of the diff discussions as comments, a reply naming its thread's first."""
    comments: list[HostComment] = []
    for discussion in discussions:
        if on_diff(discussion):
            notes = notes_of(discussion)
            first = int(notes[0]["id"])
            comments += [note_comment(n, thread_first=first) for n in notes]
    return comments


def chosen_version(versions: Sequence[Json], commit_sha: str) -> Json:
    """The diff version whose head is `commit_sha`; the latest when none is."""
    if not versions:
        raise ReviewRejected("GitLab has no diff version of this merge request yet")
    return next((v for v in versions if v.get("head_commit_sha") == commit_sha), versions[0])


def place_comments(version: Mapping[str, Any], comments: Sequence[InlineComment]) -> list[Json]:
    """The position of every comment on the diff version (`GET …/versions/:id`, with its
    `diffs`); a ReviewRejected naming each comment that is not on that diff."""
    files = {str(d.get("new_path")): d for d in version.get("diffs") or ()}
    refs = diff_refs(version)
    placed: list[Json] = []
    errors: list[str] = []
    for comment in comments:
        diff = files.get(comment.path)
        try:
            if diff is None:
                raise PositionError(f"{comment.path}: not a file of the merge request's diff")
            position = text_position(
                refs,
                str(diff.get("old_path") or comment.path),
                comment.path,
                str(diff.get("diff") or ""),
                line=comment.line,
                start_line=comment.start_line,
                side=comment.side,
            )
            placed.append(position)
        except PositionError as exc:
            errors.append(str(exc))
    if errors:
        raise ReviewRejected("GitLab would refuse these inline comments", tuple(errors))
    return placed
