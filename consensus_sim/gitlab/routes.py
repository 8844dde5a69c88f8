"""The loopback GitLab's routes: each REST v4 request consensus makes, answered from a
GitLabState as GitLab answers it (status codes, pagination headers, error messages)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any
from urllib.parse import unquote

from consensus_sim.gitlab import diffs, entities
from consensus_sim.gitlab.entities import Account, JsonObject
from consensus_sim.gitlab.state import GitLabState, Project, edited, set_resolved
from consensus_sim.loopback import tar_gz

Answer = tuple[int, Any, dict[str, str]]
SEG = r"([^/]+)"


@dataclasses.dataclass(frozen=True)
class Call:
    """One request to a merge request's routes: who asks what, with which query and body."""

    method: str
    query: dict[str, str]
    body: Any
    user: Account
    url: str  # the request's own URL, for pagination links


def error(status: int, message: str) -> Answer:
    return status, {"message": message}, {}


NOT_FOUND = error(404, "404 Not Found")


def page(items: list[Any], query: dict[str, str], url: str) -> Answer:
    """One page of `items`, with GitLab's pagination headers."""
    per_page = max(1, min(int(query.get("per_page") or 20), 100))
    number = max(1, int(query.get("page") or 1))
    total_pages = max(1, -(-len(items) // per_page))
    chunk = items[(number - 1) * per_page : number * per_page]
    later = number < total_pages
    headers = {
        "X-Page": str(number),
        "X-Per-Page": str(per_page),
        "X-Total": str(len(items)),
        "X-Total-Pages": str(total_pages),
        "X-Next-Page": str(number + 1) if later else "",
        "X-Prev-Page": str(number - 1) if number > 1 else "",
    }
    if later:
        kept = "".join(f"{k}={v}&" for k, v in query.items() if k not in ("page", "per_page"))
        headers["Link"] = f'<{url}?{kept}page={number + 1}&per_page={per_page}>; rel="next"'
    return 200, chunk, headers


def route(
    state: GitLabState, method: str, path: str, query: dict[str, str], body: Any, user: Account
) -> Answer:
    """`path` is raw (still percent-encoded) and relative to /api/v4."""
    if method == "GET" and path == "/user":
        return 200, entities.current_user(user), {}
    if method == "GET" and path == "/users":
        wanted = query.get("username", "")
        found = [entities.user_basic(u) for u in state.users.values() if u.username == wanted]
        return 200, found, {}
    match = re.match(rf"^/projects/{SEG}(/.*)?$", path)
    if match is None:
        return NOT_FOUND
    project = find_project(state, unquote(match.group(1)))
    if project is None:
        return error(404, "404 Project Not Found")
    if user.id not in project.members:  # a private project: members alone see it
        return error(404, "404 Project Not Found")
    rest = match.group(2) or ""
    if method == "GET" and rest == "":
        return 200, entities.project(project.id, project.path, project.default_branch), {}
    if m := re.match(rf"^/members/all/{SEG}$", rest):
        level = project.members.get(int(m.group(1))) if m.group(1).isdigit() else None
        if method != "GET" or level is None:
            return NOT_FOUND
        return 200, entities.member(state.users[int(m.group(1))], level), {}
    if m := re.match(rf"^/repository/files/{SEG}$", rest):
        return _file(project, unquote(m.group(1)), query.get("ref", ""))
    if method == "GET" and rest == "/repository/tree":
        return _tree(project, query, f"{state.api_url}{path}")
    if method == "GET" and rest in ("/repository/archive", "/repository/archive.tar.gz"):
        return _archive(project, query.get("sha") or project.default_branch)
    if m := re.match(r"^/merge_requests/(\d+)(/.*)?$", rest):
        if int(m.group(1)) not in project.merge_requests:
            return error(404, "404 Not found")
        call = Call(method, query, body, user, f"{state.api_url}{path}")
        return merge_request_route(state, project, int(m.group(1)), m.group(2) or "", call)
    return NOT_FOUND


def find_project(state: GitLabState, ident: str) -> Project | None:
    if ident.isdigit():
        return state.projects.get(int(ident))
    return next((p for p in state.projects.values() if p.path == ident), None)


def _file(project: Project, path: str, ref: str) -> Answer:
    files = project.snapshots.get(project.branches.get(ref, ref))
    if files is None or not ref:
        return error(404, "404 Commit Not Found")
    if path not in files:
        return error(404, "404 File Not Found")
    return 200, entities.repository_file(path, ref, files[path]), {}


def _archive(project: Project, ref: str) -> Answer:
    """The repository at `ref` as GitLab's tar.gz: every file under one folder named for the
    project and the commit (the bytes are the answer, not JSON)."""
    sha = project.branches.get(ref, ref)
    files = project.snapshots.get(sha)
    if files is None:
        return error(404, "404 Commit Not Found")
    top = f"{project.path.rsplit('/', 1)[-1]}-{sha}-{sha}"
    return 200, tar_gz(top, files), {"Content-Type": "application/x-gzip"}


def _tree(project: Project, query: dict[str, str], url: str) -> Answer:
    ref = query.get("ref") or project.default_branch
    files = project.snapshots.get(project.branches.get(ref, ref))
    if files is None:
        return error(404, "404 Tree Not Found")
    prefix = query.get("path", "").strip("/")
    prefix = f"{prefix}/" if prefix else ""
    children: dict[str, str] = {}
    for full in files:
        if full.startswith(prefix):
            name = full[len(prefix) :].split("/", 1)[0]
            children[name] = "tree" if "/" in full[len(prefix) :] else "blob"
    if not children:
        return error(404, "404 Tree Not Found")
    listing = [entities.tree_entry(f"{prefix}{n}", kind) for n, kind in sorted(children.items())]
    return page(listing, query, url)


def merge_request_route(
    state: GitLabState, project: Project, iid: int, rest: str, call: Call
) -> Answer:
    mr = project.merge_requests[iid]
    method, query, body, user, url = call.method, call.query, call.body, call.user, call.url
    route_key = f"{method} {rest}"
    if route_key == "GET ":
        count = len([n for n in project.notes(iid) if not n.get("system")])
        return 200, entities.merge_request(mr, project.id, project.path, count), {}
    if route_key == "GET /versions":
        listed = [entities.version(v, mr.id) for v in reversed(mr.versions)]
        return page(listed, query, url)
    if m := re.match(r"^GET /versions/(\d+)$", route_key):
        shown = next((v for v in mr.versions if v.id == int(m.group(1))), None)
        return (200, entities.version(shown, mr.id, detail=True), {}) if shown else NOT_FOUND
    if route_key == "GET /diffs":
        return page([dict(d) for d in mr.latest.diffs], query, url)
    if route_key in ("GET /notes", "POST /notes"):
        return _notes(state, project, iid, call)
    if m := re.match(r"^(GET|PUT|DELETE) /notes/(\d+)$", route_key):
        return _one_note(state, project, iid, int(m.group(2)), call)
    if m := re.match(r"^(GET|POST) /notes/(\d+)/award_emoji$", route_key):
        return _awards(state, project, iid, int(m.group(2)), call)
    if route_key in ("GET /discussions", "POST /discussions"):
        return _discussions(state, project, iid, call)
    if m := re.match(rf"^(PUT|POST) /discussions/{SEG}(/notes)?$", route_key):
        found = next(
            (d for d in project.discussions if d["id"] == m.group(2) and d["_mr"] == iid), None
        )
        if found is None:
            return error(404, "404 Discussion Not Found")
        if method == "POST" and m.group(3):
            text = str((body or {}).get("body") or "")
            if not text.strip():
                return error(400, '400 Bad request - Note {:note=>["can\'t be blank"]}')
            return 201, state.add_to_discussion(project, found, text, user), {}
        if method == "PUT" and not m.group(3):
            if "resolved" not in (body or {}) and "resolved" not in query:
                return error(400, "400 Bad request - resolved is missing")
            wanted = (body or {}).get("resolved", query.get("resolved"))
            set_resolved(found, wanted in (True, "true"), user)
            return 200, found, {}
    return NOT_FOUND


def _notes(state: GitLabState, project: Project, iid: int, call: Call) -> Answer:
    method, query, body, user, url = call.method, call.query, call.body, call.user, call.url
    if method == "POST":
        text = str((body or {}).get("body") or "")
        if not text.strip():
            return error(400, '400 Bad request - Note {:note=>["can\'t be blank"]}')
        return 201, state.start_discussion(project, iid, text, user), {}
    notes = sorted(project.notes(iid), key=lambda n: (n["created_at"], n["id"]))
    if query.get("sort", "desc") == "desc":
        notes.reverse()
    return page(notes, query, url)


def _one_note(state: GitLabState, project: Project, iid: int, note_id: int, call: Call) -> Answer:
    method, body, user = call.method, call.body, call.user
    found = state.discussion_of(project, note_id)
    if found is None or found["_mr"] != iid:
        return error(404, "404 Note Not Found")
    note = next(n for n in found["notes"] if n["id"] == note_id)
    if method == "GET":
        return 200, note, {}
    if note["author"]["id"] != user.id and project.members.get(user.id, 0) < 40:
        return error(403, "403 Forbidden")
    if method == "DELETE":
        found["notes"].remove(note)
        if not found["notes"]:
            project.discussions.remove(found)
        return 204, None, {}
    text = str((body or {}).get("body") or "")
    if not text.strip():
        return error(400, '400 Bad request - Note {:note=>["can\'t be blank"]}')
    edited(note, text, user)
    return 200, note, {}


def _awards(state: GitLabState, project: Project, iid: int, note_id: int, call: Call) -> Answer:
    method, query, body, user, url = call.method, call.query, call.body, call.user, call.url
    found = state.discussion_of(project, note_id)
    if found is None or found["_mr"] != iid:
        return error(404, "404 Note Not Found")
    given = [a for a in project.awards if a["_note"] == note_id]
    if method == "GET":
        return page(given, query, url)
    name = str((body or {}).get("name") or "")
    if not re.fullmatch(r"[a-z0-9_+-]+", name):
        return error(400, "400 Bad request - name is invalid")
    if any(a["name"] == name and a["user"]["id"] == user.id for a in given):
        return error(404, "404 Award Emoji Name has already been taken")
    made = entities.award(state.next_id(), name, user, note_id)
    project.awards.append(made)
    return 201, made, {}


def _discussions(state: GitLabState, project: Project, iid: int, call: Call) -> Answer:
    method, query, body, user, url = call.method, call.query, call.body, call.user, call.url
    if method == "GET":
        return page([d for d in project.discussions if d["_mr"] == iid], query, url)
    body = body or {}
    text = str(body.get("body") or "")
    if not text.strip():
        return error(400, '400 Bad request - Note {:note=>["can\'t be blank"]}')
    position = body.get("position")
    if position is not None:
        problem = _position_problem(project.merge_requests[iid], position)
        if problem:
            return error(400, f"400 Bad request - {problem}")
    state.start_discussion(project, iid, text, user, position=position)
    return 201, project.discussions[-1], {}


def _position_problem(mr: Any, position: JsonObject) -> str | None:
    """GitLab's check: the SHAs of one diff version, and a line of its diff."""
    shas = (position.get("base_sha"), position.get("start_sha"), position.get("head_sha"))
    version = next((v for v in mr.versions if (v.base_sha, v.start_sha, v.head_sha) == shas), None)
    if version is None:
        return 'Note {:position=>["is incomplete"]} (no diff version has these SHAs)'
    return diffs.position_error(position, version.diffs)
