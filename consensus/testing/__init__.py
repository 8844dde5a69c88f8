"""Fakes that implement the ports, shipped beside them (as httpx ships MockTransport).

- `FakeModelClient` (testing/models.py): canned replies per model (or a function of the
  request); records calls.
- `FakeGitHubHost`: the whole GitHub port (every role) over state in memory, strict where
  GitHub is strict: a review comment on a line outside its file's RIGHT-side hunks makes
  the whole review fail (`ReviewRejected`, nothing stored), a missing comment or PR is a
  `GitHubError` with status 404, writes are made by `github-actions[bot]` (or by `login`,
  a personal token's user), and it remembers who last edited each comment (`edit_as`
  lets a person or another bot edit one; `seed_comment` and `seed_review_comment` let
  anyone post, our marker included). Its learnings part (testing/learnings_writer.py) keeps
  branches of commits as GitHub does: a pull request whose branch is moved to no commit
  beyond its base is closed (`move_branch`), and `merge_pull` merges one.

Slash commands, the Action's review flow and the agent-PR queue run against these in
milliseconds; the loopback HTTP servers (`consensus_sim/`) keep the real adapters honest.
"""

from __future__ import annotations

import io
import itertools
import tarfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from consensus.errors import GitHubError
from consensus.ingest.hunks import right_side_hunks
from consensus.model.host import GITHUB_WORDS, HostWords
from consensus.ports import (
    CommentEdit,
    HostComment,
    HostReaction,
    HostReview,
    InlineComment,
    OpenPull,
    PullFile,
    PullRequestInfo,
    ReviewRejected,
    ReviewThread,
)
from consensus.testing.analyzer_runs import FakeAnalyzers, ruff_run
from consensus.testing.learnings_writer import FakeLearnings
from consensus.testing.models import FakeModelClient, rate_limited, timed_out
from consensus.testing.pull import BOT_LOGIN, FakePull

# The fakes tests take from here: the model client's (testing/models.py), a pull request's
# (testing/pull.py), the analyzers' (testing/analyzer_runs.py) and GitHub's.
__all__ = [
    "BOT_LOGIN",
    "FakeAnalyzers",
    "FakeGitHubHost",
    "FakeModelClient",
    "FakePull",
    "rate_limited",
    "ruff_run",
    "timed_out",
]


# --------------------------------------------------------------------------- GitHub


