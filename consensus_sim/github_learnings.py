"""The loopback GitHub's side of the scheduled learnings run: closed pull requests with their
conversation, the branch and pull request that carry `.consensus/learned.yml`, and the
writes that propose it. GraphQL: `ConsensusClosedPulls`, `ConsensusLearningsBranch`,
createRef, updateRef, createCommitOnBranch, createPullRequest and updatePullRequest (its
description); REST: the Git database's
`POST /git/trees` (on a base tree) and `POST /git/commits`.

As strict as GitHub where it matters: a commit whose expectedHeadOid is not the branch head
fails, so does a non-forced updateRef that is not a fast-forward, a pull request with no
commit between its base and head, and a second open pull request from one branch. Every
move of a branch (a ref created or updated, a commit on it, a merge into it) goes through
`move_branch`, which does to the open pull requests from that branch what GitHub does: their
head follows it, and one whose head then has no commit beyond its base is closed at that
moment (at the repository's `now`).
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from consensus_sim import github_json

if TYPE_CHECKING:
    from consensus_sim.github_repo import JsonObject, PullRequest, Repo

OPERATIONS = frozenset(
    {
        "ConsensusClosedPulls",
        "ConsensusLearningsBranch",
        "ConsensusCreateRef",
        "ConsensusMoveRef",
        "ConsensusCommitFile",
        "ConsensusOpenPull",
        "ConsensusDescribePull",
    }
)
APP = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
_DOCS = "https://docs.github.com/rest/git"
_FORCED = re.compile(r"\bforce:\s*true\b")


def answer(
    repos: dict[str, Repo],
    name: str,
    variables: JsonObject,
    make_pull: Callable[..., Any],
    query: str = "",
) -> JsonObject:
    """The response to one learnings operation (data, or errors as GitHub sends them);
    `make_pull` builds the server's PullRequest; `query` is the document (an updateRef
    may write `force: true` in it rather than in a variable)."""
    if name in ("ConsensusClosedPulls", "ConsensusLearningsBranch"):
        repo = repos.get(f"{variables.get('owner')}/{variables.get('name')}")
        if repo is None:
            return _error("NOT_FOUND", "Could not resolve to a Repository")
        if name == "ConsensusClosedPulls":
            return {"data": {"repository": _closed(repo, variables)}}
        return {"data": {"repository": _branch(repo, variables)}}
    repo = _repo_of(repos, variables)
    if repo is None:
        return _error("NOT_FOUND", "Could not resolve to a node")
    if name == "ConsensusCreateRef":
        branch = str(variables["name"]).removeprefix("refs/heads/")
        if branch in repo.branches:
            return _error("UNPROCESSABLE", "A ref named that already exists")
        move_branch(repo, branch, str(variables["oid"]))
        return {"data": {"createRef": {"ref": {"id": _ref_id(branch)}}}}
    if name == "ConsensusMoveRef":
        forced = variables.get("force") is True or bool(_FORCED.search(query))
        return _move_ref(repo, variables, forced=forced)
    if name == "ConsensusCommitFile":
        return _commit_on_branch(repo, variables)
    if name == "ConsensusDescribePull":
        return _describe(repo, variables)
    return _open_pull(repo, variables, make_pull)


def _error(kind: str, message: str) -> JsonObject:
    return {"data": None, "errors": [{"type": kind, "message": message}]}


def _ref_id(branch: str) -> str:
    return f"REF_{hashlib.sha1(branch.encode()).hexdigest()[:12]}"


def _repository_id(repo: Repo) -> str:
    return f"R_{hashlib.sha1(repo.full_name.encode()).hexdigest()[:12]}"


def _pull_id(number: int) -> str:
    return github_json.node_id("PR", number * 7)  # as the pull request's REST JSON says


def _repo_of(repos: dict[str, Repo], variables: JsonObject) -> Repo | None:
    named = (variables.get("branch") or {}).get("repositoryNameWithOwner")
    for repo in repos.values():
        if repo.full_name == named or _repository_id(repo) == variables.get("repositoryId"):
            return repo
        if any(_ref_id(b) == variables.get("refId") for b in repo.branches):
            return repo
        if any(_pull_id(n) == variables.get("id") for n in repo.pulls):
            return repo
    return None


def _author(user: JsonObject | None) -> JsonObject | None:
    if not user:
        return None
    return {"login": str(user["login"]).removesuffix("[bot]"), "__typename": user["type"]}


def _closed(repo: Repo, variables: JsonObject) -> JsonObject:
    closed = [p for p in repo.pulls.values() if p.state == "closed"]
    closed.sort(key=lambda p: p.closed_at, reverse=True)
    nodes = []
    for pull in closed:
        comments = [c for c in repo.issue_comments if c["_number"] == pull.number][:100]
        nodes.append(
            {
                "number": pull.number,
                "closedAt": pull.closed_at,
                "updatedAt": pull.closed_at,
                "merged": pull.merged,
                "headRefName": pull.head_ref,
                "isCrossRepository": pull.head_repo not in (None, repo.full_name),
                "comments": {
                    "nodes": [
                        {
                            "databaseId": c["id"],
                            "body": c["body"],
                            "author": _author(c["user"]),
                            "lastEditedAt": c.get("_last_edited_at"),
                            "editor": _author(c.get("_editor")),
                        }
                        for c in comments
                    ]
                },
            }
        )
    start = int(variables.get("cursor") or 0)
    page = nodes[start : start + 25]
    more = start + 25 < len(nodes)
    info = {"hasNextPage": more, "endCursor": str(start + 25) if more else None}
    return {"pullRequests": {"pageInfo": info, "nodes": page}}


def _branch(repo: Repo, variables: JsonObject) -> JsonObject:
    name = str(variables["branch"])
    default = repo.default_branch
    head, default_oid = repo.branches.get(name), repo.branches.get(default)
    opened = [
        {"number": p.number, "id": _pull_id(p.number)}
        for p in repo.pulls.values()
        if p.state == "open" and p.head_ref == name
    ]
    target = None
    if default_oid is not None:
        target = {"oid": default_oid, "tree": {"oid": tree_of(repo, default_oid)}}
    return {
        "id": _repository_id(repo),
        "defaultBranchRef": {"name": default, "target": target},
        "ref": {"id": _ref_id(name), "target": {"oid": head}} if head else None,
        "pullRequests": {"nodes": opened[:1]},
    }


# --------------------------------------------------------------------------- branches


def history(repo: Repo, oid: str) -> set[str]:
    """The commits reachable from `oid`, itself included."""
    return repo.ancestors.get(oid) or {oid}


def move_branch(repo: Repo, name: str, oid: str) -> None:
    """Branch `name` now points at `oid`. Each open pull request from it follows (its head,
    its files against its base branch); one whose head has no commit beyond its base is
    closed, as GitHub closes it."""
    repo.branches[name] = oid
    for pull in repo.pulls.values():
        same_repo = pull.head_repo in (None, repo.full_name)
        if pull.state != "open" or pull.head_ref != name or not same_repo:
            continue
        base = repo.branches.get(pull.base_ref, pull.base_sha)
        if oid in history(repo, base):
            pull.state, pull.closed_at = "closed", repo.now
            continue
        pull.head_sha, pull.base_sha = oid, base
        pull.files = _files(repo.snapshots.get(base, {}), repo.snapshots.get(oid, {}))


def _move_ref(repo: Repo, variables: JsonObject, *, forced: bool) -> JsonObject:
    branch = next(b for b in repo.branches if _ref_id(b) == variables["refId"])
    oid = str(variables["oid"])
    if not forced and repo.branches[branch] not in history(repo, oid):
        return _error("UNPROCESSABLE", "Update is not a fast forward")
    move_branch(repo, branch, oid)
    return {"data": {"updateRef": {"ref": {"id": variables["refId"]}}}}


def _commit_on_branch(repo: Repo, variables: JsonObject) -> JsonObject:
    name = str(variables["branch"]["branchName"])
    head = repo.branches.get(name)
    if head is None or head != variables["head"]:
        return _error("STALE_DATA", f"Expected branch to point to {variables['head']}")
    files = dict(repo.snapshots.get(head, {}))
    for added in variables["changes"].get("additions") or ():
        files[added["path"]] = base64.b64decode(added["contents"]).decode()
    oid = _new_commit(repo, files, [head], str(variables["message"].get("headline") or ""))
    move_branch(repo, name, oid)
    return {"data": {"createCommitOnBranch": {"commit": {"oid": oid}}}}


def _new_commit(repo: Repo, files: dict[str, str], parents: list[str], message: str) -> str:
    oid = hashlib.sha1(f"commit {sorted(files.items())} {parents} {message}".encode()).hexdigest()
    repo.snapshots[oid] = files
    repo.ancestors[oid] = {oid}.union(*(history(repo, p) for p in parents))
    return oid


def merge(repo: Repo, pull: PullRequest, at: str) -> str:
    """A maintainer merges `pull`: its base branch gets a merge commit with the head's
    version of each file the pull request changes; the merge commit's id."""
    base = repo.branches.get(pull.base_ref, pull.base_sha)
    head = repo.snapshots.get(pull.head_sha, {})
    files = dict(repo.snapshots.get(base, {}))
    for changed in pull.files:
        path = str(changed["filename"])
        if path in head:
            files[path] = head[path]
        else:
            files.pop(path, None)
    oid = _new_commit(repo, files, [base, pull.head_sha], f"Merge pull request #{pull.number}")
    pull.state, pull.merged, pull.closed_at = "closed", True, at
    move_branch(repo, pull.base_ref, oid)
    return oid


