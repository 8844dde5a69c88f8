"""The loopback GitHub's GraphQL operations of the scheduled learnings run: closed pull
requests with their conversation, the branch and pull request that carry
`.consensus/learned.yml`, and the mutations that write them (createRef, updateRef,
createCommitOnBranch, createPullRequest), as strict as GitHub where it matters: a commit
whose expectedHeadOid is not the branch head fails, and so does a second open pull request
from one branch."""

from __future__ import annotations

import base64
import difflib
import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from consensus_sim.github_repo import JsonObject, Repo

OPERATIONS = frozenset(
    {
        "ConsensusClosedPulls",
        "ConsensusLearningsBranch",
        "ConsensusCreateRef",
        "ConsensusMoveRef",
        "ConsensusCommitFile",
        "ConsensusOpenPull",
    }
)
APP = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}


def answer(
    repos: dict[str, Repo], name: str, variables: JsonObject, make_pull: Callable[..., Any]
) -> JsonObject:
    """The response to one learnings operation (data, or errors as GitHub sends them);
    `make_pull` builds the server's PullRequest."""
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
        repo.branches[branch] = str(variables["oid"])
        return {"data": {"createRef": {"ref": {"id": _ref_id(branch)}}}}
    if name == "ConsensusMoveRef":
        branch = next(b for b in repo.branches if _ref_id(b) == variables["refId"])
        repo.branches[branch] = str(variables["oid"])
        return {"data": {"updateRef": {"ref": {"id": variables["refId"]}}}}
    if name == "ConsensusCommitFile":
        return _commit(repo, variables)
    return _open_pull(repo, variables, make_pull)


def _error(kind: str, message: str) -> JsonObject:
    return {"data": None, "errors": [{"type": kind, "message": message}]}


def _ref_id(branch: str) -> str:
    return f"REF_{hashlib.sha1(branch.encode()).hexdigest()[:12]}"


def _repository_id(repo: Repo) -> str:
    return f"R_{hashlib.sha1(repo.full_name.encode()).hexdigest()[:12]}"


def _repo_of(repos: dict[str, Repo], variables: JsonObject) -> Repo | None:
    named = (variables.get("branch") or {}).get("repositoryNameWithOwner")
    for repo in repos.values():
        if repo.full_name == named or _repository_id(repo) == variables.get("repositoryId"):
            return repo
        if any(_ref_id(b) == variables.get("refId") for b in repo.branches):
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
    head = repo.branches.get(name)
    opened = [
        {"number": p.number}
        for p in repo.pulls.values()
        if p.state == "open" and p.head_ref == name
    ]
    return {
        "id": _repository_id(repo),
        "defaultBranchRef": {"name": default, "target": {"oid": repo.branches.get(default)}},
        "ref": {"id": _ref_id(name), "target": {"oid": head}} if head else None,
        "pullRequests": {"nodes": opened[:1]},
    }


def _commit(repo: Repo, variables: JsonObject) -> JsonObject:
    name = str(variables["branch"]["branchName"])
    head = repo.branches.get(name)
    if head is None or head != variables["head"]:
        return _error("STALE_DATA", f"Expected branch to point to {variables['head']}")
    files = dict(repo.snapshots.get(head, {}))
    for added in variables["changes"].get("additions") or ():
        files[added["path"]] = base64.b64decode(added["contents"]).decode()
    oid = hashlib.sha1(f"{head}{sorted(files.items())}".encode()).hexdigest()
    repo.snapshots[oid] = files
    repo.ancestors[oid] = {*repo.ancestors.get(head, {head}), oid}
    repo.branches[name] = oid
    return {"data": {"createCommitOnBranch": {"commit": {"oid": oid}}}}


def _open_pull(repo: Repo, variables: JsonObject, make_pull: Callable[..., Any]) -> JsonObject:
    head_ref, base_ref = str(variables["head"]), str(variables["base"])
    if any(p.state == "open" and p.head_ref == head_ref for p in repo.pulls.values()):
        return _error("UNPROCESSABLE", f"A pull request already exists for {head_ref}.")
    head, base = repo.branches[head_ref], repo.branches[base_ref]
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
