"""The GitHub REST adapter: the only module that imports PyGithub.

`GitHubHost` implements the `PullRequestHost` port for one repository. PyGithub brings
authentication, `base_url` (GitHub Enterprise Server, test servers) and the pacing of
writes GitHub asks for (`seconds_between_writes`, about 1 s); its own urllib3 retries are
off, because this adapter retries narrowly and boundedly, with the loop both hosts share
(adapters/retries.py):

- 5xx answers and dropped connections;
- 429, and 403 secondary or primary rate limits, waiting for `Retry-After` or
  `X-RateLimit-Reset` (capped: a wait longer than `max_wait_s` gives up and says so).

A POST is retried after a 5xx only once a read shows it did not land, so a review or a
summary comment is never posted twice. Whatever fails after the retries becomes a
`GitHubError` naming the request and a fix; a 422 on a review is `ReviewRejected`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import quote

import requests
from github import Auth, Github, GithubException

from consensus.adapters.archive_tree import MAX_ARCHIVE_BYTES
from consensus.adapters.github_graphql import (
    EDIT_QUERY,
    RESOLVE_THREAD,
    UNRESOLVE_THREAD,
    all_threads,
    blob_texts,
    comment_edit_of,
    files_request,
    graphql_data,
)
from consensus.adapters.github_learnings import (
    branch_query,
    branch_to,
    closed_since,
    commit_body,
    describe_request,
    learnings_branch_of,
    open_request,
    tree_body,
)
from consensus.adapters.github_wire import (
    DEFAULT_RETRIES,
    GITHUB_FAILURES,
    file_text,
    header_value,
    host_comment,
    host_reaction,
    host_review,
    inline_json,
    message_of,
    missing_comment,
    omitted_blob,
    open_pull,
    permission_of,
    pull_file,
    pull_info,
)
from consensus.adapters.github_wire import Retries as Retries  # where callers import it
from consensus.adapters.refusals import TOKEN_CANNOT_ASK, or_none
from consensus.errors import GitHubError
from consensus.model.host import GITHUB_WORDS, HostWords
from consensus.ports import (
    ClosedPullThread,
    CommentEdit,
    HostComment,
    HostReaction,
    HostReview,
    InlineComment,
    LearningsBranch,
    OpenPull,
    PullFile,
    PullRequestInfo,
    ReviewRejected,
    ReviewThread,
)

PER_PAGE = 100
MAX_PR_FILES = 3000  # GitHub lists at most this many files of a pull request
MAX_FILE_BYTES = 2_000_000
_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')


class GitHubHost:
    """`PullRequestHost` over GitHub's REST API for `repo` ("owner/name")."""

    words: HostWords = GITHUB_WORDS  # a pull request, #4, permissions as GitHub says them

    def __init__(
        self,
        repo: str,
        *,
        token: str,
        base_url: str = "https://api.github.com",
        write_interval_s: float = 1.0,
        retries: Retries = DEFAULT_RETRIES,
        timeout_s: int = 30,
        log: Callable[[str], None] = lambda line: None,
        conditional: bool = False,
    ) -> None:
        self.repo = repo
        # url → (ETag, headers, data): with `conditional`, a GET read before is sent with
        # If-None-Match, and a 304 (which GitHub does not count against the rate limit)
        # answers from here.
        self._etags: dict[str, tuple[str, dict[str, Any], Any]] | None = None
        if conditional:
            self._etags = {}
        self._client = Github(
            auth=Auth.Token(token) if token else None,
            base_url=base_url.rstrip("/"),
            timeout=timeout_s,
            retry=None,
            per_page=PER_PAGE,
            seconds_between_requests=None,
            seconds_between_writes=write_interval_s or None,
            user_agent="consensus-review",
        )
        self._retries = retries
        self._log = log

    def close(self) -> None:
        """Close the connections kept alive for this run."""
        self._client.close()

    # ------------------------------------------------------------------ plumbing

    def _request(
        self,
        verb: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        landed: Callable[[], object | None] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[dict[str, Any], Any]:
        """One request with bounded retries; `landed` tells whether a failed POST landed."""

        def send() -> tuple[dict[str, Any], Any]:
            return self._client.requester.requestJsonAndCheck(
                verb, url, parameters=params, input=body, headers=headers
            )

        answer = self._retries.send(
            send, request=(verb, url), failures=GITHUB_FAILURES, log=self._log, landed=landed
        )
        return answer if answer is not None else ({}, None)

    def _pages(
        self, url: str, *, limit: int | None = None, query: dict[str, str] | None = None
    ) -> list[Any]:
        items: list[Any] = []
        next_url: str | None = url
        params: dict[str, Any] | None = {"per_page": PER_PAGE, **(query or {})}
        while next_url is not None:
            headers, data = self._get(next_url, params)
            items.extend(data or [])
            params = None  # the Link header carries them from now on
            if limit is not None and len(items) >= limit:
                return items[:limit]
            match = _NEXT_LINK.search(str(header_value(headers, "link") or ""))
            next_url = match.group(1) if match else None
        return items

    def _get(self, url: str, params: dict[str, Any] | None) -> tuple[dict[str, Any], Any]:
        """A GET, conditional on the ETag of the last answer when the host is `conditional`."""
        if self._etags is None:
            return self._request("GET", url, params=params)
        key = f"{url}?{sorted((params or {}).items())}"
        cached = self._etags.get(key)
        condition = {"If-None-Match": cached[0]} if cached else None
        headers, data = self._request("GET", url, params=params, headers=condition)
        if cached is not None and data is None:  # 304 Not Modified: no body
            return cached[1], cached[2]
        etag = header_value(headers, "etag")
        if etag:
            self._etags[key] = (str(etag), headers, data)
        return headers, data

    @property
    def _base(self) -> str:
        return f"/repos/{self.repo}"

    # ------------------------------------------------------------------ reads

    def pull_request(self, number: int) -> PullRequestInfo:
        return pull_info(self._request("GET", f"{self._base}/pulls/{number}")[1], self.repo)

    def pull_files(self, number: int) -> list[PullFile]:
        raw = self._pages(f"{self._base}/pulls/{number}/files", limit=MAX_PR_FILES)
        return [pull_file(item) for item in raw]

    def read_file(self, path: str, ref: str) -> str | None:
        data = self._contents(path, ref)
        if sha := omitted_blob(data, MAX_FILE_BYTES):  # the contents API sends none over 1 MB
            data = {**self._get(f"{self._base}/git/blobs/{quote(sha)}", None)[1], "type": "file"}
        return file_text(data, MAX_FILE_BYTES)

    def read_files(self, paths: Sequence[str], ref: str) -> dict[str, str | None]:
        """Several files at `ref` in one GraphQL request; file by file over REST if that fails."""
        wanted = [p for p in dict.fromkeys(paths) if not p.startswith("/") and ".." not in p]
        try:
            data = self._graphql(*files_request(self.repo, wanted, ref)) if wanted else {}
        except GitHubError as exc:
            self._log(f"GitHub GraphQL: {exc.message}; reading the files one by one")
            return {p: self.read_file(p, ref) for p in paths}
        texts = blob_texts(data, wanted, MAX_FILE_BYTES)
        return {p: texts.get(p) for p in paths}

    def list_dir(self, path: str, ref: str) -> list[str] | None:
        data = self._contents(path, ref)
        if not isinstance(data, list):
            return None
        return sorted(str(item["name"]) for item in data if item.get("type") == "file")

    def _contents(self, path: str, ref: str) -> Any:
        if path.startswith("/") or ".." in path.split("/"):
            return None
        return or_none(lambda: self._get(f"{self._base}/contents/{quote(path)}", {"ref": ref})[1])

    def issue_comments(self, number: int) -> list[HostComment]:
        return [host_comment(c) for c in self._pages(f"{self._base}/issues/{number}/comments")]

    def review_comments(self, number: int) -> list[HostComment]:
        return [host_comment(c) for c in self._pages(f"{self._base}/pulls/{number}/comments")]

    def review_comment_reactions(self, number: int, comment_id: int) -> list[HostReaction]:
        url = f"{self._base}/pulls/comments/{comment_id}/reactions"
        return [host_reaction(r) for r in self._pages(url)]

    # ------------------------------------------------------------------ queue reads

    def default_branch(self) -> str:
        _, data = self._get(self._base, None)
        return str(data.get("default_branch") or "main")

    def archive(self, sha: str) -> bytes | None:
        """The repository at commit `sha` as GitHub's tarball (`/tarball/{sha}`, redirected to
        codeload, which PyGithub follows without the token), for judges where the checkout
        lacks the commit; None when GitHub has none or it is over MAX_ARCHIVE_BYTES."""
        url = f"{self._base}/tarball/{quote(sha, safe='')}"
        chunks, size = [], 0
        try:
            _, _, stream = self._client.requester.getStream(url, chunk_size=1 << 16)
            for chunk in stream:
                size += len(chunk)
                if size > MAX_ARCHIVE_BYTES:
                    self._log(f"warning: GitHub's tarball of {sha[:12]} is over the size read")
                    return None
                chunks.append(chunk)
        except (GithubException, requests.RequestException) as exc:
            self._log(f"warning: GitHub's tarball of {sha[:12]} could not be read ({exc})")
            return None
        return b"".join(chunks)

    def viewer_login(self) -> str | None:
        """The token's user; None for an installation token (GITHUB_TOKEN cannot ask: 403).
        Any other failure is raised: guessing would make our own comments someone else's."""
        data = or_none(lambda: self._request("GET", "/user")[1], absent=TOKEN_CANNOT_ASK)
        return str((data or {}).get("login") or "") or None

    def comment_edit(self, comment: HostComment) -> CommentEdit | None:
        """GraphQL's `editor` and `lastEditedAt` of the comment (REST does not say who
        edited). A Bot's GraphQL login lacks REST's `[bot]`: it is added back."""
        if not comment.node_id:  # cannot ask: treated as edited by someone unknown
            return CommentEdit(editor="")
        return comment_edit_of(self._graphql(EDIT_QUERY, {"id": comment.node_id}))

    def open_pulls(self) -> list[OpenPull]:
        """Every open pull request, oldest first, 100 a page."""
        query = {"state": "open", "sort": "created", "direction": "asc"}
        return [open_pull(item) for item in self._pages(f"{self._base}/pulls", query=query)]

    def pull_reviews(self, number: int) -> list[HostReview]:
        return [host_review(r) for r in self._pages(f"{self._base}/pulls/{number}/reviews")]

    # ------------------------------------------------------------------ command reads

    def collaborator_permission(self, login: str) -> str:
        """admin, maintain, write, triage, read or none; a 404 (no such user) is none."""
        url = f"{self._base}/collaborators/{quote(login, safe='')}/permission"
        return permission_of(or_none(lambda: self._request("GET", url)[1]))

    # ------------------------------------------------------------------ writes

    def create_issue_comment(self, number: int, body: str) -> HostComment:
        first_line = body.split("\n", 1)[0]

        def landed() -> HostComment | None:
            mine = [c for c in self.issue_comments(number) if c.author_is_bot]
            return next((c for c in mine if c.body.startswith(first_line)), None)

        url = f"{self._base}/issues/{number}/comments"
        _, data = self._request("POST", url, body={"body": body}, landed=landed)
        return host_comment(data) if data else (landed() or missing_comment(url))

    def edit_issue_comment(self, number: int, comment_id: int, body: str) -> None:
        self._request("PATCH", f"{self._base}/issues/comments/{comment_id}", body={"body": body})

    def delete_issue_comment(self, number: int, comment_id: int) -> None:
        self._delete(f"{self._base}/issues/comments/{comment_id}")

    def delete_review_comment(self, number: int, comment_id: int) -> None:
        self._delete(f"{self._base}/pulls/comments/{comment_id}")

    def reply_to_review_comment(self, number: int, comment_id: int, body: str) -> HostComment:
        url = f"{self._base}/pulls/{number}/comments/{comment_id}/replies"
        marker = body.rstrip().rsplit("\n", 1)[-1]

        def landed() -> HostComment | None:
            return next((c for c in self.review_comments(number) if marker in c.body), None)

        _, data = self._request("POST", url, body={"body": body}, landed=landed)
        return host_comment(data) if data else (landed() or missing_comment(url))

    def _delete(self, url: str) -> None:
        or_none(lambda: self._request("DELETE", url))  # a 404: already gone, what we wanted

    def create_review(
        self,
        number: int,
        *,
        commit_sha: str,
        body: str,
        event: Literal["COMMENT", "REQUEST_CHANGES"],
        comments: Sequence[InlineComment],
    ) -> int:
        url = f"{self._base}/pulls/{number}/reviews"
        payload = {
            "commit_id": commit_sha,
            "body": body,
            "event": event,
            "comments": [inline_json(c) for c in comments],
        }
        marker = body.rsplit("\n", 1)[-1]

        def landed() -> int | None:
            reviews = self._pages(url)
            return next((int(r["id"]) for r in reviews if marker in str(r.get("body"))), None)

        try:
            _, data = self._request("POST", url, body=payload, landed=landed)
        except GitHubError as exc:
            cause = exc.__cause__
            if isinstance(cause, GithubException) and cause.status == 422:
                data = cause.data if isinstance(cause.data, dict) else {}
                errors = tuple(str(e) for e in data.get("errors") or ())
                raise ReviewRejected(message_of(cause), errors) from exc
            raise
        return int(data["id"]) if data else (landed() or 0)

    def add_reaction(self, number: int, comment_id: int, content: str) -> None:
        url = f"{self._base}/issues/comments/{comment_id}/reactions"
        self._request("POST", url, body={"content": content})

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        url = f"{self._base}/issues/{number}/labels"
        self._request("POST", url, body={"labels": list(labels)})

    def remove_label(self, number: int, label: str) -> None:
        self._delete(f"{self._base}/issues/{number}/labels/{quote(label, safe='')}")

    # ------------------------------------------------------------------ review threads (GraphQL)

    def _graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """One GraphQL request at /graphql (GHES: /api/graphql), retried like REST; GraphQL
        errors in a 200 answer become a GitHubError too."""
        url = self._client.requester.graphql_url
        _, data = self._request("POST", url, body={"query": query, "variables": variables})
        answer, problem = graphql_data(data)
        if problem:
            fix = "give the workflow 'pull-requests: write' (threads are resolved with it)"
            raise GitHubError(f"GitHub GraphQL {url} failed: {problem}", fix=fix)
        return answer

    def review_threads(self, number: int) -> list[ReviewThread]:
        return all_threads(self._graphql, self.repo, number)

    def set_thread_resolved(self, number: int, thread_id: str, resolved: bool) -> None:
        self._graphql(RESOLVE_THREAD if resolved else UNRESOLVE_THREAD, {"id": thread_id})

    # ------------------------------------------------------------------ learnings (GraphQL, git)

    def closed_pulls(self, since: str) -> list[ClosedPullThread]:
        return closed_since(self._graphql, self.repo, since)

    def learnings_branch(self, name: str) -> LearningsBranch:
        return learnings_branch_of(self._graphql(*branch_query(self.repo, name)), name)

    def commit_learnings(self, branch: LearningsBranch, path: str, text: str, message: str) -> str:
        git = f"{self._base}/git"  # the commit first, on top of the default head; then one move
        _, tree = self._request("POST", f"{git}/trees", body=tree_body(branch, path, text))
        _, made = self._request("POST", f"{git}/commits", body=commit_body(branch, tree, message))
        self._graphql(*branch_to(branch, str(made["sha"])))  # never via the base: its PR stays open
        return str(made["sha"])

    def open_learnings_pull(self, branch: LearningsBranch, title: str, body: str) -> int:
        made = self._graphql(*open_request(branch, title, body))
        return int(((made.get("createPullRequest") or {}).get("pullRequest") or {})["number"])

    def describe_learnings_pull(self, branch: LearningsBranch, body: str) -> None:
        self._graphql(*describe_request(branch, body))

    def request_reviewers(
        self, number: int, reviewers: Sequence[str], team_reviewers: Sequence[str]
    ) -> None:
        url = f"{self._base}/pulls/{number}/requested_reviewers"
        body = {"reviewers": list(reviewers), "team_reviewers": list(team_reviewers)}
        self._request("POST", url, body=body)
