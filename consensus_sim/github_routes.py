"""The loopback GitHub's HTTP side: the request handler and the REST and GraphQL routes,
each answering from a GitHubState."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from consensus_sim import github_graphql, github_json, github_learnings
from consensus_sim.github_repo import (
    BOOKKEEPING,
    PullRequest,
    Repo,
    Request,
    edited,
    human,
)
from consensus_sim.github_state import GitHubState
from consensus_sim.loopback import tar_gz, without_keys
from consensus_sim.snapshot_diff import changed_files


class Handler(BaseHTTPRequestHandler):
    server_owner: GitHubState
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
                status, payload, headers = route(owner, method, path, query, body)
        if fault is not None:
            status, payload, headers = fault.status, fault.body, fault.headers
        if isinstance(payload, bytes):  # an archive (codeload's host: not the API's)
            self._send_bytes(status, payload, headers)
            return
        answer = None if payload is None else public(payload)
        data = b"" if answer is None else json.dumps(answer).encode()
        if method == "GET" and status == 200 and owner.etags:
            etag = f'W/"{hashlib.sha1(data).hexdigest()}"'
            headers = {**headers, "ETag": etag}
            if self.headers.get("If-None-Match") == etag:
                status, data, answer = 304, b"", None
        owner.requests.append(Request(method, path, query, status, body, answer))
        if "Location" in headers:  # a redirect: to this server, as GitHub's go to its own
            headers = {**headers, "Location": f"{owner.url}{headers['Location']}"}
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Remaining", "4999")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_bytes(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def public(payload: Any) -> Any:
    """Without the fake's own bookkeeping keys (`_number`, `_comment`)."""
    return without_keys(payload, BOOKKEEPING)


Answer = tuple[int, Any, dict[str, str]]
NOT_FOUND: Answer = (404, {"message": "Not Found"}, {})


def _page(owner: GitHubState, path: str, query: dict[str, str], items: list[Any]) -> Answer:
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


