"""The GitLab REST adapter: the pull-request roles of the ports over GitLab's API v4.

`GitLabHost` implements `PullRequestHost` (PullReader, ReviewWriter, Conversation) for one
project, on gitlab.com or a self-managed instance (`api_url` is `CI_API_V4_URL`). Its
requests go through `GitLabSession` (adapters/gitlab_http.py, the only python-gitlab
importer: bounded retries, pages); what fails after the retries is a `GitLabError` naming
the request and a fix.

A review comment is a diff discussion on GitLab: `create_review` places every comment
on the diff version first (adapters/gitlab_notes.py, gitlab_position.py), refuses the
review as a whole (`ReviewRejected`, nothing posted) when one cannot be placed, then posts
one discussion each, but not one whose body already opens a discussion of the same file.
GitLab has no review object: the review's body is not posted (the summary note says the
same) and REQUEST_CHANGES is the job's failing status.

A note is addressed under its merge request, which every call on a comment names (the
port's `(number, comment_id)`); a reply goes under the note's discussion, which the adapter
remembers of the discussions it read or wrote, and reads the merge request's for otherwise.

Every body it posts or edits is made inert for GitLab's quick actions first
(adapters/gitlab_quick_actions.py): a line of a note that GitLab would run as `/merge` or
`/approve` with the token's permissions is escaped, whoever wrote its words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal
from urllib.parse import quote

from consensus.adapters.archive_tree import MAX_ARCHIVE_BYTES
from consensus.adapters.gitlab_http import GitLabSession
from consensus.adapters.gitlab_notes import (
    Discussions,
    Json,
    chosen_version,
    diff_comments,
    first_on_diff,
    notes_of,
    on_diff,
    place_comments,
)
from consensus.adapters.gitlab_quick_actions import inert_quick_actions
from consensus.adapters.gitlab_wire import (
    EDIT_QUERY,
    EMOJI,
    comment_edit_of,
    file_text,
    host_reaction,
    merge_request_info,
    note_comment,
    permission_of,
    pull_file,
    review_thread,
)
from consensus.adapters.refusals import TOKEN_CANNOT_ASK, or_none
from consensus.adapters.retries import DEFAULT_RETRIES, Retries
from consensus.errors import GitLabError
from consensus.model.host import GITLAB_WORDS, HostWords
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

MAX_MR_FILES = 3000
MAX_FILE_BYTES = 2_000_000


class GitLabHost:
    """The pull-request ports over GitLab's REST API v4 for `project` (its numeric id, as
    `CI_PROJECT_ID` gives it, or its full path)."""

    words: HostWords = GITLAB_WORDS  # a merge request, !4, Reporter and Developer roles

    def __init__(
        self,
        project: str,
        *,
        token: str,
        api_url: str = "https://gitlab.com/api/v4",
        retries: Retries = DEFAULT_RETRIES,
        timeout_s: float = 30,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.project = project
        self._base = f"/projects/{quote(project, safe='')}"
        self._discussions = Discussions()
        self._http = GitLabSession(
            token=token, api_url=api_url, retries=retries, timeout_s=timeout_s, log=log
        )
        self._log = log

    def close(self) -> None:
        """Close the connections kept alive for this run."""
        self._http.close()

    def _mr(self, number: int) -> str:
        return f"{self._base}/merge_requests/{number}"

    def _all_discussions(self, number: int) -> list[Json]:
        found = self._http.pages(f"{self._mr(number)}/discussions")
        for discussion in found:
            self._discussions.remember(discussion.get("notes") or (), str(discussion["id"]))
        return found

    # ------------------------------------------------------------------ PullReader

    def pull_request(self, number: int) -> PullRequestInfo:
        _, data = self._http.request("GET", self._mr(number))
        base_repo = self._project_path(int(data.get("target_project_id") or 0))
        source = int(data.get("source_project_id") or 0)
        head_repo = base_repo if source == int(data.get("target_project_id") or 0) else None
        if head_repo is None and source:
            head_repo = self._project_path(source, missing_ok=True)
        return merge_request_info(data, base_repo=base_repo or self.project, head_repo=head_repo)

    def _project_path(self, ident: int, *, missing_ok: bool = False) -> str | None:
        """A project's full path (`group/project`); None for a fork GitLab no longer shows."""
        url = f"/projects/{ident}" if ident else self._base
        data = or_none(
            lambda: self._http.request("GET", url)[1], absent=(403, 404) if missing_ok else ()
        )
        return str((data or {}).get("path_with_namespace") or "") or None

    def pull_files(self, number: int) -> list[PullFile]:
        raw = self._http.pages(f"{self._mr(number)}/diffs", limit=MAX_MR_FILES)
        return [pull_file(item) for item in raw]

    def read_file(self, path: str, ref: str) -> str | None:
        if not path or path.startswith("/") or ".." in path.split("/"):
            return None
        url = f"{self._base}/repository/files/{quote(path, safe='')}"
        data = or_none(lambda: self._http.request("GET", url, params={"ref": ref})[1])
        return file_text(data, MAX_FILE_BYTES)

    def read_files(self, paths: Sequence[str], ref: str) -> dict[str, str | None]:
        """Several files at `ref`, one request each (GitLab's REST has no batch read)."""
        return {path: self.read_file(path, ref) for path in dict.fromkeys(paths)}

    def list_dir(self, path: str, ref: str) -> list[str] | None:
        if path.startswith("/") or ".." in path.split("/"):
            return None
        query = {"path": path, "ref": ref}
        entries = or_none(lambda: self._http.pages(f"{self._base}/repository/tree", query))
        if entries is None:
            return None
        return sorted(str(e["name"]) for e in entries if e.get("type") == "blob")

    def default_branch(self) -> str:
        _, data = self._http.request("GET", self._base)
        return str(data.get("default_branch") or "main")

    def archive(self, sha: str) -> bytes | None:
        """The repository at commit `sha` as GitLab's tar.gz (`/repository/archive.tar.gz`,
        one request for the whole tree: the job checks nothing out); None when GitLab has
        no such commit or the archive is over MAX_ARCHIVE_BYTES."""
        url = f"{self._base}/repository/archive.tar.gz"
        return or_none(
            lambda: self._http.download(url, params={"sha": sha}, max_bytes=MAX_ARCHIVE_BYTES)
        )

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
            body = inert_quick_actions(comment.body)
            if (comment.path, body) in posted:
                continue  # posted by an earlier attempt of this run, or a run before it
            note = self._post_discussion(number, body, position)
            first = first or note
        return first

    def _positions(
        self, number: int, commit_sha: str, comments: Sequence[InlineComment]
    ) -> list[Json]:
        chosen = chosen_version(self._http.pages(f"{self._mr(number)}/versions"), commit_sha)
        _, version = self._http.request("GET", f"{self._mr(number)}/versions/{int(chosen['id'])}")
        return place_comments(version, comments)

    def _post_discussion(self, number: int, body: str, position: Json) -> int:
        url = f"{self._mr(number)}/discussions"

        def landed() -> int | None:
            found = [n for d in self._all_discussions(number) for n in notes_of(d)]
            return next((int(n["id"]) for n in found if n.get("body") == body), None)

        try:
            _, data = self._http.request(
                "POST", url, body={"body": body, "position": position}, landed=landed
            )
        except GitLabError as exc:
            if exc.status == 400:
                raise ReviewRejected(exc.message, (exc.message,)) from exc
            raise
        if data is None:
            return landed() or 0
        self._discussions.remember(data.get("notes") or (), str(data["id"]))
        return int((data.get("notes") or [{"id": 0}])[0]["id"])

    def delete_review_comment(self, number: int, comment_id: int) -> None:
        self._delete(f"{self._mr(number)}/notes/{comment_id}")

    def reply_to_review_comment(self, number: int, comment_id: int, body: str) -> HostComment:
        """A reply in the discussion of note `comment_id`."""
        body = inert_quick_actions(body)
        if self._discussions.of(comment_id) is None:
            self._all_discussions(number)
        discussion = self._discussions.of(comment_id)
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

        _, data = self._http.request("POST", url, body={"body": body}, landed=landed)
        note = data if data is not None else landed()
        if note is None:
            raise GitLabError(f"GitLab POST {url} answered without the created note")
        self._discussions.remember([note], discussion)
        return note_comment(note, thread_first=self._discussions.first_note(discussion))

    def review_comment_reactions(self, number: int, comment_id: int) -> list[HostReaction]:
        """The award emoji on a note (👍 `thumbsup` is `+1`, 👎 `thumbsdown` is `-1`)."""
        url = f"{self._mr(number)}/notes/{comment_id}/award_emoji"
        return [host_reaction(award) for award in self._http.pages(url)]

    def set_thread_resolved(self, number: int, thread_id: str, resolved: bool) -> None:
        url = f"{self._mr(number)}/discussions/{quote(thread_id, safe='')}"
        self._http.request("PUT", url, body={"resolved": resolved})

    # ------------------------------------------------------------------ Conversation

    def issue_comments(self, number: int) -> list[HostComment]:
        """The merge request's notes that are not on the diff, oldest first (no system notes)."""
        query = {"sort": "asc", "order_by": "created_at"}
        notes = self._http.pages(f"{self._mr(number)}/notes", query)
        return [
            note_comment(n) for n in notes if not n.get("system") and n.get("type") != "DiffNote"
        ]

    def create_issue_comment(self, number: int, body: str) -> HostComment:
        body = inert_quick_actions(body)
        url = f"{self._mr(number)}/notes"

        def landed() -> HostComment | None:
            return next((c for c in self.issue_comments(number) if c.body == body), None)

        _, data = self._http.request("POST", url, body={"body": body}, landed=landed)
        if data is None:
            found = landed()
            if found is None:
                raise GitLabError(f"GitLab POST {url} answered without the created note")
            return found
        return note_comment(data)

    def edit_issue_comment(self, number: int, comment_id: int, body: str) -> None:
        body = inert_quick_actions(body)
        url = f"{self._mr(number)}/notes/{comment_id}"
        self._http.request("PUT", url, body={"body": body})

    def delete_issue_comment(self, number: int, comment_id: int) -> None:
        self._delete(f"{self._mr(number)}/notes/{comment_id}")

    def add_reaction(self, number: int, comment_id: int, content: str) -> None:
        """An award emoji on a note; one already given is what we wanted."""
        url = f"{self._mr(number)}/notes/{comment_id}/award_emoji"
        try:
            self._http.request("POST", url, body={"name": EMOJI.get(content, content)})
        except GitLabError as exc:
            if not (exc.status == 404 and "already been taken" in exc.message):
                raise

    def collaborator_permission(self, login: str) -> str:
        """admin (Owner), maintain (Maintainer), write (Developer), triage (Reporter), read
        (Guest, Planner) or none: the user's role on the project, inherited ones included,
        asked of the API (`/members/all/:user_id`), never taken from an event payload."""
        _, users = self._http.request("GET", "/users", params={"username": login})
        match = [u for u in users or () if str(u.get("username")) == login]
        if not match:
            return "none"
        url = f"{self._base}/members/all/{int(match[0]['id'])}"
        return permission_of(or_none(lambda: self._http.request("GET", url)[1]))

    def viewer_login(self) -> str | None:
        """The token's user; None when the token cannot ask (a job token)."""
        data = or_none(lambda: self._http.request("GET", "/user")[1], absent=TOKEN_CANNOT_ASK)
        return str((data or {}).get("username") or "") or None

    def comment_edit(self, comment: HostComment) -> CommentEdit | None:
        """Who last edited a note, and when (GraphQL `lastEditedBy`, `lastEditedAt`: REST
        does not say); None when nobody has since it was posted.

        When GitLab cannot answer the query (an instance before 15.9, whose schema lacks
        `Query.note`; GraphQL turned off; `note: null`, a note gone or not readable by the
        token; an error after the retries), the run goes on as if nobody had: a
        warning says so, and the summary's state is believed. On GitLab only a note's
        author and the project's Maintainers and Owners may edit it, and they may already
        dismiss and pause by command: what they could write into the state gives them
        nothing they do not have."""
        if not comment.node_id:
            return CommentEdit(editor="")
        url = self._http.graphql_url
        asked = {"query": EDIT_QUERY, "variables": {"id": comment.node_id}}
        try:
            return comment_edit_of(self._http.request("POST", url, body=asked)[1], url)
        except GitLabError as exc:
            self._log(
                f"warning: who last edited note {comment.id} is unknown ({exc.message}); "
                "its state is believed (only Maintainers and Owners may edit our notes)"
            )
            return None

    def _delete(self, url: str) -> None:
        or_none(lambda: self._http.request("DELETE", url))  # a 404: already gone, what we wanted
