"""A loopback fake of GitHub's REST API: a real HTTP server on 127.0.0.1, state in memory.

It serves what the Action uses, shaped as GitHub documents it (PyGithub talks to it
through `base_url`, as to GitHub Enterprise Server):

- repositories, pull requests, their files with `patch` (paginated, `patch` omitted
  for files marked so), file contents and directory listings at a commit;
- issue comments (list paginated with `Link` headers, create, edit, delete), reactions,
  labels, the collaborator permission endpoint;
- reviews with inline comments, validated like GitHub: a comment whose `line` (or
  `start_line`) is not a RIGHT-side line of one hunk of the file's patch makes the
  whole review fail with 422 and nothing is stored;
- comparisons of two commits (`/compare/BASE...HEAD`: status ahead/diverged, files with
  patches computed from the snapshots);
- fault injection (`fail_next`: e.g. a 403 secondary rate limit with `Retry-After`, a
  502) and a request log (`requests`);
- who the token is: `GET /user` answers 403 as for a workflow's GITHUB_TOKEN, or the
  `viewer` account (a personal token's user), who then makes the writes;
- GraphQL (`POST /graphql`) for one question: a comment's `editor` and `lastEditedAt`
  (a Bot's GraphQL login lacks REST's `[bot]`, as on GitHub).

Writes are made by `github-actions[bot]` (type Bot), as with a workflow's GITHUB_TOKEN;
tests seed comments with `add_issue_comment(..., user=human("alice"))` (or another bot,
`app_bot("renovate")`), and edit any comment as anyone with `edit_issue_comment`.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import difflib
import hashlib
import itertools
import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from fakes import github_graphql, github_json

JsonObject = dict[str, Any]
BOT: JsonObject = github_json.simple_user("github-actions[bot]", ident=41898282, kind="Bot")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_BOOKKEEPING = ("_number", "_comment", "_editor", "_last_edited_at")  # never sent


def human(login: str) -> JsonObject:
    return github_json.simple_user(login)


def account(user: JsonObject) -> JsonObject:
    """A whole Simple User from a partial one (`{"login": …, "type": "Bot"}` in a test)."""
    whole = github_json.simple_user(
        str(user["login"]), ident=user.get("id"), kind=str(user.get("type") or "User")
    )
    return {**whole, **user}


def app_bot(name: str) -> JsonObject:
    """Another GitHub App's bot account, e.g. app_bot("renovate") → renovate[bot]."""
    return {"login": f"{name}[bot]", "id": abs(hash(name)) % 10**6, "type": "Bot"}


@dataclasses.dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int
    headers: dict[str, str]
    body: JsonObject
    after: bool = False  # apply the request first, then answer with the fault


@dataclasses.dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    status: int
    body: Any
    answer: Any = None  # the JSON the fake answered with (None: no body, or a 304)
    time: float = dataclasses.field(default_factory=time.time)  # when it was answered


@dataclasses.dataclass
class PullRequest:
    number: int
    head_sha: str
    base_sha: str
    files: list[JsonObject]
    title: str = "A change"
    draft: bool = False
    base_ref: str = "main"
    head_ref: str = "feature"
    head_repo: str | None = None  # None: same repository
    user: JsonObject = dataclasses.field(default_factory=lambda: human("dev"))
    state: str = "open"  # open, closed
    merged: bool = False
    created_at: str = "2026-01-01T00:00:00Z"
    closed_at: str = ""  # set by close_pull
    requested_reviewers: list[str] = dataclasses.field(default_factory=list)  # logins
    requested_teams: list[str] = dataclasses.field(default_factory=list)  # slugs


@dataclasses.dataclass
class Repo:
    full_name: str
    snapshots: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    pulls: dict[int, PullRequest] = dataclasses.field(default_factory=dict)
    issue_comments: list[JsonObject] = dataclasses.field(default_factory=list)
    review_comments: list[JsonObject] = dataclasses.field(default_factory=list)
    reviews: list[JsonObject] = dataclasses.field(default_factory=list)
    labels: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    reactions: list[JsonObject] = dataclasses.field(default_factory=list)
    permissions: dict[str, str] = dataclasses.field(default_factory=dict)
    ancestors: dict[str, set[str]] = dataclasses.field(default_factory=dict)  # sha → history
    # review thread id → who resolved it (None: an app, which GraphQL does not name)
    thread_state: dict[str, str | None] = dataclasses.field(default_factory=dict)
    default_branch: str = "main"
    branches: dict[str, str] = dataclasses.field(default_factory=dict)  # name → head commit
    issue_bodies: dict[int, str] = dataclasses.field(default_factory=dict)  # PR descriptions


