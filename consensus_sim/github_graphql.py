"""The loopback GitHub's GraphQL endpoint (`POST /graphql`, GHES `/api/graphql`): the review
threads of a pull request and the mutations that resolve and unresolve them, which exist in
GraphQL only. Operations are told apart by name, as the adapter names them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from consensus_sim import github_learnings

if TYPE_CHECKING:
    from consensus_sim.github_repo import JsonObject, Repo

PAGE = 100
_OPERATION = re.compile(r"\b(query|mutation)\s+(\w+)")
_ALIAS = re.compile(r"(\w+): object\(expression: \$(\w+)\)")


def thread_id(first_comment_id: int) -> str:
    return f"PRRT_kwDO{first_comment_id:08d}"


def answer(
    repos: dict[str, Repo], body: Any, make_pull: Callable[..., Any] = dict
) -> tuple[int, JsonObject]:
    """(status, GraphQL response) for one request: data, or errors as GitHub sends them
    (`make_pull`: the server's PullRequest, for the learnings run's createPullRequest)."""
    query = str((body or {}).get("query") or "")
    variables = (body or {}).get("variables") or {}
    match = _OPERATION.search(query)
    name = match.group(2) if match else ""
    if name == "ConsensusReviewThreads":
        repo = repos.get(f"{variables.get('owner')}/{variables.get('name')}")
        if repo is None:
            return 200, _error("NOT_FOUND", "Could not resolve to a Repository")
        return 200, {"data": {"repository": _threads(repo, variables)}}
    if name == "ConsensusReadFiles":
        repo = repos.get(f"{variables.get('owner')}/{variables.get('name')}")
        if repo is None:
            return 200, _error("NOT_FOUND", "Could not resolve to a Repository")
        return 200, {"data": {"repository": _blobs(repo, query, variables)}}
    if name in ("ConsensusResolveThread", "ConsensusUnresolveThread"):
        resolve = name == "ConsensusResolveThread"
        for repo in repos.values():
            if variables.get("id") in _thread_ids(repo):
                if resolve:
                    repo.thread_state[variables["id"]] = None  # an app: resolvedBy is null
                else:
                    repo.thread_state.pop(variables["id"], None)
                field = "resolveReviewThread" if resolve else "unresolveReviewThread"
                thread = {"id": variables["id"], "isResolved": resolve}
                return 200, {"data": {field: {"thread": thread}}}
        return 200, _error(
            "NOT_FOUND",
            f"Could not resolve to a node with the global id of '{variables.get('id')}'",
        )
    if name in github_learnings.OPERATIONS:
        return 200, github_learnings.answer(repos, name, variables, make_pull, query)
    return 200, _error("UNKNOWN", f"the loopback GitHub does not serve operation {name!r}")


def _blobs(repo: Repo, query: str, variables: JsonObject) -> JsonObject:
    """Each alias `fN: object(expression: $eN)`: the blob at "REF:path", or null."""
    out: JsonObject = {}
    for alias, variable in _ALIAS.findall(query):
        ref, _, path = str(variables.get(variable) or "").partition(":")
        text = repo.snapshots.get(ref, {}).get(path)
        size = len(text.encode()) if text is not None else 0
        out[alias] = None if text is None else {"text": text, "isBinary": False, "byteSize": size}
    return out


def _error(kind: str, message: str) -> JsonObject:
    return {"data": None, "errors": [{"type": kind, "message": message}]}


def _thread_ids(repo: Repo) -> set[str]:
    return {thread_id(c["id"]) for c in repo.review_comments if not c.get("in_reply_to_id")}


def _node(comment: JsonObject) -> JsonObject:
    user = comment["user"]
    return {
        "databaseId": comment["id"],
        "body": comment["body"],
        "path": comment["path"],
        "line": comment.get("line"),
        "author": {"login": str(user["login"]).removesuffix("[bot]"), "__typename": user["type"]},
    }


def _threads(repo: Repo, variables: JsonObject) -> JsonObject:
    number = int(variables.get("number") or 0)
    pull = repo.pulls.get(number)
    if pull is None:
        return {"pullRequest": None}
    comments = [c for c in repo.review_comments if c["_number"] == number]
    nodes = []
    for first in (c for c in comments if not c.get("in_reply_to_id")):
        replies = [c for c in comments if c.get("in_reply_to_id") == first["id"]]
        ident = thread_id(first["id"])
        resolved = ident in repo.thread_state
        who = repo.thread_state.get(ident)
        nodes.append(
            {
                "id": ident,
                "isResolved": resolved,
                "resolvedBy": {"login": who} if resolved and who else None,
                "first": {"nodes": [_node(first)]},
                "last": {"nodes": [_node(replies[-1] if replies else first)]},
            }
        )
    start = int(variables.get("cursor") or 0)
    page = nodes[start : start + PAGE]
    more = start + PAGE < len(nodes)
    info = {"hasNextPage": more, "endCursor": str(start + PAGE) if more else None}
    return {"pullRequest": {"reviewThreads": {"pageInfo": info, "nodes": page}}}
