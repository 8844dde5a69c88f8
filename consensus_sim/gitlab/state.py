"""The loopback GitLab's state: users and their tokens, projects (repository snapshots,
branches, members), merge requests with their diff versions, discussions and notes, award
emoji, triggered pipelines, faults to inject and the log of requests. Tests and the demo
arrange it through these methods; routes.py changes it as GitLab would."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import threading
import time
from pathlib import Path
from typing import Any

from consensus_sim.faults import FaultInjection
from consensus_sim.gitlab import diffs, entities
from consensus_sim.gitlab.entities import Account, JsonObject, MergeRequest, Version

DEVELOPER, MAINTAINER, REPORTER, GUEST = 30, 40, 20, 10


@dataclasses.dataclass(frozen=True)
class Request:
    method: str
    path: str  # as sent (percent-encoded), after /api/v4 (GraphQL: /api/graphql)
    query: dict[str, str]
    status: int
    body: Any
    answer: Any = None
    time: float = dataclasses.field(default_factory=time.time)


@dataclasses.dataclass
class Project:
    id: int
    path: str
    default_branch: str = "main"
    snapshots: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    branches: dict[str, str] = dataclasses.field(default_factory=dict)
    members: dict[int, int] = dataclasses.field(default_factory=dict)  # user id → level
    merge_requests: dict[int, MergeRequest] = dataclasses.field(default_factory=dict)
    discussions: list[JsonObject] = dataclasses.field(default_factory=list)  # with "_mr"
    awards: list[JsonObject] = dataclasses.field(default_factory=list)
    pipelines: list[JsonObject] = dataclasses.field(default_factory=list)
    trigger_token: str = "glptt-0123456789abcdef0123"

    def notes(self, iid: int) -> list[JsonObject]:
        return [n for d in self.discussions if d["_mr"] == iid for n in d["notes"]]


class GitLabState(FaultInjection):
    """What the loopback GitLab holds; `FakeGitLab` serves it over HTTP."""

    def __init__(self) -> None:
        super().__init__()
        self.projects: dict[int, Project] = {}
        self.users: dict[int, Account] = {}
        self.tokens: dict[str, int] = {}  # token → the user it acts as
        self.requests: list[Request] = []
        self._ids = itertools.count(1000)
        self.lock = threading.RLock()
        self.base_url: str | None = None  # the instance's URL once it listens
        self.prefix = ""  # a relative URL root, e.g. "/gitlab" for a self-managed instance

    # ------------------------------------------------------------------ setup

    @property
    def api_url(self) -> str:
        """`CI_API_V4_URL` of this instance."""
        assert self.base_url is not None, "not started"
        return f"{self.base_url}{self.prefix}/api/v4"

    def next_id(self) -> int:
        return next(self._ids)

    def user(self, username: str, *, bot: bool = False, token: str | None = None) -> Account:
        """The user named `username` (made on first use); `token` acts as them."""
        with self.lock:
            found = next((u for u in self.users.values() if u.username == username), None)
            if found is None:
                found = Account(self.next_id(), username, bot=bot)
                self.users[found.id] = found
            if token:
                self.tokens[token] = found.id
            return found

    def project(self, path: str, *, ident: int | None = None) -> Project:
        with self.lock:
            found = next((p for p in self.projects.values() if p.path == path), None)
            if found is None:
                found = Project(ident or self.next_id(), path)
                self.projects[found.id] = found
            return found

    def add_member(self, path: str, username: str, access_level: int) -> None:
        with self.lock:
            self.project(path).members[self.user(username).id] = access_level

    # ------------------------------------------------------------------ merge requests

    def add_merge_request(
        self,
        path: str,
        iid: int,
        *,
        base: dict[str, str],
        head: dict[str, str],
        author: str = "dev",
        **fields: Any,
    ) -> MergeRequest:
        """A merge request from the target branch's files `base` to `head` (one version)."""
        with self.lock:
            project = self.project(path)
            base_sha, head_sha = _sha(base), _sha(head)
            project.snapshots[base_sha], project.snapshots[head_sha] = dict(base), dict(head)
            target = str(fields.get("target_branch", "main"))
            project.branches.setdefault(target, base_sha)
            mr = MergeRequest(
                iid,
                self.next_id(),
                str(fields.pop("title", "A change")),
                self.user(author),
                [],
                **fields,
            )
            project.merge_requests[iid] = mr
            self._new_version(mr, base_sha, base_sha, head_sha, diffs.file_diffs(base, head))
            return mr

    def push(self, path: str, iid: int, head: dict[str, str]) -> Version:
        """A push to the source branch: a new head, a new diff version."""
        with self.lock:
            project = self.project(path)
            mr = project.merge_requests[iid]
            head_sha = _sha(head)
            project.snapshots[head_sha] = dict(head)
            base = project.snapshots[mr.latest.base_sha]
            changed = diffs.file_diffs(base, head)
            return self._new_version(mr, mr.latest.base_sha, mr.latest.start_sha, head_sha, changed)

    def load_merge_request_from_git(
        self, path: str, iid: int, repo: Path, *, base: str, head: str, **fields: Any
    ) -> MergeRequest:
        """Create merge request `iid`, or push to it, from base...head of a git repository."""
        with self.lock:
            project = self.project(path)
            start_sha, start_files = diffs.snapshot(repo, base)
            head_sha, head_files = diffs.snapshot(repo, head)
            merge_base = diffs.git(repo, "merge-base", start_sha, head_sha).strip()
            project.snapshots[start_sha], project.snapshots[head_sha] = start_files, head_files
            project.snapshots.setdefault(merge_base, diffs.snapshot(repo, merge_base)[1])
            changed = diffs.git_diffs(repo, start_sha, head_sha)
            mr = project.merge_requests.get(iid)
            if mr is None:
                title = str(fields.pop("title", "A change"))
                author = self.user(str(fields.pop("author", "dev")))
                mr = MergeRequest(iid, self.next_id(), title, author, [], **fields)
                project.merge_requests[iid] = mr
            project.branches[mr.target_branch] = start_sha
            self._new_version(mr, merge_base, start_sha, head_sha, changed)
            return mr

    def _new_version(
        self, mr: MergeRequest, base: str, start: str, head: str, changed: list[JsonObject]
    ) -> Version:
        made = Version(self.next_id(), base, start, head, changed)
        mr.versions.append(made)
        return made

    # ------------------------------------------------------------------ people's notes

    def add_note(self, path: str, iid: int, body: str, username: str) -> JsonObject:
        """`username` comments on the merge request (not on the diff)."""
        with self.lock:
            return self.start_discussion(self.project(path), iid, body, self.user(username))

    def start_discussion(
        self,
        project: Project,
        iid: int,
        body: str,
        author: Account,
        position: JsonObject | None = None,
    ) -> JsonObject:
        """A new discussion (a single note when it has no position); its first note."""
        mr = project.merge_requests[iid]
        kind = "DiffNote" if position else None
        made = entities.note(
            self.next_id(), body, author, mr=mr, project_id=project.id, position=position, kind=kind
        )
        ident = f"{self.next_id():040x}"
        project.discussions.append(
            {"id": ident, "individual_note": position is None, "notes": [made], "_mr": iid}
        )
        return made

    def reply(self, path: str, iid: int, note_id: int, body: str, username: str) -> JsonObject:
        """`username` replies in the discussion of note `note_id`."""
        with self.lock:
            project = self.project(path)
            found = self.discussion_of(project, note_id)
            assert found is not None, f"no discussion holds note {note_id}"
            return self.add_to_discussion(project, found, body, self.user(username))

    def add_to_discussion(
        self, project: Project, discussion: JsonObject, body: str, author: Account
    ) -> JsonObject:
        first = discussion["notes"][0]
        mr = project.merge_requests[discussion["_mr"]]
        on_diff = first.get("type") == "DiffNote"
        made = entities.note(
            self.next_id(),
            body,
            author,
            mr=mr,
            project_id=project.id,
            position=first.get("position"),
            kind="DiffNote" if on_diff else "DiscussionNote",
        )
        if not on_diff:
            first["type"] = "DiscussionNote"
            discussion["individual_note"] = False
        discussion["notes"].append(made)
        return made

    def discussion_of(self, project: Project, note_id: int) -> JsonObject | None:
        return next(
            (d for d in project.discussions if any(n["id"] == note_id for n in d["notes"])), None
        )

    def award(self, path: str, note_id: int, name: str, username: str) -> JsonObject:
        """`username` awards `name` (thumbsup, thumbsdown, …) to a note."""
        with self.lock:
            made = entities.award(self.next_id(), name, self.user(username), note_id)
            self.project(path).awards.append(made)
            return made

    def edit_note(self, path: str, note_id: int, body: str, username: str) -> None:
        """`username` (the author, or a maintainer) edits a note, ours included."""
        with self.lock:
            project = self.project(path)
            found = self.discussion_of(project, note_id)
            assert found is not None
            note = next(n for n in found["notes"] if n["id"] == note_id)
            edited(note, body, self.user(username))

    def resolve(self, path: str, discussion_id: str, username: str) -> None:
        """`username` resolves a diff discussion."""
        with self.lock:
            project = self.project(path)
            found = next(d for d in project.discussions if d["id"] == discussion_id)
            set_resolved(found, True, self.user(username))


def edited(note: JsonObject, body: str, user: Account) -> None:
    note["body"] = body
    note["updated_at"] = note["_last_edited_at"] = entities.LATER
    note["_editor"] = user.username


def set_resolved(discussion: JsonObject, resolved: bool, user: Account) -> None:
    for note in discussion["notes"]:
        if note.get("resolvable"):
            note["resolved"] = resolved
            note["resolved_by"] = entities.user_basic(user) if resolved else None
            note["resolved_at"] = entities.LATER if resolved else None


def _sha(files: dict[str, str]) -> str:
    """A commit id for a snapshot (the same files, the same id)."""
    text = "\0".join(f"{path}\0{files[path]}" for path in sorted(files))
    return hashlib.sha1(text.encode()).hexdigest()
