"""The loopback GitHub's state: repositories, comments, reviews, faults, and the
GitHub-shaped JSON of what it holds (answered by github_routes, served by github_server)."""

from __future__ import annotations

import itertools
import re
import threading
from pathlib import Path
from typing import Any

from consensus_sim import github_graphql, github_json, github_learnings
from consensus_sim.faults import Fault, FaultInjection
from consensus_sim.github_repo import (
    BOT,
    JsonObject,
    PullRequest,
    Repo,
    Request,
    account,
    comment_error,
    diff_hunk,
    edited,
    git_text,
    human,
    is_write,
    pull_files_from_git,
    snapshot,
    team_json,
)


class GitHubState(FaultInjection):
    """What the loopback GitHub holds and how it changes; `FakeGitHub` serves it over HTTP."""

    def __init__(self) -> None:
        super().__init__()
        self.repos: dict[str, Repo] = {}
        self.requests: list[Request] = []
        self.crash_after_writes: int | None = None  # then every write fails with a 500
        self.etags = True  # answer If-None-Match with 304 Not Modified
        self.viewer: JsonObject | None = None  # GET /user: None answers 403 (GITHUB_TOKEN)
        self._ids = itertools.count(1000)
        self.lock = threading.RLock()
        self.base_url: str | None = None  # set once the server listens

    # ------------------------------------------------------------------ setup

    @property
    def url(self) -> str:
        assert self.base_url is not None, "not started"
        return self.base_url

    def repo(self, full_name: str) -> Repo:
        with self.lock:
            return self.repos.setdefault(full_name, Repo(full_name))

    def next_id(self) -> int:
        return next(self._ids)

    def add_issue_comment(self, repo: str, number: int, body: str, user: JsonObject) -> JsonObject:
        with self.lock:
            comment = self.issue_comment_json(repo, number, body, user)
            self.repo(repo).issue_comments.append(comment)
            return comment

    @property
    def acting(self) -> JsonObject:
        """The account the token writes as."""
        return self.viewer or BOT

    def edit_issue_comment(self, repo: str, ident: int, body: str, user: JsonObject) -> None:
        """`user` (anyone with write access, or another app) edits a comment, ours included."""
        with self.lock:
            comment = next(c for c in self.repo(repo).issue_comments if c["id"] == ident)
            edited(comment, body, user)

    def writes(self) -> list[Request]:
        """Requests that change something (a GraphQL query is a POST that does not)."""
        return [r for r in self.requests if is_write(r.method, r.body)]

    def add_review(
        self, repo: str, number: int, user: JsonObject, state: str, commit_id: str = ""
    ) -> JsonObject:
        """A review submitted by `user` (e.g. human("alice"), "APPROVED")."""
        with self.lock:
            pull = self.repo(repo).pulls[number]
            review = github_json.review(
                repo,
                number,
                self.next_id(),
                user=account(user),
                body="",
                state=state,
                commit=commit_id or pull.head_sha,
            )
            review["_number"] = number
            self.repo(repo).reviews.append(review)
            if user["login"] in pull.requested_reviewers:  # GitHub drops the request
                pull.requested_reviewers.remove(user["login"])
            return review

    def add_review_reply(
        self, repo: str, number: int, in_reply_to: int, body: str, user: JsonObject
    ) -> JsonObject:
        """A reply in the review thread of comment `in_reply_to` (e.g. by human("alice"))."""
        with self.lock:
            parent = next(c for c in self.repo(repo).review_comments if c["id"] == in_reply_to)
            reply = github_json.review_comment(
                repo,
                number,
                self.next_id(),
                review_id=self.next_id(),
                comment={"path": parent["path"], "line": parent["line"], "body": body},
                user=account(user),
                commit=parent["commit_id"],
                diff_hunk=parent["diff_hunk"],
            )
            reply.update({"in_reply_to_id": in_reply_to, "_number": number})
            self.repo(repo).review_comments.append(reply)
            return reply

    def react(self, repo: str, comment_id: int, content: str, user: JsonObject) -> JsonObject:
        """`user` reacts to a comment (an issue comment or a review comment) with `content`."""
        with self.lock:
            reaction = github_json.reaction(self.next_id(), content, account(user))
            self.repo(repo).reactions.append({**reaction, "_comment": comment_id})
            return reaction

    def resolve_thread_as(self, repo: str, first_comment_id: int, login: str) -> str:
        """A person resolves the thread of a review comment; its GraphQL id."""
        ident = github_graphql.thread_id(first_comment_id)
        with self.lock:
            self.repo(repo).thread_state[ident] = login
        return ident

    def close_pull(
        self, repo: str, number: int, *, merged: bool = False, at: str = "2026-01-02T00:00:00Z"
    ) -> None:
        with self.lock:
            pull = self.repo(repo).pulls[number]
            pull.state, pull.merged, pull.closed_at = "closed", merged, at

    def merge_pull(self, repo: str, number: int, *, at: str = "2026-01-02T00:00:00Z") -> str:
        """A maintainer merges PR `number` into its base branch (a merge commit with the
        head's version of the files it changes, as `github_learnings.merge` makes it)."""
        with self.lock:
            found = self.repo(repo)
            return github_learnings.merge(found, found.pulls[number], at)

    # ------------------------------------------------------------------ behaviour

    def take_fault(self, method: str, path: str, body: Any = None) -> Fault | None:
        with self.lock:
            crash = self.crash_after_writes
            if is_write(method, body) and crash is not None and len(self.writes()) >= crash:
                return Fault(method, re.compile(""), 500, {}, {"message": "crash"})
        return self.next_fault(method, path)

    def issue_comment_json(self, repo: str, number: int, body: str, user: JsonObject) -> JsonObject:
        comment = github_json.issue_comment(repo, number, self.next_id(), body, account(user))
        return {**comment, "_number": number}

    def pull_json(self, repo: Repo, pull: PullRequest) -> JsonObject:
        """The pull request whole, as `GET /pulls/{n}` answers (and its webhook payloads)."""
        head_repo = pull.head_repo or repo.full_name
        full, number = repo.full_name, pull.number
        api = f"{github_json.API}/repos/{full}"
        html = f"{github_json.WEB}/{full}/pull/{number}"
        closed = None if pull.state == "open" else pull.closed_at or "2026-01-02T00:00:00Z"
        additions = sum(int(f.get("additions") or 0) for f in pull.files)
        deletions = sum(int(f.get("deletions") or 0) for f in pull.files)
        user = account(pull.user)
        return {
            "url": f"{self.url}/repos/{full}/pulls/{number}",
            "id": number * 7,
            "node_id": github_json.node_id("PR", number * 7),
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{number}",
            "commits_url": f"{api}/pulls/{number}/commits",
            "review_comments_url": f"{api}/pulls/{number}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{number}/comments",
            "statuses_url": f"{api}/statuses/{pull.head_sha}",
            "number": number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": user,
            "body": None,
            "labels": [github_json.label(full, name) for name in repo.labels.get(number, [])],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": pull.created_at,
            "updated_at": pull.created_at,
            "closed_at": closed,
            "merged_at": closed if pull.merged else None,
            "merge_commit_sha": None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [human(login) for login in pull.requested_reviewers],
            "requested_teams": [team_json(full, slug) for slug in pull.requested_teams],
            "head": github_json.branch(
                head_repo, pull.head_ref, pull.head_sha, fork=head_repo != full
            ),
            "base": github_json.branch(full, pull.base_ref, pull.base_sha),
            "_links": github_json.pull_links(full, number),
            "author_association": github_json.author_association(user),
            "auto_merge": None,
            "draft": pull.draft,
            "merged": pull.merged,
            "mergeable": None,
            "rebaseable": None,
            "mergeable_state": "unknown",
            "merged_by": None,
            "comments": 0,
            "review_comments": 0,
            "maintainer_can_modify": False,
            "commits": 1,
            "additions": additions,
            "deletions": deletions,
            "changed_files": len(pull.files),
        }

    def create_review(self, repo: Repo, pull: PullRequest, data: JsonObject) -> tuple[int, Any]:
        files = {f["filename"]: f for f in pull.files}
        for comment in data.get("comments") or []:
            error = comment_error(comment, files)
            if error:
                return 422, {
                    "message": "Unprocessable Entity",
                    "errors": [error],
                    "documentation_url": "https://docs.github.com/rest/pulls/reviews",
                    "status": "422",
                }
        event = data.get("event") or "PENDING"
        states = {"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}
        review_id = self.next_id()
        commit = data.get("commit_id") or pull.head_sha
        review = github_json.review(
            repo.full_name,
            pull.number,
            review_id,
            user=self.acting,
            body=data.get("body") or "",
            state=states.get(event, "PENDING"),
            commit=commit,
        )
        review["_number"] = pull.number
        repo.reviews.append(review)
        for comment in data.get("comments") or []:
            stored = github_json.review_comment(
                repo.full_name,
                pull.number,
                self.next_id(),
                review_id=review_id,
                comment=comment,
                user=self.acting,
                commit=commit,
                diff_hunk=diff_hunk(files[comment["path"]].get("patch", ""), comment["line"]),
            )
            repo.review_comments.append({**stored, "_number": pull.number})
        return 200, review


def load_pull_from_git(
    server: GitHubState,
    full_name: str,
    number: int,
    repo_dir: Path,
    *,
    base: str,
    head: str,
    omit_patch: tuple[str, ...] = (),
    **extra: Any,
) -> PullRequest:
    """Create or move PR `number` to base...head of a real git repository."""
    with server.lock:
        repo = server.repo(full_name)
        base_sha, base_files = snapshot(repo_dir, base)
        head_sha, head_files = snapshot(repo_dir, head)
        repo.snapshots[base_sha] = base_files
        repo.snapshots[head_sha] = head_files
        history = git_text(repo_dir, "rev-list", head_sha).split()
        repo.ancestors[head_sha] = set(history)
        files = pull_files_from_git(repo_dir, base, head, omit_patch=omit_patch)
        pull = repo.pulls.get(number)
        if pull is None:
            pull = PullRequest(number=number, head_sha=head_sha, base_sha=base_sha, files=files)
            repo.pulls[number] = pull
        pull.head_sha, pull.base_sha, pull.files = head_sha, base_sha, files
        for key, value in extra.items():
            setattr(pull, key, value)
        return pull
