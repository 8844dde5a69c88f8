"""GitHub's webhook payloads, as much of them as consensus reads, validated at the edge.

The event file is untrusted input like any other: it is parsed into these frozen models
once, by the Action face, and a payload that lacks what a handler needs is a UsageError
that names the event file and the field. Fields GitHub adds are ignored (extra="ignore"),
so a new payload version does not break a run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Account(Payload):
    login: str = ""
    type: str = ""  # User, Bot, Organization

    @property
    def is_bot(self) -> bool:
        return self.type == "Bot" or self.login.endswith("[bot]")


class Label(Payload):
    name: str = ""


class HeadRef(Payload):
    sha: str = ""  # the head this event is about; a newer push supersedes it


class PullRequestRef(Payload):
    number: int = Field(ge=1)
    user: Account = Account()
    labels: tuple[Label, ...] = ()
    draft: bool = False
    head: HeadRef = HeadRef()
    merged: bool | None = None

    @field_validator("user", mode="before")
    @classmethod
    def _deleted_user(cls, value: object) -> object:
        return {} if value is None else value  # a deleted account ("ghost") can be null


class PullRequestEvent(Payload):
    """`pull_request` and `pull_request_target`."""

    action: str = ""
    pull_request: PullRequestRef

    @property
    def label_names(self) -> frozenset[str]:
        return frozenset(label.name for label in self.pull_request.labels)


class IssueRef(Payload):
    number: int = Field(ge=1)
    pull_request: dict[str, object] | None = None  # present only when the issue is a PR

    @property
    def is_pull_request(self) -> bool:
        return isinstance(self.pull_request, dict)


class CommentRef(Payload):
    id: int
    body: str = ""
    user: Account = Account()

    @field_validator("body", mode="before")
    @classmethod
    def _no_body(cls, value: object) -> object:
        return "" if value is None else value

    @field_validator("user", mode="before")
    @classmethod
    def _deleted_user(cls, value: object) -> object:
        return {} if value is None else value


class IssueCommentEvent(Payload):
    """`issue_comment`: a comment on an issue or a pull request's conversation."""

    action: str = ""
    issue: IssueRef
    comment: CommentRef


class ReviewCommentRef(CommentRef):
    """A review comment: its thread (`in_reply_to_id`, the thread's first comment; None for
    the first itself), the commit it was written on, and its place."""

    in_reply_to_id: int | None = None
    commit_id: str = ""
    path: str = ""
    line: int | None = None

    @field_validator("commit_id", "path", mode="before")
    @classmethod
    def _no_text(cls, value: object) -> object:
        return "" if value is None else value


class ReviewCommentEvent(Payload):
    """`pull_request_review_comment`: a comment in a pull request's review threads."""

    action: str = ""
    pull_request: PullRequestRef
    comment: ReviewCommentRef
