"""The loopback GitLab's JSON: users, projects, merge requests, diff versions, notes,
discussions, award emoji, members, repository files and pipelines, shaped as GitLab's
REST API v4 answers (`API::Entities::*`)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
from typing import Any

from consensus_sim.loopback import without_keys

JsonObject = dict[str, Any]
WEB = "https://gitlab.example.com"
NOW = "2026-01-01T00:00:00.000Z"
LATER = "2026-01-02T00:00:00.000Z"
BOOKKEEPING = ("_mr", "_note", "_editor", "_last_edited_at", "_discussion")  # never sent


@dataclasses.dataclass
class Account:
    id: int
    username: str
    name: str = ""
    bot: bool = False


@dataclasses.dataclass
class Version:
    """One diff version of a merge request: a push makes a new one."""

    id: int
    base_sha: str
    start_sha: str
    head_sha: str
    diffs: list[JsonObject]


@dataclasses.dataclass
class MergeRequest:
    iid: int
    id: int
    title: str
    author: Account
    versions: list[Version]  # oldest first
    description: str = ""
    source_branch: str = "feature"
    target_branch: str = "main"
    source_project_id: int = 0  # 0: the target project itself
    labels: list[str] = dataclasses.field(default_factory=list)
    draft: bool = False
    state: str = "opened"

    @property
    def latest(self) -> Version:
        return self.versions[-1]


def user_basic(user: Account) -> JsonObject:
    return {
        "id": user.id,
        "username": user.username,
        "name": user.name or user.username.title(),
        "state": "active",
        "locked": False,
        "avatar_url": f"{WEB}/uploads/-/system/user/avatar/{user.id}/avatar.png",
        "web_url": f"{WEB}/{user.username}",
    }


def current_user(user: Account) -> JsonObject:
    return {
        **user_basic(user),
        "created_at": NOW,
        "bio": "",
        "bot": user.bot,
        "public_email": None,
        "is_admin": False,
    }


def project(ident: int, path: str, default_branch: str) -> JsonObject:
    return {
        "id": ident,
        "name": path.rsplit("/", 1)[-1],
        "path": path.rsplit("/", 1)[-1],
        "path_with_namespace": path,
        "name_with_namespace": path.replace("/", " / "),
        "description": "",
        "default_branch": default_branch,
        "visibility": "private",
        "web_url": f"{WEB}/{path}",
        "http_url_to_repo": f"{WEB}/{path}.git",
        "ssh_url_to_repo": f"git@gitlab.example.com:{path}.git",
        "created_at": NOW,
        "last_activity_at": NOW,
    }


def merge_request(mr: MergeRequest, project_id: int, path: str, notes: int) -> JsonObject:
    latest = mr.latest
    refs = {"base_sha": latest.base_sha, "head_sha": latest.head_sha, "start_sha": latest.start_sha}
    return {
        "id": mr.id,
        "iid": mr.iid,
        "project_id": project_id,
        "title": mr.title,
        "description": mr.description,
        "state": mr.state,
        "created_at": NOW,
        "updated_at": NOW,
        "merged_by": None,
        "merged_at": None,
        "closed_by": None,
        "closed_at": None,
        "target_branch": mr.target_branch,
        "source_branch": mr.source_branch,
        "user_notes_count": notes,
        "upvotes": 0,
        "downvotes": 0,
        "author": user_basic(mr.author),
        "assignees": [],
        "reviewers": [],
        "source_project_id": mr.source_project_id or project_id,
        "target_project_id": project_id,
        "labels": list(mr.labels),
        "draft": mr.draft,
        "work_in_progress": mr.draft,
        "milestone": None,
        "merge_when_pipeline_succeeds": False,
        "merge_status": "can_be_merged",
        "detailed_merge_status": "mergeable",
        "sha": latest.head_sha,
        "merge_commit_sha": None,
        "squash_commit_sha": None,
        "discussion_locked": None,
        "should_remove_source_branch": None,
        "force_remove_source_branch": True,
        "reference": f"!{mr.iid}",
        "references": {"short": f"!{mr.iid}", "relative": f"!{mr.iid}", "full": f"{path}!{mr.iid}"},
        "web_url": f"{WEB}/{path}/-/merge_requests/{mr.iid}",
        "squash": False,
        "has_conflicts": False,
        "blocking_discussions_resolved": True,
        "subscribed": False,
        "changes_count": str(len(latest.diffs)),
        "diff_refs": refs,
        "first_contribution": False,
        "user": {"can_merge": True},
    }


def version(item: Version, mr_id: int, *, detail: bool = False) -> JsonObject:
    out: JsonObject = {
        "id": item.id,
        "head_commit_sha": item.head_sha,
        "base_commit_sha": item.base_sha,
        "start_commit_sha": item.start_sha,
        "created_at": NOW,
        "merge_request_id": mr_id,
        "state": "collected",
        "real_size": str(len(item.diffs)),
        "patch_id_sha": hashlib.sha1(item.head_sha.encode()).hexdigest(),
    }
    if detail:
        out["commits"] = []
        out["diffs"] = [dict(d) for d in item.diffs]
    return out


def note(
    ident: int,
    body: str,
    author: Account,
    *,
    mr: MergeRequest,
    project_id: int,
    position: JsonObject | None = None,
    kind: str | None = None,
) -> JsonObject:
    """A note on a merge request: `kind` None (a comment), DiscussionNote (in a thread) or
    DiffNote (on the diff, with its position; resolvable)."""
    on_diff = kind == "DiffNote"
    out: JsonObject = {
        "id": ident,
        "type": kind,
        "body": body,
        "attachment": None,
        "author": user_basic(author),
        "created_at": NOW,
        "updated_at": NOW,
        "system": False,
        "noteable_id": mr.id,
        "noteable_type": "MergeRequest",
        "project_id": project_id,
        "resolvable": on_diff,
        "confidential": False,
        "internal": False,
        "imported": False,
        "imported_from": "none",
        "noteable_iid": mr.iid,
        "commands_changes": {},
    }
    if on_diff:
        out.update({"position": position, "resolved": False, "resolved_by": None})
        out["resolved_at"] = None
        out["commit_id"] = (position or {}).get("head_sha")
    return out


def award(ident: int, name: str, user: Account, note_id: int) -> JsonObject:
    return {
        "id": ident,
        "name": name,
        "user": user_basic(user),
        "created_at": NOW,
        "updated_at": NOW,
        "awardable_id": note_id,
        "awardable_type": "Note",
        "url": None,
        "_note": note_id,
    }


def member(user: Account, access_level: int) -> JsonObject:
    return {
        **user_basic(user),
        "access_level": access_level,
        "created_at": NOW,
        "expires_at": None,
        "membership_state": "active",
    }


def repository_file(path: str, ref: str, text: str) -> JsonObject:
    data = text.encode()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return {
        "file_name": path.rsplit("/", 1)[-1],
        "file_path": path,
        "size": len(data),
        "encoding": "base64",
        "content_sha256": hashlib.sha256(data).hexdigest(),
        "ref": ref,
        "blob_id": blob,
        "commit_id": ref,
        "last_commit_id": ref,
        "execute_filemode": False,
        "content": base64.b64encode(data).decode(),
    }


def tree_entry(path: str, kind: str) -> JsonObject:
    return {
        "id": hashlib.sha1(path.encode()).hexdigest(),
        "name": path.rsplit("/", 1)[-1],
        "type": kind,
        "path": path,
        "mode": "040000" if kind == "tree" else "100644",
    }


def pipeline(ident: int, project_id: int, path: str, ref: str, sha: str) -> JsonObject:
    return {
        "id": ident,
        "iid": ident % 1000,
        "project_id": project_id,
        "sha": sha,
        "ref": ref,
        "status": "created",
        "source": "trigger",
        "created_at": NOW,
        "updated_at": NOW,
        "web_url": f"{WEB}/{path}/-/pipelines/{ident}",
        "before_sha": "0" * 40,
        "tag": False,
        "yaml_errors": None,
        "user": None,
        "started_at": None,
        "finished_at": None,
        "committed_at": None,
        "duration": None,
        "queued_duration": None,
        "coverage": None,
        "detailed_status": {"icon": "status_created", "text": "Created", "label": "created"},
    }


def public(payload: Any) -> Any:
    """Without the loopback's own bookkeeping keys."""
    return without_keys(payload, BOOKKEEPING)