# --------------------------------------------------------------------------- the Git database


def tree_of(repo: Repo, oid: str) -> str:
    """The tree of commit `oid` (its files), known to the repository from now on."""
    return _tree(repo, dict(repo.snapshots.get(oid, {})))


def _tree(repo: Repo, files: dict[str, str]) -> str:
    sha = hashlib.sha1(f"tree {sorted(files.items())}".encode()).hexdigest()
    repo.trees[sha] = files
    return sha


def _blob_sha(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_write(repo: Repo, what: str, body: JsonObject) -> tuple[int, JsonObject]:
    """`POST /git/trees` (entries with `content`, on `base_tree`) or `POST /git/commits`."""
    api = f"{github_json.API}/repos/{repo.full_name}/git"
    if what == "trees":
        base = body.get("base_tree")
        if base is not None and base not in repo.trees:
            return 422, {"message": "Invalid tree info", "documentation_url": f"{_DOCS}/trees"}
        files = dict(repo.trees.get(str(base), {})) if base else {}
        for entry in body.get("tree") or ():
            if "content" in entry:
                files[str(entry["path"])] = str(entry["content"])
            elif entry.get("sha") is None:
                files.pop(str(entry["path"]), None)
            else:
                return 422, {"message": "only content entries", "documentation_url": _DOCS}
        sha = _tree(repo, files)
        listed = [
            {"path": path, "mode": "100644", "type": "blob", "sha": _blob_sha(text)}
            | {"size": len(text.encode()), "url": f"{api}/blobs/{_blob_sha(text)}"}
            for path, text in sorted(files.items())
        ]
        return 201, {"sha": sha, "url": f"{api}/trees/{sha}", "truncated": False, "tree": listed}
    tree, parents = str(body.get("tree") or ""), [str(p) for p in body.get("parents") or ()]
    if tree not in repo.trees or any(p not in repo.snapshots for p in parents):
        return 422, {"message": "Tree SHA does not exist", "documentation_url": f"{_DOCS}/commits"}
    message = str(body.get("message") or "")
    oid = _new_commit(repo, dict(repo.trees[tree]), parents, message)
    return 201, _git_commit(repo.full_name, oid, tree, parents, message)


def _git_commit(
    full_name: str, oid: str, tree: str, parents: list[str], message: str
) -> JsonObject:
    api = f"{github_json.API}/repos/{full_name}"
    email = "41898282+github-actions[bot]@users.noreply.github.com"
    person = {"name": "github-actions[bot]", "email": email, "date": github_json.WHEN}
    return {
        "sha": oid,
        "node_id": github_json.node_id("C", github_json.stable_id(oid)),
        "url": f"{api}/git/commits/{oid}",
        "html_url": f"{github_json.WEB}/{full_name}/commit/{oid}",
        "author": person,
        "committer": person,
        "message": message,
        "tree": {"sha": tree, "url": f"{api}/git/trees/{tree}"},
        "parents": [
            {
                "sha": p,
                "url": f"{api}/git/commits/{p}",
                "html_url": f"{github_json.WEB}/{full_name}/commit/{p}",
            }
            for p in parents
        ],
        "verification": {
            "verified": True,
            "reason": "valid",
            "signature": None,
            "payload": None,
            "verified_at": github_json.WHEN,
        },
    }


# --------------------------------------------------------------------------- pull requests


def _open_pull(repo: Repo, variables: JsonObject, make_pull: Callable[..., Any]) -> JsonObject:
    head_ref, base_ref = str(variables["head"]), str(variables["base"])
    if any(p.state == "open" and p.head_ref == head_ref for p in repo.pulls.values()):
        return _error("UNPROCESSABLE", f"A pull request already exists for {head_ref}.")
    head, base = repo.branches[head_ref], repo.branches[base_ref]
    if head in history(repo, base):
        return _error("UNPROCESSABLE", f"No commits between {base_ref} and {head_ref}")
    number = max([*repo.pulls, 0]) + 1
    repo.pulls[number] = make_pull(
        number=number,
        head_sha=head,
        base_sha=base,
        files=_files(repo.snapshots.get(base, {}), repo.snapshots.get(head, {})),
        title=str(variables["title"]),
        base_ref=base_ref,
        head_ref=head_ref,
        user=dict(APP),
    )
    repo.issue_bodies[number] = str(variables["body"])
    return {"data": {"createPullRequest": {"pullRequest": {"number": number}}}}


def _describe(repo: Repo, variables: JsonObject) -> JsonObject:
    number = next(n for n in repo.pulls if _pull_id(n) == variables["id"])
    repo.issue_bodies[number] = str(variables["body"])
    return {"data": {"updatePullRequest": {"pullRequest": {"number": number}}}}


def _files(base: dict[str, str], head: dict[str, str]) -> list[JsonObject]:
    files = []
    for path in sorted(set(base) | set(head)):
        old, new = base.get(path), head.get(path)
        if old == new:
            continue
        lines = list(
            difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="")
        )[2:]
        status = "added" if old is None else "removed" if new is None else "modified"
        added = sum(1 for line in lines if line.startswith("+"))
        removed = sum(1 for line in lines if line.startswith("-"))
        patch = "\n".join(lines)
        files.append(
            {
                "filename": path,
                "status": status,
                "additions": added,
                "deletions": removed,
                "patch": patch,
            }
        )
    return files
