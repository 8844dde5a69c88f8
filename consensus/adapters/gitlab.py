"""The GitLab REST adapter: the only module that imports python-gitlab.

`GitLabHost` implements the pull-request roles of the ports (PullReader, ReviewWriter,
Conversation) for one project, on gitlab.com or a self-managed instance (`api_url` is
`CI_API_V4_URL`). python-gitlab brings the token, the base URL and the session; its own
retries are off: this adapter retries boundedly with tenacity, as the GitHub one does
(no answer, 5xx, 429 waiting for `Retry-After` or `RateLimit-Reset`, a wait over
`max_wait_s` giving up), and retries a failed POST only once a read shows it did not
land. What fails after the retries is a `GitLabError` naming the request and a fix.

A review comment is a diff discussion on GitLab: `create_review` places every comment
on the diff version first (adapters/gitlab_notes.py, gitlab_position.py), refuses the
review as a whole (`ReviewRejected`, nothing posted) when one cannot be placed, then posts
one discussion each, but not one whose body already opens a discussion of the same file.
GitLab has no review object: the review's body is not posted (the summary note says the
same) and REQUEST_CHANGES is the job's failing status.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

import requests
from gitlab import Gitlab, GitlabError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from consensus.adapters.gitlab_notes import (
    Json,
    NoteIndex,
    chosen_version,
    diff_comments,
    first_on_diff,
    notes_of,
    on_diff,
    place_comments,
)
from consensus.adapters.gitlab_wire import (
    EDIT_QUERY,
    EMOJI,
    Failed,
    Failure,
    comment_edit_of,
    file_text,
    gitlab_error,
    host_reaction,
    is_transient,
    merge_request_info,
    next_page,
    note_comment,
    permission_of,
    pull_file,
    retry_wait,
    review_thread,
)
from consensus.adapters.retries import DEFAULT_RETRIES, Retries
from consensus.errors import GitLabError
from consensus.ports import (
    CommentEdit,
    HostComment,
    HostReaction,
    InlineComment,
    PullFile,
    PullRequestInfo,
    ReviewRejected,
    ReviewThread,
)

PER_PAGE = 100
MAX_MR_FILES = 3000
MAX_FILE_BYTES = 2_000_000


class GitLabHost:
    """The pull-request ports over GitLab's REST API v4 for `project` (its numeric id, as
    `CI_PROJECT_ID` gives it, or its full path)."""

    def __init__(
        self,
        project: str,
        *,
        token: str,
        api_url: str = "https://gitlab.com/api/v4",
        merge_request: int | None = None,
        retries: Retries = DEFAULT_RETRIES,
        timeout_s: float = 30,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.project = project
        self._base = f"/projects/{quote(project, safe='')}"
        self._index = NoteIndex(merge_request)
        self._last_headers: Mapping[str, str] = {}
        session = requests.Session()
        session.hooks["response"].append(self._keep_headers)
        self._client = Gitlab(
            url=api_url.rstrip("/").removesuffix("/api/v4"),
            private_token=token or None,
            timeout=timeout_s,
            user_agent="consensus-review",
            retry_transient_errors=False,
            session=session,
        )
        self._session = session
        self._retries = retries
        self._log = log

    def close(self) -> None:
        """Close the connections kept alive for this run."""
        self._session.close()

    # ------------------------------------------------------------------ plumbing

    def _keep_headers(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        self._last_headers = dict(response.headers)

    def _send(
        self, verb: str, path: str, params: Mapping[str, Any] | None, body: Any
    ) -> tuple[Mapping[str, str], Any]:
        try:
            response = self._client.http_request(
                verb.lower(),
                path,
                query_data=dict(params or {}),
                post_data=body,
                obey_rate_limit=False,
                retry_transient_errors=False,
                max_retries=0,
            )
        except GitlabError as exc:
            status = exc.response_code
            message = str(exc.error_message or f"HTTP {status}")
            failure = Failure(status, message, self._last_headers)
            raise Failed(failure) from exc
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise Failed(Failure(None, str(exc) or type(exc).__name__)) from exc
        data = response.json() if response.content else None
        return dict(response.headers), data

    def _request(
        self,
        verb: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        landed: Callable[[], object | None] | None = None,
    ) -> tuple[Mapping[str, str], Any]:
        """One request with bounded retries; `landed` tells whether a failed POST landed."""
        failures: list[Failure] = []
        retries = self._retries

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            assert isinstance(exc, Failed)
            failures.append(exc.failure)
            seconds = retry_wait(
                exc.failure, state.attempt_number, now=time.time(), base_s=retries.backoff_s
            )
            if seconds > retries.max_wait_s:
                raise gitlab_error(verb, path, exc.failure, f"GitLab asked to wait {seconds:.0f}s")
            self._log(f"GitLab {verb} {path}: {exc.failure.message}; retrying in {seconds:.0f}s")
            return seconds

        retrying = Retrying(
            retry=retry_if_exception(lambda e: isinstance(e, Failed) and is_transient(e.failure)),
            stop=stop_after_attempt(retries.attempts),
            wait=wait,
            sleep=retries.sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    # A 5xx on a write may still have landed: look before writing again.
                    landing = landed and failures and failures[-1].status != 429
                    if landing and landed is not None and landed() is not None:
                        return {}, None
                    return self._send(verb, path, params, body)
        except Failed as exc:
            raise gitlab_error(verb, path, exc.failure) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _pages(
        self, path: str, query: Mapping[str, Any] | None = None, limit: int = 0
    ) -> list[Any]:
        """Every item of a paginated list, 100 a page, following `X-Next-Page`."""
        items: list[Any] = []
        page: int | None = 1
        while page is not None:
            headers, data = self._request(
                "GET", path, params={**(query or {}), "per_page": PER_PAGE, "page": page}
            )
            items.extend(data or [])
            if limit and len(items) >= limit:
                return items[:limit]
            page = next_page(headers)
        return items

    def _mr(self, number: int) -> str:
        return f"{self._base}/merge_requests/{number}"

    def _all_discussions(self, number: int) -> list[Json]:
        found = self._pages(f"{self._mr(number)}/discussions")
        for discussion in found:
            self._index.remember(number, discussion.get("notes") or (), str(discussion["id"]))
        return found

    # ------------------------------------------------------------------ PullReader

    def pull_request(self, number: int) -> PullRequestInfo:
        _, data = self._request("GET", self._mr(number))
        base_repo = self._project_path(int(data.get("target_project_id") or 0))
        source = int(data.get("source_project_id") or 0)
        head_repo = base_repo if source == int(data.get("target_project_id") or 0) else None
        if head_repo is None and source:
            head_repo = self._project_path(source, missing_ok=True)
        return merge_request_info(data, base_repo=base_repo or self.project, head_repo=head_repo)

    def _project_path(self, ident: int, *, missing_ok: bool = False) -> str | None:
        """A project's full path (`group/project`); None for a fork GitLab no longer shows."""
        try:
            _, data = self._request("GET", f"/projects/{ident}" if ident else self._base)
        except GitLabError as exc:
            if missing_ok and exc.status in (403, 404):
                return None
            raise
        return str(data.get("path_with_namespace") or "") or None

    def pull_files(self, number: int) -> list[PullFile]:
        raw = self._pages(f"{self._mr(number)}/diffs", limit=MAX_MR_FILES)
        return [pull_file(item) for item in raw]

    def read_file(self, path: str, ref: str) -> str | None:
        if not path or path.startswith("/") or ".." in path.split("/"):
            return None
        url = f"{self._base}/repository/files/{quote(path, safe='')}"
        try:
            _, data = self._request("GET", url, params={"ref": ref})
        except GitLabError as exc:
            if exc.status == 404:
                return None
            raise
        return file_text(data, MAX_FILE_BYTES)

    def read_files(self, paths: Sequence[str], ref: str) -> dict[str, str | None]:
        """Several files at `ref`, one request each (GitLab's REST has no batch read)."""
        return {path: self.read_file(path, ref) for path in dict.fromkeys(paths)}

    def list_dir(self, path: str, ref: str) -> list[str] | None:
        if path.startswith("/") or ".." in path.split("/"):
            return None
        query = {"path": path, "ref": ref}
        try:
            entries = self._pages(f"{self._base}/repository/tree", query)
        except GitLabError as exc:
            if exc.status == 404:
                return None
            raise
        return sorted(str(e["name"]) for e in entries if e.get("type") == "blob")

    def default_branch(self) -> str:
        _, data = self._request("GET", self._base)
        return str(data.get("default_branch") or "main")

    # ------------------------------------------------------------------ ReviewWriter

    def review_comments(self, number: int) -> list[HostComment]:
        """Every note of the merge request's diff discussions; a reply names the thread's
        first note."""
        return diff_comments(self._all_discussions(number))

    def review_threads(self, number: int) -> list[ReviewThread]:
        found = (review_thread(d) for d in self._all_discussions(number) if on_diff(d))
        return [thread for thread in found if thread is not None]

    def create_review(
        self,
        number: int,
        *,
        commit_sha: str,
        body: str,
        event: Literal["COMMENT", "REQUEST_CHANGES"],
        comments: Sequence[InlineComment],
    ) -> int:
        """One diff discussion per comment, each placed on the diff version of `commit_sha`
        (the latest when GitLab has none for it). Every comment is placed before anything
        is posted; one that cannot be is a ReviewRejected naming it, and nothing is posted."""
        if not comments:
            return 0
        positions = self._positions(number, commit_sha, comments)
        posted = {first_on_diff(d) for d in self._all_discussions(number) if on_diff(d)}
        first = 0
        for comment, position in zip(comments, positions, strict=True):
            if (comment.path, comment.body) in posted:
                continue  # posted by an earlier attempt of this run, or a run before it
            note = self._post_discussion(number, comment.body, position)
            first = first or note
        return first

    def _positions(
        self, number: int, commit_sha: str, comments: Sequence[InlineComment]
    ) -> list[Json]:
        chosen = chosen_version(self._pages(f"{self._mr(number)}/versions"), commit_sha)
        _, version = self._request("GET", f"{self._mr(number)}/versions/{int(chosen['id'])}")
        return place_comments(version, comments)

    def _post_discussion(self, number: int, body: str, position: Json) -> int:
        url = f"{self._mr(number)}/discussions"

        def landed() -> int | None:
            found = [n for d in self._all_discussions(number) for n in notes_of(d)]
            return next((int(n["id"]) for n in found if n.get("body") == body), None)

        try:
            _, data = self._request(
                "POST", url, body={"body": body, "position": position}, landed=landed
            )
        except GitLabError as exc:
            if exc.status == 400:
                raise ReviewRejected(exc.message, (exc.message,)) from exc
            raise
        if data is None:
            return landed() or 0
        self._index.remember(number, data.get("notes") or (), str(data["id"]))
        return int((data.get("notes") or [{"id": 0}])[0]["id"])

    def delete_review_comment(self, comment_id: int) -> None:
        self._delete(f"{self._mr(self._index.merge_request_of(comment_id))}/notes/{comment_id}")

    def reply_to_review_comment(self, number: int, comment_id: int, body: str) -> HostComment:
        """A reply in the discussion of note `comment_id`."""
        if self._index.discussion_of(comment_id) is None:
            self._all_discussions(number)
        discussion = self._index.discussion_of(comment_id)
        if discussion is None:
            raise GitLabError(
                f"GitLab note {comment_id} is in no discussion of !{number}",
                status=404,
                fix="the note was deleted: nothing to reply to",
            )
        url = f"{self._mr(number)}/discussions/{discussion}/notes"

        def landed() -> Json | None:
            found = [n for d in self._all_discussions(number) for n in notes_of(d)]
            return next((n for n in found if n.get("body") == body), None)

        _, data = self._request("POST", url, body={"body": body}, landed=landed)
        note = data if data is not None else landed()
        if note is None:
            raise GitLabError(f"GitLab POST {url} answered without the created note")
        self._index.remember(number, [note], discussion)
        return note_comment(note, thread_first=self._index.first_note_of(discussion))

    def review_comment_reactions(self, comment_id: int) -> list[HostReaction]:
        """The award emoji on a note (👍 `thumbsup` is `+1`, 👎 `thumbsdown` is `-1`)."""
        url = f"{self._mr(self._index.merge_request_of(comment_id))}/notes/{comment_id}/award_emoji"
        return [host_reaction(award) for award in self._pages(url)]

    def set_thread_resolved(self, thread_id: str, resolved: bool) -> None:
        number = self._index.merge_request_of_thread(thread_id)
        url = f"{self._mr(number)}/discussions/{quote(thread_id, safe='')}"
        self._request("PUT", url, body={"resolved": resolved})

    # ------------------------------------------------------------------ Conversation

    def issue_comments(self, number: int) -> list[HostComment]:
        """The merge request's notes that are not on the diff, oldest first (no system notes)."""
        query = {"sort": "asc", "order_by": "created_at"}
        notes = self._pages(f"{self._mr(number)}/notes", query)
        self._index.remember(number, notes, None)
        return [
            note_comment(n) for n in notes if not n.get("system") and n.get("type") != "DiffNote"
        ]

    def create_issue_comment(self, number: int, body: str) -> HostComment:
        url = f"{self._mr(number)}/notes"

        def landed() -> HostComment | None:
            return next((c for c in self.issue_comments(number) if c.body == body), None)

        _, data = self._request("POST", url, body={"body": body}, landed=landed)
        if data is None:
            found = landed()
            if found is None:
                raise GitLabError(f"GitLab POST {url} answered without the created note")
            return found
        self._index.remember(number, [data], None)
        return note_comment(data)

    def edit_issue_comment(self, comment_id: int, body: str) -> None:
        url = f"{self._mr(self._index.merge_request_of(comment_id))}/notes/{comment_id}"
        self._request("PUT", url, body={"body": body})

    def delete_issue_comment(self, comment_id: int) -> None:
        self._delete(f"{self._mr(self._index.merge_request_of(comment_id))}/notes/{comment_id}")

    def add_reaction(self, comment_id: int, content: str) -> None:
        """An award emoji on a note; one already given is what we wanted."""
        url = f"{self._mr(self._index.merge_request_of(comment_id))}/notes/{comment_id}/award_emoji"
        try:
            self._request("POST", url, body={"name": EMOJI.get(content, content)})
        except GitLabError as exc:
            if not (exc.status == 404 and "already been taken" in exc.message):
                raise

    def collaborator_permission(self, login: str) -> str:
        """admin (Owner), maintain (Maintainer), write (Developer), triage (Reporter), read
        (Guest, Planner) or none: the user's role on the project, inherited ones included,
        asked of the API (`/members/all/:user_id`), never taken from an event payload."""
        _, users = self._request("GET", "/users", params={"username": login})
        match = [u for u in users or () if str(u.get("username")) == login]
        if not match:
            return "none"
        url = f"{self._base}/members/all/{int(match[0]['id'])}"
        try:
            _, member = self._request("GET", url)
        except GitLabError as exc:
            if exc.status == 404:
                return "none"
            raise
        return permission_of(member)

    def viewer_login(self) -> str | None:
        """The token's user; None when the token cannot ask (a job token)."""
        try:
            _, data = self._request("GET", "/user")
        except GitLabError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise
        return str(data.get("username") or "") or None

    def comment_edit(self, comment: HostComment) -> CommentEdit | None:
        """Who last edited a note, and when (GraphQL `lastEditedBy`, `lastEditedAt`: REST
        does not say); None when nobody has since it was posted."""
        if not comment.node_id:
            return CommentEdit(editor="")
        url = f"{self._client.url}/api/graphql"
        asked = {"query": EDIT_QUERY, "variables": {"id": comment.node_id}}
        return comment_edit_of(self._request("POST", url, body=asked)[1], url)

    def _delete(self, url: str) -> None:
        try:
            self._request("DELETE", url)
        except GitLabError as exc:
            if exc.status != 404:  # already gone: what we wanted
                raise
