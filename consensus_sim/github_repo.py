"""The loopback GitHub's data: accounts, pull requests, repositories, the request log, and
pull requests loaded from a real git repository (snapshots, files with GitHub's patches)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from consensus_sim import github_json
from consensus_sim.snapshot_diff import GIT_DIFF

JsonObject = dict[str, Any]
BOT: JsonObject = github_json.simple_user("github-actions[bot]", ident=41898282, kind="Bot")
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
BOOKKEEPING = ("_number", "_comment", "_editor", "_last_edited_at")  # never sent


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
    # The contents API sends no content for a file over 1 MB (encoding "none"); its blob
    # comes from GET /git/blobs/{sha}. Tests lower this to exercise that path.
    large_file_bytes: int = 1_000_000
    permissions: dict[str, str] = dataclasses.field(default_factory=dict)
    ancestors: dict[str, set[str]] = dataclasses.field(default_factory=dict)  # sha → history
    # review thread id → who resolved it (None: an app, which GraphQL does not name)
    thread_state: dict[str, str | None] = dataclasses.field(default_factory=dict)
    default_branch: str = "main"
    branches: dict[str, str] = dataclasses.field(default_factory=dict)  # name → head commit
    issue_bodies: dict[int, str] = dataclasses.field(default_factory=dict)  # PR descriptions
    trees: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)  # sha → files
    # When what happens by itself happens: a pull request closed by its branch moving.
    now: str = "2026-01-02T00:00:00Z"

    def reactions_on(self, comment_id: int) -> list[JsonObject]:
        return [r for r in self.reactions if r["_comment"] == comment_id]


def is_write(method: str, body: Any) -> bool:
    """Changes something: not a GET, nor a GraphQL query (a POST that only reads)."""
    query = body.get("query") if isinstance(body, dict) else None
    return method != "GET" and not (isinstance(query, str) and query.lstrip().startswith("query"))


def right_lines(patch: str) -> list[set[int]]:
    """RIGHT-side lines of each hunk of a patch (GitHub's rule for review comments)."""
    hunks: list[set[int]] = []
    line = 0
    for text in patch.split("\n"):  # GitHub counts lines at "\n" only
        match = HUNK.match(text)
        if match:
            hunks.append(set())
            line = int(match.group(1))
        elif hunks and text[:1] in (" ", "+"):
            hunks[-1].add(line)
            line += 1
    return hunks


def team_json(full_name: str, slug: str) -> JsonObject:
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


def diff_hunk(patch: str, line: int) -> str:
    """The hunk of `patch` up to `line`, as GitHub shows above a review comment."""
    out: list[str] = []
    current = 0
    for text in patch.splitlines():
        match = HUNK.match(text)
        if match:
            out, current = [text], int(match.group(1))
            continue
        out.append(text)
        if text[:1] in (" ", "+"):
            if current == line:
                return "\n".join(out)
            current += 1
    return "\n".join(out)


def comment_error(comment: JsonObject, files: dict[str, JsonObject]) -> str | None:
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


def git_text(repo: Path, *args: str, errors: str = "replace") -> str:
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
    sha = git_text(repo_dir, "rev-parse", f"{ref}^{{commit}}").strip()
    entries = [e for e in git_text(repo_dir, "ls-tree", "-r", "-z", sha).split("\0") if e]
    files = {}
    for entry in entries:
        meta, name = entry.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob":
            files[name] = git_text(repo_dir, "cat-file", "blob", blob)
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
    listing = git_text(
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
        diff = git_text(
            repo_dir,
            *GIT_DIFF,
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


def edited(comment: JsonObject, body: str, user: JsonObject) -> None:
    comment["body"] = body
    comment["updated_at"] = comment["_last_edited_at"] = "2026-01-02T00:00:00Z"
    comment["_editor"] = dict(user)