def is_write(method: str, body: Any) -> bool:
    """Changes something: not a GET, nor a GraphQL query (a POST that only reads)."""
    query = body.get("query") if isinstance(body, dict) else None
    return method != "GET" and not (isinstance(query, str) and query.lstrip().startswith("query"))


def right_lines(patch: str) -> list[set[int]]:
    """RIGHT-side lines of each hunk of a patch (GitHub's rule for review comments)."""
    hunks: list[set[int]] = []
    line = 0
    for text in patch.split("\n"):  # GitHub counts lines at "\n" only
        match = _HUNK.match(text)
        if match:
            hunks.append(set())
            line = int(match.group(1))
        elif hunks and text[:1] in (" ", "+"):
            hunks[-1].add(line)
            line += 1
    return hunks


class FakeGitHub:
    """The server; `start()` it (or use `with`), then point PyGithub at `url`."""

    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[Request] = []
        self._faults: list[Fault] = []
        self.crash_after_writes: int | None = None  # then every write fails with a 500
        self.etags = True  # answer If-None-Match with 304 Not Modified
        self.viewer: JsonObject | None = None  # GET /user: None answers 403 (GITHUB_TOKEN)
        self._ids = itertools.count(1000)
        self.lock = threading.RLock()
        self._httpd: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ setup

    @property
    def url(self) -> str:
        assert self._httpd is not None, "not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> FakeGitHub:
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def repo(self, full_name: str) -> Repo:
        with self.lock:
            return self.repos.setdefault(full_name, Repo(full_name))

    def next_id(self) -> int:
        return next(self._ids)

    def fail_next(
        self,
        method: str,
        path: str,
        status: int,
        *,
        headers: dict[str, str] | None = None,
        message: str = "fault",
        times: int = 1,
        after: bool = False,
    ) -> None:
        """The next `times` requests matching `method` and the regex `path` get `status`;
        with `after`, each request is carried out first (a write that landed, then a 502)."""
        for _ in range(times):
            body = {"message": message}
            fault = Fault(method, re.compile(path), status, dict(headers or {}), body, after)
            self._faults.append(fault)

    def add_issue_comment(self, repo: str, number: int, body: str, user: JsonObject) -> JsonObject:
        with self.lock:
            comment = self._issue_comment(repo, number, body, user)
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
            _edited(comment, body, user)

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

    # ------------------------------------------------------------------ behaviour

    def take_fault(self, method: str, path: str, body: Any = None) -> Fault | None:
        with self.lock:
            crash = self.crash_after_writes
            if is_write(method, body) and crash is not None and len(self.writes()) >= crash:
                return Fault(method, re.compile(""), 500, {}, {"message": "crash"})
            for fault in self._faults:
                if fault.method == method and fault.path.search(path):
                    self._faults.remove(fault)
                    return fault
        return None

    def _issue_comment(self, repo: str, number: int, body: str, user: JsonObject) -> JsonObject:
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
            "requested_teams": [_team(full, slug) for slug in pull.requested_teams],
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
            error = _comment_error(comment, files)
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
                diff_hunk=_diff_hunk(files[comment["path"]].get("patch", ""), comment["line"]),
            )
            repo.review_comments.append({**stored, "_number": pull.number})
        return 200, review


def _team(full_name: str, slug: str) -> JsonObject:
    org = full_name.split("/", 1)[0]
    ident = github_json.stable_id(f"{org}/{slug}")
    url = f"{github_json.API}/orgs/{org}/teams/{slug}"
    return {
        "id": ident,
        "node_id": github_json.node_id("T", ident),
        "url": url,
        "html_url": f"{github_json.WEB}/orgs/{org}/teams/{slug}",
        "name": slug,
        "slug": slug,
        "description": None,
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "permission": "pull",
        "members_url": f"{url}/members{{/member}}",
        "repositories_url": f"{url}/repos",
        "parent": None,
    }


def _diff_hunk(patch: str, line: int) -> str:
    """The hunk of `patch` up to `line`, as GitHub shows above a review comment."""
    out: list[str] = []
    current = 0
    for text in patch.splitlines():
        match = _HUNK.match(text)
        if match:
            out, current = [text], int(match.group(1))
            continue
        out.append(text)
        if text[:1] in (" ", "+"):
            if current == line:
                return "\n".join(out)
            current += 1
    return "\n".join(out)