@dataclass
class FakeGitHubHost(FakeLearnings):
    """Every role of the GitHub port, in memory; `writes` logs each write in order."""

    pulls: dict[int, FakePull] = field(default_factory=dict)
    issue_comment_list: list[HostComment] = field(default_factory=list)
    review_comment_list: list[HostComment] = field(default_factory=list)
    comment_pull: dict[int, int] = field(default_factory=dict)  # comment id → PR number
    reactions: list[tuple[int, str]] = field(default_factory=list)  # ours, on comments
    comment_reactions: dict[int, list[HostReaction]] = field(default_factory=dict)  # people's
    permissions: dict[str, str] = field(default_factory=dict)
    branch: str = "main"
    login: str | None = None  # viewer_login: None, as for a workflow's GITHUB_TOKEN
    writes: list[str] = field(default_factory=list)
    edits: dict[int, CommentEdit] = field(default_factory=dict)  # comment id → its last edit
    viewer_asked: int = 0  # viewer_login calls: the identity is looked up once per run
    resolved_threads: dict[str, str] = field(default_factory=dict)  # thread id → who resolved
    branches: dict[str, str] = field(default_factory=dict)  # learnings: name → head commit
    commit_files: dict[str, dict[str, str]] = field(default_factory=dict)
    commit_parents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    now: str = "2026-01-02T00:00:00Z"  # when a PR closed by its branch moving closed
    repo: str = "acme/service"
    words: HostWords = GITHUB_WORDS  # the port's vocabulary: GitHub's, as the fake's API is
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1000))

    # ------------------------------------------------------------------ setup

    def add_pull(self, pull: FakePull) -> FakePull:
        self.pulls[pull.info.number] = pull
        return pull

    def seed_comment(self, number: int, body: str, *, author: str, bot: bool = False) -> int:
        """A comment someone else wrote (a human, or another bot)."""
        comment = HostComment(id=self._id(), body=body, author=author, author_is_bot=bot)
        self.issue_comment_list.append(comment)
        self.comment_pull[comment.id] = number
        return comment.id

    def seed_review_comment(
        self, number: int, body: str, *, author: str, path: str, line: int, bot: bool = False
    ) -> int:
        """An inline review comment someone else wrote (a human, or another bot)."""
        comment = HostComment(
            id=self._id(), body=body, author=author, author_is_bot=bot, path=path, line=line
        )
        self.review_comment_list.append(comment)
        self.comment_pull[comment.id] = number
        return comment.id

    def edit_as(self, comment_id: int, body: str, *, editor: str) -> None:
        """Someone with write access (or another app) edits a comment, ours included."""
        self._edit(comment_id, body, editor)

    @property
    def acting(self) -> str:
        """Who this host's writes are made by."""
        return self.login or BOT_LOGIN

    def seed_reply(self, comment_id: int, body: str, *, author: str, bot: bool = False) -> int:
        """A reply in the review thread of comment `comment_id`, by someone else."""
        parent = next(c for c in self.review_comment_list if c.id == comment_id)
        reply = HostComment(
            id=self._id(),
            body=body,
            author=author,
            author_is_bot=bot,
            path=parent.path,
            line=parent.line,
            in_reply_to=parent.in_reply_to or comment_id,  # GitHub keeps threads flat
            commit_id=parent.commit_id,
        )
        self.review_comment_list.append(reply)
        self.comment_pull[reply.id] = self.comment_pull[comment_id]
        return reply.id

    def _id(self) -> int:
        return next(self._ids)

    def _under(self, number: int, comment_id: int) -> None:
        """A comment addressed under another pull request than its own is not found: the
        port addresses a comment by both (GitLab's API does; GitHub's ids alone would do)."""
        if self.comment_pull.get(comment_id, number) != number:
            raise GitHubError(
                f"GitHub comment {comment_id} is not on #{number} (HTTP 404)", status=404
            )

    def _pull(self, number: int) -> FakePull:
        if number not in self.pulls:
            raise GitHubError(f"GitHub GET pulls/{number} failed (HTTP 404)", status=404)
        return self.pulls[number]

    def close(self) -> None:
        self.writes.append("closed")

    # ------------------------------------------------------------------ PullReader

    def pull_request(self, number: int) -> PullRequestInfo:
        pull = self._pull(number)
        return pull.info.model_copy(update={"labels": tuple(pull.labels)})

    def pull_files(self, number: int) -> list[PullFile]:
        return list(self._pull(number).files)

    def read_file(self, path: str, ref: str) -> str | None:
        if ref in self.commit_files or self.branches.get(ref) in self.commit_files:
            return self.commit_files[self.branches.get(ref, ref)].get(path)
        for pull in self.pulls.values():
            at_base = ref in (pull.info.base_sha, pull.info.base_ref, self.branch)
            if at_base and path in pull.base_files:
                return pull.base_files[path]
            if ref == pull.info.head_sha and path in pull.head_files:
                return pull.head_files[path]
        return None

    def archive(self, sha: str) -> bytes | None:
        """The files the fake knows at commit `sha`, as GitHub's tarball: one top folder."""
        files = self.commit_files.get(sha)
        for pull in self.pulls.values():
            if files is None and sha in (pull.info.head_sha, pull.info.base_sha):
                files = pull.head_files if sha == pull.info.head_sha else pull.base_files
        if files is None:
            return None
        packed = io.BytesIO()
        with tarfile.open(fileobj=packed, mode="w:gz") as tar:
            for path, text in sorted(files.items()):
                info = tarfile.TarInfo(f"{self.repo.replace('/', '-')}-{sha[:7]}/{path}")
                info.size = len(data := text.encode("utf-8"))
                tar.addfile(info, io.BytesIO(data))
        self.writes.append(f"read the tarball of {sha[:12]}")
        return packed.getvalue()

    def read_files(self, paths: Sequence[str], ref: str) -> dict[str, str | None]:
        self.writes.append(f"read {len(paths)} file(s) at {ref[:12]} in one request")
        return {path: self.read_file(path, ref) for path in paths}

    def list_dir(self, path: str, ref: str) -> list[str] | None:
        prefix = path.rstrip("/") + "/"
        names = {
            name[len(prefix) :].split("/")[0]
            for pull in self.pulls.values()
            if ref in (pull.info.base_sha, pull.info.base_ref, self.branch)
            for name in pull.base_files
            if name.startswith(prefix)
        }
        return sorted(names) or None

    def default_branch(self) -> str:
        return self.branch

    # ------------------------------------------------------------------ ReviewWriter

    def review_comments(self, number: int) -> list[HostComment]:
        """As GitHub lists them: with the count of 👍 and 👎 on each."""
        mine = [c for c in self.review_comment_list if self.comment_pull.get(c.id) == number]
        return [c.model_copy(update={"thumbs": self._thumbs(c.id)}) for c in mine]

    def _thumbs(self, comment_id: int) -> int:
        return sum(r.content in ("+1", "-1") for r in self.comment_reactions.get(comment_id, []))

    def create_review(
        self,
        number: int,
        *,
        commit_sha: str,
        body: str,
        event: Literal["COMMENT", "REQUEST_CHANGES"],
        comments: Sequence[InlineComment],
    ) -> int:
        pull = self._pull(number)
        patches = {f.path: f.patch or "" for f in pull.files}
        errors = tuple(
            f"{c.path}:{c.line}: not a RIGHT-side line of one hunk"
            for c in comments
            if not _on_one_hunk(c, right_side_hunks(patches.get(c.path, "")))
        )
        if errors:
            self.writes.append(f"review refused on #{number}")
            raise ReviewRejected("Unprocessable Entity: pull_request_review_thread.line", errors)
        review_id = self._id()
        pull.reviews.append(
            HostReview(
                id=review_id,
                author=self.acting,
                author_is_bot=self.acting.endswith("[bot]"),
                state="CHANGES_REQUESTED" if event == "REQUEST_CHANGES" else "COMMENTED",
                commit_sha=commit_sha,
                body=body,
            )
        )
        for inline in comments:
            comment = HostComment(
                id=self._id(),
                body=inline.body,
                author=self.acting,
                author_is_bot=self.acting.endswith("[bot]"),
                path=inline.path,
                line=inline.line,
                commit_id=commit_sha,
            )
            self.review_comment_list.append(comment)
            self.comment_pull[comment.id] = number
        self.writes.append(f"review {event} on #{number} with {len(comments)} comment(s)")
        return review_id

    def delete_review_comment(self, number: int, comment_id: int) -> None:
        self._under(number, comment_id)
        self.review_comment_list = [c for c in self.review_comment_list if c.id != comment_id]
        self.writes.append(f"delete review comment {comment_id}")

    def reply_to_review_comment(self, number: int, comment_id: int, body: str) -> HostComment:
        parent = next((c for c in self.review_comments(number) if c.id == comment_id), None)
        if parent is None or parent.in_reply_to is not None:  # GitHub: replies to a reply 404
            raise GitHubError(f"GitHub POST comments/{comment_id}/replies (HTTP 404)", status=404)
        reply = HostComment(
            id=self._id(),
            body=body,
            author=self.acting,
            author_is_bot=self.acting.endswith("[bot]"),
            path=parent.path,
            line=parent.line,
            in_reply_to=comment_id,
            commit_id=parent.commit_id,
        )
        self.review_comment_list.append(reply)
        self.comment_pull[reply.id] = number
        self.writes.append(f"reply to review comment {comment_id} on #{number}")
        return reply

    def review_comment_reactions(self, number: int, comment_id: int) -> list[HostReaction]:
        self._under(number, comment_id)
        return list(self.comment_reactions.get(comment_id, []))

    def review_threads(self, number: int) -> list[ReviewThread]:
        """One thread per top-level review comment (`PRRT_<its id>`), its replies in order."""
        comments = self.review_comments(number)
        threads = []
        for first in (c for c in comments if c.in_reply_to is None):
            replies = [c for c in comments if c.in_reply_to == first.id]
            thread_id = f"PRRT_{first.id}"
            threads.append(
                ReviewThread(
                    id=thread_id,
                    resolved=thread_id in self.resolved_threads,
                    resolved_by=self.resolved_threads.get(thread_id),
                    first=first,
                    last=replies[-1] if replies else first,
                )
            )
        return threads

    def set_thread_resolved(self, number: int, thread_id: str, resolved: bool) -> None:
        firsts = (c for c in self.review_comment_list if c.in_reply_to is None)
        known = {f"PRRT_{c.id}" for c in firsts if self.comment_pull.get(c.id, number) == number}
        if thread_id not in known:
            raise GitHubError(f"GitHub GraphQL: no review thread {thread_id}", status=404)
        if resolved:
            self.resolved_threads[thread_id] = self.acting
        else:
            self.resolved_threads.pop(thread_id, None)
        self.writes.append(f"{'resolve' if resolved else 'unresolve'} thread {thread_id}")

    # ------------------------------------------------------------------ Conversation

    def issue_comments(self, number: int) -> list[HostComment]:
        return [c for c in self.issue_comment_list if self.comment_pull.get(c.id) == number]

    def create_issue_comment(self, number: int, body: str) -> HostComment:
        self._pull(number)
        bot = self.acting.endswith("[bot]")
        comment = HostComment(id=self._id(), body=body, author=self.acting, author_is_bot=bot)
        self.issue_comment_list.append(comment)
        self.comment_pull[comment.id] = number
        self.writes.append(f"comment {comment.id} on #{number}")
        return comment

    def edit_issue_comment(self, number: int, comment_id: int, body: str) -> None:
        self._under(number, comment_id)
        self._edit(comment_id, body, self.acting)
        self.writes.append(f"edit comment {comment_id}")

    def _edit(self, comment_id: int, body: str, editor: str) -> None:
        for index, comment in enumerate(self.issue_comment_list):
            if comment.id == comment_id:
                self.issue_comment_list[index] = comment.model_copy(update={"body": body})
                stamp = f"2026-01-02T00:00:{len(self.edits) % 60:02d}Z"
                self.edits[comment_id] = CommentEdit(editor=editor, edited_at=stamp)
                return
        raise GitHubError(f"GitHub PATCH comments/{comment_id} failed (HTTP 404)", status=404)

    def delete_issue_comment(self, number: int, comment_id: int) -> None:
        self._under(number, comment_id)
        self.issue_comment_list = [c for c in self.issue_comment_list if c.id != comment_id]
        self.writes.append(f"delete comment {comment_id}")

    def add_reaction(self, number: int, comment_id: int, content: str) -> None:
        self._under(number, comment_id)
        self.reactions.append((comment_id, content))

    def collaborator_permission(self, login: str) -> str:
        return self.permissions.get(login, "none")

    def viewer_login(self) -> str | None:
        self.viewer_asked += 1
        return self.login

    def comment_edit(self, comment: HostComment) -> CommentEdit | None:
        return self.edits.get(comment.id)

    # ------------------------------------------------------------------ QueueWriter

    def open_pulls(self) -> list[OpenPull]:
        return [
            OpenPull(
                number=p.info.number,
                title=p.info.title,
                author=p.info.author,
                author_is_bot=p.info.author.endswith("[bot]"),
                draft=p.info.draft,
                labels=frozenset(p.labels),
                created_at=p.created_at,
                head_sha=p.info.head_sha,
                requested_reviewers=frozenset(p.requested_reviewers),
                requested_teams=frozenset(p.requested_teams),
            )
            for p in self.pulls.values()
            if p.info.state == "open"
        ]

    def pull_reviews(self, number: int) -> list[HostReview]:
        return list(self._pull(number).reviews)

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        pull = self._pull(number)
        pull.labels.extend(label for label in labels if label not in pull.labels)
        self.writes.append(f"label #{number} {','.join(labels)}")

    def remove_label(self, number: int, label: str) -> None:
        pull = self._pull(number)
        if label in pull.labels:
            pull.labels.remove(label)
        self.writes.append(f"unlabel #{number} {label}")

    def request_reviewers(
        self, number: int, reviewers: Sequence[str], team_reviewers: Sequence[str]
    ) -> None:
        pull = self._pull(number)
        pull.requested_reviewers.extend(reviewers)
        pull.requested_teams.extend(team_reviewers)
        self.writes.append(f"request review on #{number}")


def _on_one_hunk(comment: InlineComment, hunks: Sequence[frozenset[int]]) -> bool:
    lines = {comment.line, comment.start_line or comment.line}
    return any(lines <= hunk for hunk in hunks)
