"""GitLab's webhook payloads, as much of them as consensus reads, validated at the edge.

A merge request hook (`object_kind: merge_request`) and a note hook (`object_kind: note`)
are untrusted input like a GitHub event: a pipeline trigger passes whatever called it to
the job as `TRIGGER_PAYLOAD`, so nothing in them is believed beyond what it names (the
project, the merge request, the note). Who wrote a note is checked through the API
(a member's role), never taken from the payload. Fields GitLab adds are ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from consensus.model.events import Payload


class GitLabUser(Payload):
    id: int | None = None
    username: str = ""
    name: str = ""


class GitLabProject(Payload):
    id: int = Field(ge=1)
    path_with_namespace: str = ""
    web_url: str = ""
    default_branch: str = ""


class GitLabLabel(Payload):
    title: str = ""


class LastCommit(Payload):
    id: str = ""  # the head this event is about; a newer push supersedes it


class MergeRequestFields(Payload):
    """A merge request as both hooks carry it: a note hook's `merge_request`, and the core of
    a merge request hook's `object_attributes`."""

    iid: int = Field(ge=1)
    title: str = ""
    state: str = ""  # opened, closed, merged, locked
    source_branch: str = ""
    target_branch: str = ""
    source_project_id: int | None = None
    target_project_id: int | None = None
    last_commit: LastCommit = LastCommit()


class MergeRequestAttributes(MergeRequestFields):
    """`object_attributes` of a merge request hook: the merge request, and what happened."""

    action: str = ""  # open, close, reopen, update, approved, …, merge
    draft: bool = False
    oldrev: str | None = None  # present only when the push changed the code


class MergeRequestHook(Payload):
    """`Merge Request Hook`: a merge request opened, updated, merged, closed."""

    object_kind: Literal["merge_request"]
    user: GitLabUser = GitLabUser()
    project: GitLabProject
    object_attributes: MergeRequestAttributes
    labels: tuple[GitLabLabel, ...] = ()

    @property
    def label_names(self) -> frozenset[str]:
        return frozenset(label.title for label in self.labels)


class NoteAttributes(Payload):
    """`object_attributes` of a note hook: the comment itself."""

    id: int
    note: str = ""
    noteable_type: str = ""  # MergeRequest, Issue, Commit, Snippet
    system: bool = False
    type: str | None = None  # None (a comment), DiscussionNote, DiffNote
    discussion_id: str = ""
    action: str = ""  # create, update

    @field_validator("note", "discussion_id", mode="before")
    @classmethod
    def _no_text(cls, value: object) -> object:
        return "" if value is None else value


class NoteHook(Payload):
    """`Note Hook`: a comment on a merge request, an issue, a commit or a snippet."""

    object_kind: Literal["note"]
    user: GitLabUser = GitLabUser()
    project: GitLabProject
    object_attributes: NoteAttributes
    merge_request: MergeRequestFields | None = None  # set only for a merge request's note

    @property
    def on_merge_request(self) -> bool:
        return (
            self.object_attributes.noteable_type == "MergeRequest"
            and self.merge_request is not None
        )