def _comment_error(comment: JsonObject, files: dict[str, JsonObject]) -> str | None:
    item = files.get(comment.get("path", ""))
    if item is None:
        return "Path could not be resolved"
    if comment.get("side", "RIGHT") != "RIGHT" or "patch" not in item:
        return "Line could not be resolved"
    hunks = right_lines(item["patch"])
    line = comment.get("line")
    hunk = next((h for h in hunks if line in h), None)
    if hunk is None:
        return "Pull request review thread line must be part of the diff"
    start = comment.get("start_line")
    if start is not None and (start not in hunk or start >= line):
        return "Pull request review thread start line must be part of the same hunk as the line."
    return None


class _Handler(BaseHTTPRequestHandler):
    server_owner: FakeGitHub
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        owner = self.server_owner
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        fault = owner.take_fault(method, path, body)
        if fault is None or fault.after:
            with owner.lock:
                status, payload, headers = _route(owner, method, path, query, body)
        if fault is not None:
            status, payload, headers = fault.status, fault.body, fault.headers
        answer = None if payload is None else _public(payload)
        data = b"" if answer is None else json.dumps(answer).encode()
        if method == "GET" and status == 200 and owner.etags:
            etag = f'W/"{hashlib.sha1(data).hexdigest()}"'
            headers = {**headers, "ETag": etag}
            if self.headers.get("If-None-Match") == etag:
                status, data, answer = 304, b"", None
        owner.requests.append(Request(method, path, query, status, body, answer))
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Remaining", "4999")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _public(payload: Any) -> Any:
    """Without the fake's own bookkeeping keys (`_number`, `_comment`)."""
    if isinstance(payload, list):
        return [_public(item) for item in payload]
    if isinstance(payload, dict):
        return {k: _public(v) for k, v in payload.items() if k not in _BOOKKEEPING}
    return payload


Answer = tuple[int, Any, dict[str, str]]
NOT_FOUND: Answer = (404, {"message": "Not Found"}, {})


def _page(owner: FakeGitHub, path: str, query: dict[str, str], items: list[Any]) -> Answer:
    per_page = min(int(query.get("per_page", 30)), 100)
    page = int(query.get("page", 1))
    chunk = items[(page - 1) * per_page : page * per_page]
    headers = {}
    if page * per_page < len(items):
        last = (len(items) + per_page - 1) // per_page
        kept = "".join(f"{k}={v}&" for k, v in query.items() if k not in ("page", "per_page"))
        link = f"{owner.url}{path}?{kept}per_page={per_page}&page="
        headers["Link"] = f'<{link}{page + 1}>; rel="next", <{link}{last}>; rel="last"'
    return 200, chunk, headers


