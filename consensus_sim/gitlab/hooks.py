"""The webhook payloads the loopback GitLab sends, shaped as GitLab's webhook documentation
shows them: a note hook for a comment on a merge request (what a comments webhook posts
to the pipeline trigger, and the job then reads as TRIGGER_PAYLOAD) and a merge request
hook."""

from __future__ import annotations

from typing import Any

from consensus_sim.gitlab import entities
from consensus_sim.gitlab.entities import JsonObject, MergeRequest
from consensus_sim.gitlab.state import GitLabState, Project

HOOK_TIME = "2026-01-01 00:00:00 UTC"


def _user(state: GitLabState, user_id: int) -> JsonObject:
    user = state.users[user_id]
    basic = entities.user_basic(user)
    return {k: basic[k] for k in ("id", "name", "username", "avatar_url")} | {"email": "[REDACTED]"}


def _project(project: Project) -> JsonObject:
    shown = entities.project(project.id, project.path, project.default_branch)
    return {
        "id": project.id,
        "name": shown["name"],
        "description": "",
        "web_url": shown["web_url"],
        "avatar_url": None,
        "git_ssh_url": shown["ssh_url_to_repo"],
        "git_http_url": shown["http_url_to_repo"],
        "namespace": project.path.rsplit("/", 1)[0],
        "visibility_level": 0,
        "path_with_namespace": project.path,
        "default_branch": project.default_branch,
        "ci_config_path": "",
        "homepage": shown["web_url"],
        "url": shown["ssh_url_to_repo"],
        "ssh_url": shown["ssh_url_to_repo"],
        "http_url": shown["http_url_to_repo"],
    }


def _merge_request(project: Project, mr: MergeRequest) -> JsonObject:
    head = mr.latest.head_sha
    return {
        "id": mr.id,
        "iid": mr.iid,
        "title": mr.title,
        "description": mr.description,
        "state": mr.state,
        "draft": mr.draft,
        "work_in_progress": mr.draft,
        "author_id": mr.author.id,
        "source_branch": mr.source_branch,
        "target_branch": mr.target_branch,
        "source_project_id": mr.source_project_id or project.id,
        "target_project_id": project.id,
        "merge_status": "can_be_merged",
        "created_at": HOOK_TIME,
        "updated_at": HOOK_TIME,
        "url": f"{entities.WEB}/{project.path}/-/merge_requests/{mr.iid}",
        "last_commit": {
            "id": head,
            "message": f"{mr.title}\n",
            "title": mr.title,
            "timestamp": "2026-01-01T00:00:00+00:00",
            "url": f"{entities.WEB}/{project.path}/-/commit/{head}",
            "author": {"name": mr.author.username, "email": "[REDACTED]"},
        },
        "labels": [{"id": n, "title": t, "type": "ProjectLabel"} for n, t in enumerate(mr.labels)],
        "detailed_merge_status": "mergeable",
    }


def note_hook(state: GitLabState, path: str, iid: int, note: JsonObject) -> JsonObject:
    """The `Note Hook` GitLab sends when `note` is written on merge request `iid`."""
    project = state.project(path)
    mr = project.merge_requests[iid]
    discussion = state.discussion_of(project, int(note["id"]))
    attributes: dict[str, Any] = {
        "id": note["id"],
        "note": note["body"],
        "noteable_type": "MergeRequest",
        "author_id": note["author"]["id"],
        "created_at": HOOK_TIME,
        "updated_at": HOOK_TIME,
        "project_id": project.id,
        "attachment": None,
        "line_code": None,
        "commit_id": note.get("commit_id") or "",
        "noteable_id": mr.id,
        "system": bool(note.get("system")),
        "st_diff": None,
        "type": note.get("type"),
        "position": note.get("position"),
        "discussion_id": discussion["id"] if discussion else "",
        "action": "create",
        "url": f"{entities.WEB}/{project.path}/-/merge_requests/{iid}#note_{note['id']}",
    }
    return {
        "object_kind": "note",
        "event_type": "note",
        "user": _user(state, int(note["author"]["id"])),
        "project_id": project.id,
        "project": _project(project),
        "repository": {
            "name": project.path.rsplit("/", 1)[-1],
            "homepage": f"{entities.WEB}/{project.path}",
        },
        "object_attributes": attributes,
        "merge_request": _merge_request(project, mr),
    }


def merge_request_hook(state: GitLabState, path: str, iid: int, action: str) -> JsonObject:
    """The `Merge Request Hook` for `action` (open, update, reopen, close, merge)."""
    project = state.project(path)
    mr = project.merge_requests[iid]
    attributes = {**_merge_request(project, mr), "action": action}
    if action == "update" and len(mr.versions) > 1:
        attributes["oldrev"] = mr.versions[-2].head_sha
    return {
        "object_kind": "merge_request",
        "event_type": "merge_request",
        "user": _user(state, mr.author.id),
        "project": _project(project),
        "object_attributes": attributes,
        "labels": attributes["labels"],
        "changes": {},
        "repository": {
            "name": project.path.rsplit("/", 1)[-1],
            "homepage": f"{entities.WEB}/{project.path}",
        },
    }
