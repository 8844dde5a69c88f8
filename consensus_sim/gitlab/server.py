"""A loopback GitLab: a real HTTP server on 127.0.0.1 speaking GitLab's REST API v4 for
every request consensus makes, state in memory (state.py, answered by routes.py).

- `PRIVATE-TOKEN` (or `Authorization: Bearer`) names the acting user (`GitLabState.user(…,
  token=…)`); no token or an unknown one is 401, a project the user is not a member of
  is 404, as on a private instance;
- lists are paginated with GitLab's headers (`X-Next-Page`, `X-Total`, `Link`);
- a discussion's `position` is checked as GitLab checks it (diffs.position_error): the
  SHAs of one diff version, and a line of its diff, else 400 and nothing is stored;
- `POST /api/graphql` answers the one query consensus sends (a note's `lastEditedAt`
  and `lastEditedBy`) with GitLab's types (tests/contract/gitlab_graphql.py holds it to
  them), anything else with a GraphQL error;
- a pipeline trigger (`POST /projects/:id/trigger/pipeline` with the trigger token, or
  the webhook form `POST /projects/:id/ref/:ref/trigger/pipeline?token=…` whose body is
  the event) records a pipeline with its variables and payload (`Project.pipelines`);
- `fail_next` injects faults; `requests` logs every request and answer;
- `prefix` serves the instance under a relative URL root (`/gitlab/api/v4`), as a
  self-managed GitLab can be: a request outside it is 404.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from consensus_sim.gitlab import entities, routes
from consensus_sim.gitlab.entities import Account
from consensus_sim.gitlab.routes import Answer, error
from consensus_sim.gitlab.state import GitLabState, Request
from consensus_sim.loopback import Loopback


class Handler(BaseHTTPRequestHandler):
    server_owner: GitLabState
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        owner = self.server_owner
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = _body(raw, self.headers.get("Content-Type") or "")
        outside = bool(owner.prefix) and not parts.path.startswith(owner.prefix + "/")
        path = parts.path.removeprefix(owner.prefix)
        fault = None if outside else owner.next_fault(method, unquote(path))
        status, payload, headers = 404, {"message": "404 Not Found"}, dict[str, str]()
        if not outside and (fault is None or fault.after):
            with owner.lock:
                status, payload, headers = answer(owner, method, path, query, body, self.headers)
        if fault is not None:
            status, payload, headers = fault.status, fault.body, fault.headers
        if isinstance(payload, bytes):  # an archive: its bytes, as GitLab sends them
            shown, data = None, payload
        else:
            shown = None if payload is None else entities.public(payload)
            data = b"" if shown is None else json.dumps(shown).encode()
        owner.requests.append(
            Request(method, path.removeprefix("/api/v4"), query, status, body, shown)
        )
        headers = dict(headers)
        self.send_response(status)
        self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _body(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    if "json" in content_type:
        return json.loads(raw)
    return {k: v[0] for k, v in parse_qs(raw.decode()).items()}  # a form, as curl --form


def answer(
    state: GitLabState, method: str, path: str, query: dict[str, str], body: Any, headers: Any
) -> Answer:
    if method == "POST" and path == "/api/graphql":
        user = _acting(state, headers)
        return (200, _graphql(state, body, user), {}) if user else error(401, "401 Unauthorized")
    if not path.startswith("/api/v4/"):
        return routes.NOT_FOUND
    rest = path.removeprefix("/api/v4")
    trigger = _trigger(state, method, rest, query, body)
    if trigger is not None:
        return trigger
    user = _acting(state, headers)
    if user is None:
        return error(401, "401 Unauthorized")
    return routes.route(state, method, rest, query, body, user)


def _acting(state: GitLabState, headers: Any) -> Account | None:
    token = headers.get("PRIVATE-TOKEN") or ""
    bearer = str(headers.get("Authorization") or "")
    token = token or bearer.removeprefix("Bearer ").strip()
    ident = state.tokens.get(token)
    return state.users.get(ident) if ident is not None else None


def _trigger(
    state: GitLabState, method: str, rest: str, query: dict[str, str], body: Any
) -> Answer | None:
    """A pipeline triggered with the project's trigger token; the webhook form passes the
    event it was called with to the pipeline as TRIGGER_PAYLOAD."""
    plain = re.match(r"^/projects/([^/]+)/trigger/pipeline$", rest)
    hooked = re.match(r"^/projects/([^/]+)/ref/([^/]+)/trigger/pipeline$", rest)
    if method != "POST" or not (plain or hooked):
        return None
    match = plain or hooked
    assert match is not None
    project = routes.find_project(state, unquote(match.group(1)))
    form = body if isinstance(body, dict) else {}
    token = query.get("token") or (str(form.get("token") or "") if plain else "")
    if project is None or token != project.trigger_token:
        return error(404, "404 Not Found")
    ref = unquote(hooked.group(2)) if hooked else str(form.get("ref") or "")
    sha = project.branches.get(ref)
    if sha is None:
        return error(400, "400 Bad request - Reference not found")
    made = entities.pipeline(state.next_id(), project.id, project.path, ref, sha)
    variables = {
        k[len("variables[") : -1]: v for k, v in form.items() if k.startswith("variables[")
    }
    if plain and isinstance(form.get("variables"), dict):
        variables.update(form["variables"])
    payload = body if hooked else None
    project.pipelines.append({**made, "_variables": variables, "_payload": payload})
    return 201, made, {}


# What a NoteID may name: Note and its subclasses (GitLab's `GlobalIDType[::Note]`).
_NOTE_ID = re.compile(r"^gid://gitlab/(?:Note|DiffNote|DiscussionNote|LegacyDiffNote)/(\d+)$")


def _graphql(state: GitLabState, body: Any, user: Account) -> Any:
    """`note(id:) { lastEditedAt lastEditedBy { username } }`, the one query consensus sends,
    answered as GitLab does: a `NoteID` that is not a Note's global ID is a variable error;
    a note that is gone, or in a project the user is not a member of, is `null`; `Time` in
    whole seconds (REST's carry milliseconds); `lastEditedBy` null unless the note was
    edited, GitLab's `ghost` user when the editor is unknown."""
    query = str((body or {}).get("query") or "")
    ident = ((body or {}).get("variables") or {}).get("id")
    if "note(id:" not in query.replace(" ", "").replace("note(id:$id)", "note(id:"):
        return {"errors": [{"message": "unsupported query in the loopback GitLab"}]}
    match = _NOTE_ID.match(ident) if isinstance(ident, str) else None
    if match is None:
        problem = f"{json.dumps(ident)} is not a valid Global ID of a Note"
        return {
            "errors": [
                {"message": f"Variable $id of type NoteID! was provided invalid value: {problem}"}
            ]
        }
    for project in state.projects.values():
        if user.id not in project.members:
            continue
        for discussion in project.discussions:
            for note in discussion["notes"]:
                if str(note["id"]) == match.group(1):
                    return {"data": {"note": _edit_of(note)}}
    return {"data": {"note": None}}


def _edit_of(note: dict[str, Any]) -> dict[str, Any]:
    edited_at = note.get("_last_edited_at")
    if not edited_at:
        return {"lastEditedAt": None, "lastEditedBy": None}
    seconds = re.sub(r"\.\d+(?=Z|[+-]\d\d:\d\d$)", "", str(edited_at))
    return {"lastEditedAt": seconds, "lastEditedBy": {"username": note.get("_editor") or "ghost"}}


class FakeGitLab(GitLabState, Loopback):
    """The server; `start()` it (or use `with`), then point the adapter at `api_url`."""

    handler = Handler

    def __init__(self, prefix: str = "") -> None:
        super().__init__()
        self.prefix = prefix.rstrip("/")


@contextlib.contextmanager
def running(prefix: str = "") -> Iterator[FakeGitLab]:
    with FakeGitLab(prefix) as server:
        yield server
