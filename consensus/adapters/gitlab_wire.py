"""GitLab's wire: which failures are worth a retry and how long to wait, and GitLab's JSON
→ port types. No python-gitlab here: adapters/gitlab.py sends the requests and hands
what came back to these functions as plain data."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from consensus.adapters.gitlab_position import DiffRefs
from consensus.adapters.retries import HostFailures
from consensus.errors import GitLabError
from consensus.ports import (
    CommentEdit,
    HostComment,
    HostReaction,
    PullFile,
    PullRequestInfo,
    ReviewThread,
)

# Who last edited a note: GraphQL alone says (REST's note has `updated_at` only, moved by any
# change). `Query.note(id: NoteID!)` came in GitLab 15.9 (an Experiment in GitLab's schema);
# the id is the note's global ID, `gid://gitlab/Note/<id>` (DiffNote, DiscussionNote: the
# note's `type`). tests/data/gitlab/note_schema.graphql is the part of GitLab's schema this
# is held to (tests/contract/gitlab_graphql.py).
EDIT_QUERY = """
query ConsensusNoteEdit($id: NoteID!) {
  note(id: $id) { lastEditedAt lastEditedBy { username } }
}
"""
# GitLab's role of a member (`access_level`) as the port's permission words: Developer can
# push, which is GitHub's `write`; Maintainer and Owner run the project.
ACCESS_LEVELS = {
    0: "none",  # no access
    5: "none",  # minimal access
    10: "read",  # Guest
    15: "read",  # Planner
    20: "triage",  # Reporter
    30: "write",  # Developer
    40: "maintain",  # Maintainer
    50: "admin",  # Owner
}
# GitHub's reaction names (the port's words) ⇄ GitLab's award emoji names.
EMOJI = {
    "+1": "thumbsup",
    "-1": "thumbsdown",
    "laugh": "laughing",
    "hooray": "tada",
    "confused": "confused",
    "heart": "heart",
    "rocket": "rocket",
    "eyes": "eyes",
}
REACTION = {emoji: content for content, emoji in EMOJI.items()}
# Project and group access tokens act as bot users GitLab names `project_<id>_bot_<hex>`
# (`group_…`; older instances `project_<id>_bot<n>`); service accounts and GitLab's own
# internal users (alerts, support desk, the deleted-user ghost) are not people either.
_BOT_NAME = re.compile(
    r"^(?:(?:project|group)_\d+_bot(?:\d+|_[0-9a-f]+)?|service_account_.+"
    r"|alert-bot|support-bot|visual-review-bot|ghost|gitlab-llm-bot)$"
)


class Failed(Exception):
    """A request that failed: the HTTP status (None: no answer), GitLab's message, and the
    answer's headers."""

    def __init__(
        self, status: int | None, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers: Mapping[str, str] = headers or {}

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


def is_transient(failure: Failed) -> bool:
    """Worth another try: no answer, a 5xx, or a rate limit (429)."""
    status = failure.status
    return status is None or status >= 500 or status == 429


def is_rate_limited(failure: Failed) -> bool:
    return failure.status == 429


def retry_wait(failure: Failed, attempt: int, *, now: float, base_s: float) -> float:
    """Seconds before the next try: what GitLab asked for (`Retry-After`, else
    `RateLimit-Reset`), else exponential from `base_s`."""
    after = (failure.header("Retry-After") or "").strip()
    if after.isdigit():
        return float(after)
    reset = (failure.header("RateLimit-Reset") or "").strip()
    if failure.status == 429 and reset.isdigit():
        return max(0.0, float(reset) - now) + 1.0
    return float(base_s * 2 ** (attempt - 1))


def gitlab_error(verb: str, path: str, failure: Failed, why: str = "") -> GitLabError:
    """What is left of a request after the retries, with its HTTP status and a fix."""
    fixes = {
        400: "GitLab refused what was sent (a comment outside the diff, a bad field): "
        "re-run the job; if it persists, report it with this line",
        401: "check the token in the masked CI/CD variable (missing, expired or revoked)",
        403: "give the token the `api` scope and its user at least the Developer role",
        404: "check CI_PROJECT_ID and the merge request, and that the token's user is a "
        "member of the project",
        429: "GitLab's rate limit was reached: re-run the job later",
    }
    status = failure.status
    fix = fixes.get(status or 0, "re-run the job; GitLab may be having trouble")
    where = f"HTTP {status}" if status else "no answer"
    detail = why or failure.message
    return GitLabError(f"GitLab {verb} {path} failed ({where}): {detail}", status=status, fix=fix)


GITLAB_FAILURES = HostFailures(
    host="GitLab",
    raised=(Failed,),
    transient=is_transient,
    rate_limited=is_rate_limited,
    wait=retry_wait,
    message=str,
    error=gitlab_error,
)


def is_bot(user: Mapping[str, Any] | None) -> bool:
    """A user GitLab says is a bot, or one of the accounts GitLab makes for tokens and itself."""
    user = user or {}
    return user.get("bot") is True or bool(_BOT_NAME.match(str(user.get("username") or "")))


def permission_of(member: Any) -> str:
    """A member's `access_level` as admin, maintain, write, triage, read or none."""
    level = member.get("access_level") if isinstance(member, dict) else None
    if not isinstance(level, int):
        return "none"
    known = [n for n in ACCESS_LEVELS if n <= level]
    return ACCESS_LEVELS[max(known)] if known else "none"


def diff_refs(version: Mapping[str, Any]) -> DiffRefs:
    """The commits of a diff version (`GET …/versions`)."""
    return DiffRefs(
        base_sha=str(version.get("base_commit_sha") or ""),
        start_sha=str(version.get("start_commit_sha") or ""),
        head_sha=str(version.get("head_commit_sha") or ""),
    )


def merge_request_info(
    data: Mapping[str, Any], *, base_repo: str, head_repo: str | None
) -> PullRequestInfo:
    """`GET /merge_requests/:iid` as the port's PullRequestInfo. `base_sha` is the merge
    base of the latest diff version (`diff_refs`), a commit of the target branch."""
    refs = data.get("diff_refs") or {}
    changes = re.match(r"\d+", str(data.get("changes_count") or "0"))
    state = str(data.get("state") or "opened")
    return PullRequestInfo(
        number=int(data["iid"]),
        title=str(data.get("title") or ""),
        state="open" if state == "opened" else "closed",
        draft=bool(data.get("draft") or data.get("work_in_progress")),
        author=str((data.get("author") or {}).get("username") or ""),
        head_sha=str(refs.get("head_sha") or data.get("sha") or ""),
        base_sha=str(refs.get("base_sha") or ""),
        base_ref=str(data.get("target_branch") or ""),
        head_repo=head_repo,
        base_repo=base_repo,
        changed_files=int(changes.group()) if changes else 0,
        html_url=str(data.get("web_url") or ""),
        labels=tuple(_label(label) for label in data.get("labels") or ()),
    )


def _label(label: Any) -> str:
    return str(label.get("name") or "") if isinstance(label, dict) else str(label)


def pull_file(item: Mapping[str, Any]) -> PullFile:
    """One entry of `GET /merge_requests/:iid/diffs`; `patch` is None when GitLab left the
    diff out (too large, collapsed, binary)."""
    diff = str(item.get("diff") or "")
    status = "modified"
    if item.get("new_file"):
        status = "added"
    elif item.get("deleted_file"):
        status = "removed"
    elif item.get("renamed_file"):
        status = "renamed"
    lines = diff.split("\n")
    left_out = item.get("too_large") or item.get("collapsed") or not diff.strip()
    return PullFile(
        path=str(item.get("new_path") or item.get("old_path") or ""),
        previous_path=str(item["old_path"]) if item.get("renamed_file") else None,
        status=status,
        additions=sum(1 for line in lines if line.startswith("+")),
        deletions=sum(1 for line in lines if line.startswith("-")),
        patch=None if left_out else diff.rstrip("\n"),
    )


def note_comment(note: Mapping[str, Any], *, thread_first: int | None = None) -> HostComment:
    """A note as the port's comment: a diff note carries its path, line and commit; a reply
    in a thread names the thread's first note (`thread_first`)."""
    author = note.get("author") or {}
    position = note.get("position") or {}
    line = position.get("new_line") or position.get("old_line")
    ident = int(note["id"])
    kind = str(note.get("type") or "Note")
    return HostComment(
        id=ident,
        body=str(note.get("body") or ""),
        author=str(author.get("username") or ""),
        author_is_bot=is_bot(author),
        path=(position.get("new_path") or position.get("old_path")) if position else None,
        line=int(line) if line else None,
        in_reply_to=thread_first if thread_first not in (None, ident) else None,
        node_id=f"gid://gitlab/{kind}/{ident}",
        commit_id=str(position.get("head_sha") or ""),
    )


def review_thread(discussion: Mapping[str, Any]) -> ReviewThread | None:
    """A diff discussion as the port's review thread; None for one without notes."""
    notes = [n for n in discussion.get("notes") or () if not n.get("system")]
    if not notes:
        return None
    first_id = int(notes[0]["id"])
    resolvable = [n for n in notes if n.get("resolvable")]
    resolved = bool(resolvable) and all(n.get("resolved") for n in resolvable)
    resolver = (resolvable[0].get("resolved_by") or {}) if resolved else {}
    return ReviewThread(
        id=str(discussion["id"]),
        resolved=resolved,
        resolved_by=str(resolver["username"]) if resolver.get("username") else None,
        first=note_comment(notes[0], thread_first=first_id),
        last=note_comment(notes[-1], thread_first=first_id),
    )


def host_reaction(award: Mapping[str, Any]) -> HostReaction:
    """An award emoji as the port's reaction (`thumbsup` → `+1`, `thumbsdown` → `-1`)."""
    user = award.get("user") or {}
    name = str(award.get("name") or "")
    return HostReaction(
        content=REACTION.get(name, name),
        user=str(user.get("username") or ""),
        user_is_bot=is_bot(user),
        created_at=str(award.get("created_at") or ""),
    )


def file_text(data: Any, max_bytes: int) -> str | None:
    """A file's text from the repository files API; None when it is over `max_bytes` or
    its content cannot be decoded."""
    if not isinstance(data, dict) or data.get("encoding") != "base64":
        return None
    if int(data.get("size") or 0) > max_bytes:
        return None
    try:
        raw = base64.b64decode(str(data.get("content") or ""), validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


def next_page(headers: Mapping[str, str]) -> int | None:
    """The next page's number from GitLab's `X-Next-Page` header; None on the last page."""
    value = next((v for k, v in headers.items() if k.lower() == "x-next-page"), "")
    return int(value) if str(value).strip().isdigit() else None


def comment_edit_of(answer: Any, url: str) -> CommentEdit | None:
    """The GraphQL answer to EDIT_QUERY: who last edited the note and when; None when
    nobody has. GraphQL errors (HTTP 200) are a GitLabError, and so is `note: null`: GitLab
    answers null for a note it cannot find or the token may not read, which says nothing
    about who edited it."""
    answer = answer if isinstance(answer, dict) else {}
    if answer.get("errors"):
        problem = "; ".join(str(e.get("message")) for e in answer["errors"])
        raise GitLabError(f"GitLab GraphQL {url} failed: {problem}", fix="re-run the job")
    note = (answer.get("data") or {}).get("note")
    if not isinstance(note, dict):
        raise GitLabError(
            f"GitLab GraphQL {url}: no such note, or the token may not read it",
            fix="give the token the `read_api` or `api` scope and a role on the project",
        )
    if not note.get("lastEditedAt"):
        return None
    editor = str((note.get("lastEditedBy") or {}).get("username") or "")
    return CommentEdit(editor=editor, edited_at=str(note["lastEditedAt"]))
