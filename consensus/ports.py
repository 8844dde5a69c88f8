"""The narrow ports through which the core reaches the outside world.

The core never imports litellm or PyGithub: it talks to a `ModelClient`. The real
adapter lives in `adapters/llm.py`; tests and benchmarks plug in fakes with the same shape,
and a run journal can wrap any client without the core noticing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from consensus.model.analysis import AnalyzerRun
from consensus.model.base import FailureKind

# What a model is asked and answers is model data; the port's users import it from here.
from consensus.model.completion import Completion as Completion
from consensus.model.completion import CompletionRequest as CompletionRequest
from consensus.model.completion import Message as Message
from consensus.model.diff import ReviewDiff
from consensus.model.host import HostWords
from consensus.model.urls import scrub_urls

Log = Callable[[str], None]  # where an edge writes its one-line progress notes


class ModelCallError(Exception):
    """A call that failed after the adapter's own retries, classified for the report;
    `fix` says what to do about it, when the adapter knows."""

    def __init__(self, kind: FailureKind, message: str, fix: str | None = None) -> None:
        # a library's message may quote the endpoint it called, password and all
        message = scrub_urls(message)
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.fix = scrub_urls(fix) if fix else fix


class ModelClient(Protocol):
    """Sends one chat completion. Raises ModelCallError; retries are its own business."""

    async def complete(self, request: CompletionRequest) -> Completion: ...


class TokenCounter(Protocol):
    """Counts tokens the way a given model does, and knows its context window and price."""

    def count(self, model: str, text: str) -> int: ...

    def context_window(self, model: str) -> int | None: ...

    def price(self, model: str) -> ModelPrice | None:
        """US dollars per token; None for a model without a known price."""
        ...


class ModelPrice(BaseModel):
    """US dollars per token, as litellm's price map gives them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_token: float
    output_per_token: float


class SourceReader(Protocol):
    """The head version of a file, for the code around a finding (working tree, or the
    contents API on GitHub). None when the file cannot be read."""

    def read(self, path: str) -> str | None: ...


Side = Literal["head", "base"]  # which of a pull request's two trees


class TreeReader(Protocol):
    """A pull request's trees at its base and head commits, read-only (never the work
    tree). Paths are as git lists them: relative, `/`-separated; a symlink is an entry."""

    def paths(self, side: Side) -> tuple[str, ...]: ...  # every file and symlink, sorted

    def link_target(self, path: str, side: Side) -> str | None: ...  # None: not a symlink

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        """The bytes of the regular files among `paths` (in one pass); others left out."""
        ...


class Analyzers(Protocol):
    """The static analyzers a review runs or reads (ruff, semgrep, SARIF files an earlier
    CI step wrote), each filtered to the change: one `AnalyzerRun` per analyzer named in the
    configuration, a run that could not happen carrying its note instead of results."""

    async def analyze(self, diff: ReviewDiff) -> tuple[AnalyzerRun, ...]: ...


# --------------------------------------------------------------------------- pull request host


class PullRequestInfo(BaseModel):
    """What the Action needs to know about one pull request, read fresh from the host."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    title: str = ""
    state: str = "open"
    draft: bool = False
    author: str = ""
    head_sha: str
    base_sha: str
    base_ref: str = ""
    head_repo: str | None = None  # "owner/name"; None when the fork was deleted
    base_repo: str
    changed_files: int = 0
    html_url: str = ""
    labels: tuple[str, ...] = ()


class PullFile(BaseModel):
    """One changed file as the host lists it; `patch` is None when the host omitted it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    previous_path: str | None = None
    status: str  # added, removed, modified, renamed, copied, changed, unchanged
    additions: int = 0
    deletions: int = 0
    patch: str | None = None


class HostComment(BaseModel):
    """An issue comment or a review comment. `path`/`line` are set for review comments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int
    body: str
    author: str
    author_is_bot: bool
    path: str | None = None
    line: int | None = None
    in_reply_to: int | None = None  # a review comment's thread: its first comment's id
    node_id: str = ""  # GraphQL's id, to ask who last edited it
    commit_id: str = ""  # a review comment's commit: the code it was written about
    # 👍 and 👎 on it, from the listing's reaction counts; None when the listing gave none
    # (who gave them is a read of its own: `review_comment_reactions`)
    thumbs: int | None = None


class CommentEdit(BaseModel):
    """The last edit of a comment's body: who made it (a login as REST writes it, e.g.
    `github-actions[bot]`; empty when GitHub no longer knows the account), and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    editor: str
    edited_at: str = ""