def _route(owner: FakeGitHub, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
    if method == "POST" and path in ("/graphql", "/api/graphql") and _asks_editor(body):
        return _graphql(owner, body)
    if method == "POST" and path in ("/graphql", "/api/graphql"):
        status, answer = github_graphql.answer(owner.repos, body, make_pull=PullRequest)
        return status, answer, {}
    path = path.removeprefix("/api/v3")  # GitHub Enterprise Server's REST prefix
    match = re.match(r"^/repos/([^/]+/[^/]+)(/.*)?$", path)
    if match is None and path == "/user":
        if owner.viewer is None:
            return 403, {"message": "Resource not accessible by integration"}, {}
        return 200, github_json.public_user(owner.viewer), {}
    if match is None:
        return (200, github_json.rate_limit(), {}) if path == "/rate_limit" else NOT_FOUND
    repo = owner.repos.get(match.group(1))
    if repo is None:
        return NOT_FOUND
    rest = match.group(2) or ""
    route = f"{method} {rest}"
    if route == "GET ":
        return 200, github_json.repository(repo.full_name, default_branch=repo.default_branch), {}
    if route == "GET /pulls":
        wanted = query.get("state", "open")
        listed = [p for _, p in sorted(repo.pulls.items()) if wanted in ("all", p.state)]
        return _page(owner, path, query, [owner.pull_json(repo, p) for p in listed])
    if m := re.match(r"^DELETE /issues/(\d+)/labels/(.+)$", route):
        labels = repo.labels.setdefault(int(m.group(1)), [])
        if m.group(2) not in labels:
            return 404, {"message": "Label does not exist"}, {}
        labels.remove(m.group(2))
        return 200, [github_json.label(repo.full_name, name) for name in labels], {}
    if m := re.match(r"^POST /pulls/(\d+)/requested_reviewers$", route):
        pull = repo.pulls.get(int(m.group(1)))
        if pull is None:
            return NOT_FOUND
        if pull.user["login"] in body.get("reviewers", []):
            return 422, {"message": "Review cannot be requested from pull request author."}, {}
        for login in body.get("reviewers", []):
            if login not in pull.requested_reviewers:
                pull.requested_reviewers.append(login)
        for slug in body.get("team_reviewers", []):
            if slug not in pull.requested_teams:
                pull.requested_teams.append(slug)
        return 201, owner.pull_json(repo, pull), {}
    if m := re.match(r"^GET /compare/([^/.]+)\.\.\.([^/.]+)$", route):
        return _compare(repo, m.group(1), m.group(2))
    if m := re.match(r"^GET /contents/(.*)$", route):
        return _contents(repo, m.group(1), query.get("ref", ""))
    if m := re.match(r"^GET /collaborators/([^/]+)/permission$", route):
        level = repo.permissions.get(m.group(1), "read")
        if level == "missing":  # no such user
            return NOT_FOUND
        legacy = {"maintain": "write", "triage": "read"}.get(level, level)
        user = {**human(m.group(1)), "role_name": level}
        answer = {"permission": legacy, "role_name": level, "user": user}
        return 200, answer, {}
    if m := re.match(r"^(GET|PATCH|DELETE) /issues/comments/(\d+)$", route):
        return _issue_comment(owner, repo, method, int(m.group(2)), body)
    if m := re.match(r"^DELETE /pulls/comments/(\d+)$", route):
        found = [c for c in repo.review_comments if c["id"] == int(m.group(1))]
        if not found:
            return NOT_FOUND
        repo.review_comments.remove(found[0])
        return 204, None, {}
    if m := re.match(r"^POST /pulls/(\d+)/comments/(\d+)/replies$", route):
        return _review_reply(owner, repo, int(m.group(1)), int(m.group(2)), body)
    if m := re.match(r"^GET /pulls/comments/(\d+)/reactions$", route):
        on = [r for r in repo.reactions if r["_comment"] == int(m.group(1))]
        return _page(owner, path, query, on)
    if m := re.match(r"^POST /issues/comments/(\d+)/reactions$", route):
        reaction = github_json.reaction(owner.next_id(), body["content"], owner.acting)
        repo.reactions.append({**reaction, "_comment": int(m.group(1))})
        return 201, reaction, {}
    if m := re.match(r"^(GET|POST) /issues/(\d+)/comments$", route):
        number = int(m.group(2))
        if method == "POST":
            comment = owner._issue_comment(repo.full_name, number, body["body"], owner.acting)
            repo.issue_comments.append(comment)
            return 201, comment, {}
        mine = [c for c in repo.issue_comments if c["_number"] == number]
        return _page(owner, path, query, mine)
    if m := re.match(r"^POST /issues/(\d+)/labels$", route):
        labels = repo.labels.setdefault(int(m.group(1)), [])
        for name in body["labels"]:
            if name not in labels:
                labels.append(name)
        return 200, [github_json.label(repo.full_name, name) for name in labels], {}
    if m := re.match(r"^(GET|POST) /pulls/(\d+)(/files|/comments|/reviews)?$", route):
        pull = repo.pulls.get(int(m.group(2)))
        if pull is None:
            return NOT_FOUND
        return _pull(owner, repo, pull, method, m.group(3) or "", path, query, body)
    return NOT_FOUND


def _pull(
    owner: FakeGitHub,
    repo: Repo,
    pull: PullRequest,
    method: str,
    what: str,
    path: str,
    query: dict[str, str],
    body: Any,
) -> Answer:
    if method == "GET" and what == "":
        return 200, owner.pull_json(repo, pull), {}
    if method == "GET" and what == "/files":
        files = [github_json.pull_file(repo.full_name, pull.head_sha, f) for f in pull.files]
        return _page(owner, path, query, files[:3000])
    if method == "GET" and what == "/comments":
        mine = [c for c in repo.review_comments if c["_number"] == pull.number]
        return _page(owner, path, query, mine)
    if method == "GET" and what == "/reviews":
        mine = [r for r in repo.reviews if r["_number"] == pull.number]
        return _page(owner, path, query, mine)
    if method == "POST" and what == "/reviews":
        status, payload = owner.create_review(repo, pull, body)
        return status, payload, {}
    return NOT_FOUND


def _review_reply(owner: FakeGitHub, repo: Repo, number: int, ident: int, body: Any) -> Answer:
    """A reply in a review thread: only to a thread's first comment, as GitHub allows."""
    parent = next((c for c in repo.review_comments if c["id"] == ident), None)
    if parent is None or parent.get("in_reply_to_id") or parent["_number"] != number:
        return NOT_FOUND
    reply = github_json.review_comment(
        repo.full_name,
        number,
        owner.next_id(),
        review_id=owner.next_id(),
        comment={"path": parent["path"], "line": parent["line"], "body": body["body"]},
        user=owner.acting,
        commit=parent["commit_id"],
        diff_hunk=parent["diff_hunk"],
    )
    reply.update({"in_reply_to_id": ident, "_number": number})
    repo.review_comments.append(reply)
    return 201, reply, {}


def _issue_comment(owner: FakeGitHub, repo: Repo, method: str, ident: int, body: Any) -> Answer:
    comment = next((c for c in repo.issue_comments if c["id"] == ident), None)
    if comment is None:
        return NOT_FOUND
    if method == "PATCH":
        _edited(comment, body["body"], owner.acting)
    elif method == "DELETE":
        repo.issue_comments.remove(comment)
        return 204, None, {}
    return 200, comment, {}


def _edited(comment: JsonObject, body: str, user: JsonObject) -> None:
    comment["body"] = body
    comment["updated_at"] = comment["_last_edited_at"] = "2026-01-02T00:00:00Z"
    comment["_editor"] = dict(user)


def _asks_editor(body: Any) -> bool:
    query = str((body or {}).get("query") or "") if isinstance(body, dict) else ""
    return "lastEditedAt" in query and "editor" in query and "node(id:" in query


def _graphql(owner: FakeGitHub, body: Any) -> Answer:
    """`node(id:) { ... on Comment { lastEditedAt editor { __typename login } } }`, the one
    query consensus sends; anything else is a GraphQL error (HTTP 200, as GitHub answers)."""
    query = str((body or {}).get("query") or "")
    node_id = str(((body or {}).get("variables") or {}).get("id") or "")
    if "lastEditedAt" not in query or "editor" not in query:
        return 200, {"errors": [{"message": "unsupported query in the fake"}]}, {}
    found = [
        c
        for repo in owner.repos.values()
        for c in (*repo.issue_comments, *repo.review_comments)
        if c.get("node_id") == node_id
    ]
    if not found:
        error = {"type": "NOT_FOUND", "message": f"Could not resolve to a node with id {node_id}"}
        return 200, {"data": {"node": None}, "errors": [error]}, {}
    editor = found[0].get("_editor")
    shown = None
    if editor is not None:  # GraphQL names a Bot without REST's "[bot]"
        login = str(editor["login"]).removesuffix("[bot]")
        shown = {"__typename": "Bot" if editor["type"] == "Bot" else "User", "login": login}
    node = {"lastEditedAt": found[0].get("_last_edited_at"), "editor": shown}
    return 200, {"data": {"node": node}}, {}


def _compare(repo: Repo, base: str, head: str) -> Answer:
    if base not in repo.snapshots or head not in repo.snapshots:
        return 404, {"message": "Not Found"}, {}
    before, after = repo.snapshots[base], repo.snapshots[head]
    history = repo.ancestors.get(head, set())
    status = "identical" if base == head else ("ahead" if base in history else "diverged")
    files = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        lines = difflib.unified_diff(
            (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True), n=3
        )
        body = [line.rstrip("\n") for line in list(lines)[2:]]
        word = "added" if old is None else "removed" if new is None else "modified"
        added = sum(1 for line in body if line.startswith("+"))
        removed = sum(1 for line in body if line.startswith("-"))
        item = {"filename": path, "status": word, "additions": added, "deletions": removed}
        files.append({**item, "changes": added + removed, "patch": "\n".join(body)})
    comparison = github_json.comparison(
        repo.full_name, base, head, status=status, files=files[:300]
    )
    return 200, comparison, {}


def _contents(repo: Repo, path: str, ref: str) -> Answer:
    files = repo.snapshots.get(ref)
    if files is None:
        return 404, {"message": f"No commit found for the ref {ref}"}, {}
    path = path.strip("/")
    if path in files:
        data = files[path].encode()
        entry = github_json.content(repo.full_name, ref, path, kind="file", size=len(data))
        encoded = {"content": base64.encodebytes(data).decode(), "encoding": "base64"}
        return 200, {**entry, **encoded}, {}
    prefix = f"{path}/" if path else ""
    children = {p[len(prefix) :].split("/", 1)[0]: p for p in files if p.startswith(prefix)}
    if not children:
        return NOT_FOUND
    listing = []
    for name, full in sorted(children.items()):
        kind = "dir" if "/" in full[len(prefix) :] else "file"
        size = len(files[full].encode()) if kind == "file" else 0
        listing.append(
            github_json.content(repo.full_name, ref, f"{prefix}{name}", kind=kind, size=size)
        )
    return 200, listing, {}


# --------------------------------------------------------------------------- from git


def _git(repo: Path, *args: str, errors: str = "replace") -> str:
    """git's output as text. Names that are not UTF-8 come back as surrogates with
    errors="surrogateescape", so that they can be passed to git again as they were."""
    # Literal pathspecs: a name such as "a[1].txt" or "say \"hi\".py" is a name, not a glob.
    command = ["git", "--literal-pathspecs", "-c", "core.quotePath=false", *args]
    done = subprocess.run(command, cwd=repo, capture_output=True, check=True)
    return done.stdout.decode("utf-8", errors=errors)


def _shown(name: str) -> str:
    """A name as GitHub's JSON carries it: bytes that are not UTF-8 become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def snapshot(repo_dir: Path, ref: str) -> tuple[str, dict[str, str]]:
    """(commit sha, path → text) of a git commit; a link's text is its target, and a
    submodule (a gitlink: no blob) is left out, as the contents API has no file there."""
    sha = _git(repo_dir, "rev-parse", f"{ref}^{{commit}}").strip()
    entries = [e for e in _git(repo_dir, "ls-tree", "-r", "-z", sha).split("\0") if e]
    files = {}
    for entry in entries:
        meta, name = entry.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob":
            files[name] = _git(repo_dir, "cat-file", "blob", blob)
    return sha, files


def pull_files_from_git(
    repo_dir: Path, base: str, head: str, *, omit_patch: tuple[str, ...] = ()
) -> list[JsonObject]:
    """The PR files list GitHub would show for base...head (patch = the hunks). Names are
    plain text (GitHub does not quote them); a mode change alone is "changed"; a patch
    is left out for binary files and for the paths in `omit_patch` (as GitHub does for
    very large ones)."""
    files = []
    status_words = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "T": "modified"}
    listing = _git(
        repo_dir, "diff", "--name-status", "-z", "-M", f"{base}...{head}", errors="surrogateescape"
    )
    fields_z = listing.split("\0")
    rows: list[list[str]] = []
    index = 0
    while index < len(fields_z) and fields_z[index]:
        code = fields_z[index]
        width = 2 if code[0] in "RC" else 1
        rows.append([code, *fields_z[index + 1 : index + 1 + width]])
        index += 1 + width
    for fields in rows:
        code, path = fields[0][0], fields[-1]
        diff = _git(
            repo_dir,
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-U3",
            "-M",
            f"{base}...{head}",
            "--",
            *fields[1:],
        )
        hunks = diff[diff.find("\n@@") + 1 :] if "\n@@" in diff else ""
        added = sum(1 for x in hunks.split("\n") if x.startswith("+"))
        removed = sum(1 for x in hunks.split("\n") if x.startswith("-"))
        status = status_words.get(code, "modified")
        if code == "M" and not hunks and "\nold mode " in diff:
            status = "changed"  # GitHub's word for a mode change alone
        item: JsonObject = {
            "sha": "0" * 40,
            "filename": _shown(path),
            "status": status,
            "additions": added,
            "deletions": removed,
            "changes": added + removed,
        }
        if code == "R":
            item["previous_filename"] = _shown(fields[1])
        if hunks and path not in omit_patch:
            item["patch"] = hunks.rstrip("\n")
        files.append(item)
    return files


def load_pull_from_git(
    server: FakeGitHub,
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
        history = _git(repo_dir, "rev-list", head_sha).split()
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


@contextlib.contextmanager
def running() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