def route(owner: GitHubState, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
    if method == "POST" and path in ("/graphql", "/api/graphql") and _asks_editor(body):
        return _graphql(owner, body)
    if method == "POST" and path in ("/graphql", "/api/graphql"):
        status, answer = github_graphql.answer(owner.repos, body, make_pull=PullRequest)
        return status, answer, {}
    path = path.removeprefix("/api/v3")  # GitHub Enterprise Server's REST prefix
    if m := re.match(r"^/_codeload/([^/]+/[^/]+)/legacy\.tar\.gz/(.+)$", path):
        return _codeload(owner, m.group(1), m.group(2))
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
    return _repo_route(owner, repo, method, match.group(2) or "", path, query, body)


def _repo_route(
    owner: GitHubState,
    repo: Repo,
    method: str,
    rest: str,
    path: str,
    query: dict[str, str],
    body: Any,
) -> Answer:
    """The routes under /repos/OWNER/NAME: the repository, pulls, labels, reviewers, files."""
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
    if m := re.match(r"^POST /git/(trees|commits)$", route):
        status, payload = github_learnings.git_write(repo, m.group(1), body or {})
        return status, payload, {}
    if m := re.match(r"^GET /git/blobs/([0-9a-f]{40})$", route):
        return _blob(repo, m.group(1))
    if m := re.match(r"^GET /contents/(.*)$", route):
        return _contents(repo, m.group(1), query.get("ref", ""))
    if m := re.match(r"^GET /tarball/(.+)$", route):  # to codeload, as GitHub redirects
        if repo.snapshots.get(repo.branches.get(m.group(1), m.group(1))) is None:
            return NOT_FOUND
        return 302, None, {"Location": f"/_codeload/{repo.full_name}/legacy.tar.gz/{m.group(1)}"}
    if m := re.match(r"^GET /collaborators/([^/]+)/permission$", route):
        level = repo.permissions.get(m.group(1), "read")
        if level == "missing":  # no such user
            return NOT_FOUND
        legacy = {"maintain": "write", "triage": "read"}.get(level, level)
        user = {**human(m.group(1)), "role_name": level}
        answer = {"permission": legacy, "role_name": level, "user": user}
        return 200, answer, {}
    return _comment_route(owner, repo, method, route, path, query, body)


def _comment_route(
    owner: GitHubState,
    repo: Repo,
    method: str,
    route: str,
    path: str,
    query: dict[str, str],
    body: Any,
) -> Answer:
    """Comments, reactions and labels of a repository, and one pull request's routes."""
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
        return _page(owner, path, query, repo.reactions_on(int(m.group(1))))
    if m := re.match(r"^POST /issues/comments/(\d+)/reactions$", route):
        reaction = github_json.reaction(owner.next_id(), body["content"], owner.acting)
        repo.reactions.append({**reaction, "_comment": int(m.group(1))})
        return 201, reaction, {}
    if m := re.match(r"^(GET|POST) /issues/(\d+)/comments$", route):
        number = int(m.group(2))
        if method == "POST":
            comment = owner.issue_comment_json(repo.full_name, number, body["body"], owner.acting)
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
    owner: GitHubState,
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
        mine = [
            {**c, "reactions": github_json.reaction_rollup(c["url"], repo.reactions_on(c["id"]))}
            for c in repo.review_comments
            if c["_number"] == pull.number
        ]
        return _page(owner, path, query, mine)
    if method == "GET" and what == "/reviews":
        mine = [r for r in repo.reviews if r["_number"] == pull.number]
        return _page(owner, path, query, mine)
    if method == "POST" and what == "/reviews":
        status, payload = owner.create_review(repo, pull, body)
        return status, payload, {}
    return NOT_FOUND


def _review_reply(owner: GitHubState, repo: Repo, number: int, ident: int, body: Any) -> Answer:
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


def _issue_comment(owner: GitHubState, repo: Repo, method: str, ident: int, body: Any) -> Answer:
    comment = next((c for c in repo.issue_comments if c["id"] == ident), None)
    if comment is None:
        return NOT_FOUND
    if method == "PATCH":
        edited(comment, body["body"], owner.acting)
    elif method == "DELETE":
        repo.issue_comments.remove(comment)
        return 204, None, {}
    return 200, comment, {}


def _asks_editor(body: Any) -> bool:
    query = str((body or {}).get("query") or "") if isinstance(body, dict) else ""
    return "lastEditedAt" in query and "editor" in query and "node(id:" in query


def _graphql(owner: GitHubState, body: Any) -> Answer:
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
    for path, old, new, lines in changed_files(before, after):
        body = [line.rstrip("\n") for line in lines]
        word = "added" if old is None else "removed" if new is None else "modified"
        added = sum(1 for line in body if line.startswith("+"))
        removed = sum(1 for line in body if line.startswith("-"))
        item = {"filename": path, "status": word, "additions": added, "deletions": removed}
        files.append({**item, "changes": added + removed, "patch": "\n".join(body)})
    comparison = github_json.comparison(
        repo.full_name, base, head, status=status, files=files[:300]
    )
    return 200, comparison, {}


def _codeload(owner: GitHubState, full_name: str, ref: str) -> Answer:
    """codeload's tarball of a commit: `<owner>-<name>-<short sha>/` before every path."""
    repo = owner.repos.get(full_name)
    files = repo.snapshots.get(repo.branches.get(ref, ref)) if repo else None
    if files is None:
        return NOT_FOUND
    top = f"{full_name.replace('/', '-')}-{ref[:7]}"
    return 200, tar_gz(top, files), {"Content-Type": "application/x-gzip"}


def _contents(repo: Repo, path: str, ref: str) -> Answer:
    files = repo.snapshots.get(ref)
    if files is None:
        return 404, {"message": f"No commit found for the ref {ref}"}, {}
    path = path.strip("/")
    if path in files:
        data = files[path].encode()
        entry = github_json.content(repo.full_name, ref, path, kind="file", size=len(data))
        encoded = {"content": base64.encodebytes(data).decode(), "encoding": "base64"}
        if len(data) > repo.large_file_bytes:
            encoded = {"content": "", "encoding": "none"}
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


def _blob(repo: Repo, sha: str) -> Answer:
    """A file's blob by the sha its contents entry gave (any size, base64)."""
    for ref, files in repo.snapshots.items():
        for path, text in files.items():
            if github_json.content(repo.full_name, ref, path, kind="file")["sha"] == sha:
                data = text.encode()
                blob = github_json.blob(repo.full_name, sha, base64.encodebytes(data).decode())
                return 200, {**blob, "size": len(data)}, {}
    return NOT_FOUND