class HostReaction(BaseModel):
    """A reaction on a comment: its content (+1, -1, laugh, …), who, and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str
    user: str
    user_is_bot: bool = False
    created_at: str = ""


class InlineComment(BaseModel):
    """A review comment on `line`, or `start_line`..`line`, of one side of the diff: RIGHT
    (the new version: added and unchanged lines) or LEFT (the old one: deleted lines)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int
    start_line: int | None = None
    body: str
    side: Literal["RIGHT", "LEFT"] = "RIGHT"


class ReviewThread(BaseModel):
    """A review thread of the PR (GraphQL): its node id, whether it is resolved and by whom,
    and its first and last comments (the same comment when nobody replied)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    resolved: bool
    resolved_by: str | None = None  # a login; None when unresolved or the account is gone
    first: HostComment
    last: HostComment


class ReviewRejected(Exception):
    """The host refused a review as a whole (HTTP 422): nothing of it was posted."""

    def __init__(self, message: str, errors: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors


class OpenPull(BaseModel):
    """One open pull request as the list endpoint shows it: enough to place it in the queue."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    title: str = ""
    author: str
    author_is_bot: bool = False
    draft: bool = False
    labels: frozenset[str] = frozenset()
    created_at: str = ""  # ISO 8601, as GitHub writes it
    head_sha: str
    requested_reviewers: frozenset[str] = frozenset()  # logins
    requested_teams: frozenset[str] = frozenset()  # team slugs


class HostReview(BaseModel):
    """A submitted review of a pull request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int
    author: str
    author_is_bot: bool
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    commit_sha: str = ""
    body: str = ""


# --------------------------------------------------------------------------- the host, by role
# Each function asks for the narrowest role it uses. GitHub's adapter (adapters/github.py)
# and its fake (testing.FakeGitHubHost) implement them all; GitLab's (adapters/gitlab.py)
# the pull-request roles (`PullRequestHost`). Retries are the adapter's business: what is
# left after them is a HostError (GitHubError, GitLabError, with .status), or
# ReviewRejected from create_review.
#
# A call names its pull request's number first, and a comment (or a review thread) is
# addressed under it: `(number, comment_id)`. The id is the host's own number for the
# comment (unique in a GitHub repository; a GitLab note's, whose API addresses it under its
# merge request), so every adapter reaches any comment from the call alone, with nothing
# remembered. A new host call is then one method here and one in each adapter: GitHub's,
# GitLab's and the fake (tests/unit/test_architecture.py holds them to the same parameters).


class PullReader(Protocol):
    """Read one pull request and its repository's files at a commit."""

    def pull_request(self, number: int) -> PullRequestInfo: ...

    def pull_files(self, number: int) -> list[PullFile]: ...

    def read_file(self, path: str, ref: str) -> str | None: ...

    def read_files(self, paths: Sequence[str], ref: str) -> dict[str, str | None]:
        """Several files at `ref` in one request (GraphQL); None for each that is missing,
        binary or too large."""
        ...

    def list_dir(self, path: str, ref: str) -> list[str] | None: ...

    def default_branch(self) -> str: ...


class ReviewWriter(Protocol):
    """Post a review with inline comments, and read or remove our inline comments."""

    def review_comments(self, number: int) -> list[HostComment]: ...

    def create_review(
        self,
        number: int,
        *,
        commit_sha: str,
        body: str,
        event: Literal["COMMENT", "REQUEST_CHANGES"],
        comments: Sequence[InlineComment],
    ) -> int: ...

    def delete_review_comment(self, number: int, comment_id: int) -> None: ...

    def reply_to_review_comment(self, number: int, comment_id: int, body: str) -> HostComment:
        """A reply in the review thread of `comment_id` (its first comment: GitHub keeps
        threads flat)."""
        ...

    def review_comment_reactions(self, number: int, comment_id: int) -> list[HostReaction]:
        """The reactions on one review comment (👍 and 👎 on ours are labels)."""
        ...

    def review_threads(self, number: int) -> list[ReviewThread]:
        """Every review thread of the PR (GraphQL `reviewThreads`)."""
        ...

    def set_thread_resolved(self, number: int, thread_id: str, resolved: bool) -> None:
        """GraphQL `resolveReviewThread` (True) or `unresolveReviewThread` (False)."""
        ...


class Conversation(Protocol):
    """The PR's conversation: comments, reactions, and who may run a command."""

    def issue_comments(self, number: int) -> list[HostComment]: ...

    def create_issue_comment(self, number: int, body: str) -> HostComment: ...

    def edit_issue_comment(self, number: int, comment_id: int, body: str) -> None: ...

    def delete_issue_comment(self, number: int, comment_id: int) -> None: ...

    def add_reaction(self, number: int, comment_id: int, content: str) -> None: ...

    def collaborator_permission(self, login: str) -> str:
        """The user's permission on the repository: admin, maintain, write, triage, read or
        none (not a collaborator, or unknown). Never from the comment's author_association."""
        ...

    def viewer_login(self) -> str | None:
        """The login the token acts as; None when the token cannot ask (GITHUB_TOKEN)."""
        ...

    def comment_edit(self, comment: HostComment) -> CommentEdit | None:
        """Who last edited the comment, and when; None when nobody has since it was posted."""
        ...


class QueueWriter(Protocol):
    """The agent-PR queue's state on GitHub: open PRs, reviews, labels, review requests."""

    def open_pulls(self) -> list[OpenPull]: ...

    def pull_reviews(self, number: int) -> list[HostReview]: ...

    def add_labels(self, number: int, labels: Sequence[str]) -> None: ...

    def remove_label(self, number: int, label: str) -> None: ...

    def request_reviewers(
        self, number: int, reviewers: Sequence[str], team_reviewers: Sequence[str]
    ) -> None: ...


class ClosedPullThread(BaseModel):
    """A closed pull request and its conversation's first comments (our summary among them,
    with who last edited each), as the scheduled learnings run reads them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    closed_at: str = ""  # ISO 8601
    merged: bool = False
    head_ref: str = ""  # the branch it was opened from (the learnings PR's is ours)
    cross_repository: bool = False  # opened from a fork
    comments: tuple[HostComment, ...] = ()
    edits: tuple[CommentEdit | None, ...] = ()  # one per comment: None when never edited


class LearningsBranch(BaseModel):
    """The branch the learnings run keeps `.consensus/learned.yml` on, and its pull request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    repository_id: str
    default_branch: str
    default_oid: str
    default_tree: str = ""  # the default head's tree, which the learnings commit builds on
    ref_id: str | None = None  # None: the branch does not exist yet
    head_oid: str | None = None
    open_pull: int | None = None
    open_pull_id: str = ""  # its GraphQL node id, to rewrite its description


class LearningsWriter(Protocol):
    """The scheduled learnings run: closed PRs' conversations, and one pull request that
    changes the learnings file (GraphQL)."""

    def closed_pulls(self, since: str) -> list[ClosedPullThread]:
        """PRs closed or merged and updated after `since` (ISO 8601; "" for all), newest first."""
        ...

    def learnings_branch(self, name: str) -> LearningsBranch: ...

    def commit_learnings(self, branch: LearningsBranch, path: str, text: str, message: str) -> str:
        """Put `branch` at the default branch's head plus one commit writing `path`, in one
        move of the branch from wherever it was (never to the default head itself: GitHub
        closes a pull request whose head has no commit beyond its base); the commit's id."""
        ...

    def open_learnings_pull(self, branch: LearningsBranch, title: str, body: str) -> int: ...

    def describe_learnings_pull(self, branch: LearningsBranch, body: str) -> None:
        """Rewrite the open learnings pull request's description (GraphQL
        updatePullRequest), once a commit updated what it proposes."""
        ...


class PullRequestHost(PullReader, ReviewWriter, Conversation, Protocol):
    """The roles every flow on one pull request uses (a review, a command, a reply): what
    GitHub and GitLab both implement. A GitLab merge request is a pull request here, its
    `iid` the number, its notes and diff discussions the comments."""

    @property
    def words(self) -> HostWords:
        """How the host names a pull request, its number and a person's role: the words of
        every message posted there (model/host.py)."""
        ...

    def close(self) -> None:
        """Release the connections the host keeps open; the run is over."""
        ...


class ArchiveReader(Protocol):
    """A commit's whole tree in one request, where nothing is checked out (a GitLab job)."""

    def archive(self, sha: str) -> bytes | None:
        """The repository at `sha` as a tar.gz; None when the host has no such commit or the
        archive is too large to read."""
        ...


class GitLabPort(PullRequestHost, ArchiveReader, Protocol):
    """GitLab's adapter: the pull-request roles, and the archive a job's judges read."""


class GitHubPort(PullRequestHost, QueueWriter, LearningsWriter, ArchiveReader, Protocol):
    """Every GitHub role at once: what a GitHub run holds, and hands out role by role (the
    agent-PR queue and the learnings run are GitHub's only)."""
