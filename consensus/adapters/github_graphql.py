"""GitHub's GraphQL API, for what REST does not offer: review threads (read, resolve,
unresolve) and several files at one commit in one request. The documents, and GraphQL
JSON → port types. No PyGithub here: adapters/github.py sends them."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from consensus.ports import (
    ClosedPullThread,
    CommentEdit,
    HostComment,
    LearningsBranch,
    ReviewThread,
)

# Review threads exist only in GraphQL. The first and the last comment tell whose thread it
# is and who spoke last; `__typename` is "Bot" for apps such as github-actions[bot].
_COMMENT = "databaseId body path line author { login __typename }"
REVIEW_THREADS = f"""
query ConsensusReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      reviewThreads(first: 100, after: $cursor) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{
          id
          isResolved
          resolvedBy {{ login }}
          first: comments(first: 1) {{ nodes {{ {_COMMENT} }} }}
          last: comments(last: 1) {{ nodes {{ {_COMMENT} }} }}
        }}
      }}
    }}
  }}
}}
"""
RESOLVE_THREAD = """
mutation ConsensusResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""
UNRESOLVE_THREAD = """
mutation ConsensusUnresolveThread($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""


def _thread_comment(node: dict[str, Any]) -> HostComment:
    author = node.get("author") or {}
    login = str(author.get("login") or "")
    bot = author.get("__typename") == "Bot" or login.endswith("[bot]")
    if bot and not login.endswith("[bot]"):
        login += "[bot]"  # GraphQL names an app without the suffix REST and identities use
    return HostComment(
        id=int(node.get("databaseId") or 0),
        body=str(node.get("body") or ""),
        author=login,
        author_is_bot=bot,
        path=node.get("path"),
        line=int(node["line"]) if node.get("line") else None,
    )


def review_thread(node: dict[str, Any]) -> ReviewThread | None:
    """A thread from GraphQL; None for one without comments (nothing to judge it by)."""
    first = ((node.get("first") or {}).get("nodes")) or []
    last = ((node.get("last") or {}).get("nodes")) or []
    if not first or not last:
        return None
    resolver = node.get("resolvedBy") or {}
    return ReviewThread(
        id=str(node["id"]),
        resolved=bool(node.get("isResolved")),
        resolved_by=str(resolver["login"]) if resolver.get("login") else None,
        first=_thread_comment(first[0]),
        last=_thread_comment(last[0]),
    )


def graphql_data(answer: Any) -> tuple[dict[str, Any], str]:
    """(data, the errors GitHub reported in a 200 answer, joined; "" when none)."""
    answer = answer if isinstance(answer, dict) else {}
    errors = "; ".join(str(e.get("message")) for e in (answer.get("errors") or [])[:3])
    return dict(answer.get("data") or {}), errors


def thread_page(data: dict[str, Any]) -> tuple[list[ReviewThread], str | None]:
    """One page of `reviewThreads`, and the cursor of the next one (None: the last page)."""
    pull = ((data.get("repository") or {}).get("pullRequest")) or {}
    page = pull.get("reviewThreads") or {}
    threads = [t for t in map(review_thread, page.get("nodes") or ()) if t is not None]
    info = page.get("pageInfo") or {}
    more = info.get("hasNextPage") and info.get("endCursor")
    return threads, str(info["endCursor"]) if more else None


def files_request(repo: str, paths: Sequence[str], ref: str) -> tuple[str, dict[str, Any]]:
    """(query, variables) reading `paths` at `ref` in one request: aliases f0…, expressions
    $e0… ("REF:path"). `paths` must not be empty."""
    declared = ", ".join(f"$e{n}: String" for n in range(len(paths)))
    fields = " ".join(
        f"f{n}: object(expression: $e{n}) {{ ... on Blob {{ text isBinary byteSize }} }}"
        for n in range(len(paths))
    )
    query = (
        f"query ConsensusReadFiles($owner: String!, $name: String!, {declared}) "
        f"{{ repository(owner: $owner, name: $name) {{ {fields} }} }}"
    )
    owner, name = repo.split("/", 1)
    expressions = {f"e{n}": f"{ref}:{path}" for n, path in enumerate(paths)}
    return query, {"owner": owner, "name": name, **expressions}


def blob_texts(data: dict[str, Any], paths: Sequence[str], max_bytes: int) -> dict[str, str | None]:
    """path → text; None where there is no such file, or it is binary or too large."""
    repository = data.get("repository") or {}
    texts: dict[str, str | None] = {}
    for n, path in enumerate(paths):
        blob = repository.get(f"f{n}") or {}
        text = blob.get("text")
        usable = isinstance(text, str) and not blob.get("isBinary")
        small = int(blob.get("byteSize") or 0) <= max_bytes
        texts[path] = text if usable and small else None
    return texts


# Who last edited a comment, and when: REST does not say (the summary's state is believed
# only when we wrote it last; publish/thread.py).
EDIT_QUERY = (
    "query($id: ID!) { node(id: $id) { ... on Comment { lastEditedAt "
    "editor { __typename login } } } }"
)


def comment_edit_of(data: dict[str, Any]) -> CommentEdit | None:
    """The edit EDIT_QUERY found; None for a comment never edited. A Bot's GraphQL login
    lacks REST's `[bot]`: it is added back."""
    node = data.get("node") or {}
    edited_at, editor = node.get("lastEditedAt"), node.get("editor")
    if not edited_at and not editor:
        return None
    login = str((editor or {}).get("login") or "")
    if login and (editor or {}).get("__typename") == "Bot" and not login.endswith("[bot]"):
        login += "[bot]"
    return CommentEdit(editor=login, edited_at=str(edited_at or ""))


def all_threads(
    graphql: Callable[[str, dict[str, Any]], dict[str, Any]], repo: str, number: int
) -> list[ReviewThread]:
    """Every review thread of PR `number`, page by page."""
    owner, name = repo.split("/", 1)
    threads: list[ReviewThread] = []
    cursor: str | None = None
    while True:
        variables = {"owner": owner, "name": name, "number": number, "cursor": cursor}
        page, cursor = thread_page(graphql(REVIEW_THREADS, variables))
        threads += page
        if cursor is None:
            return threads


# --------------------------------------------------------------------------- learnings
# The scheduled learnings run: closed PRs with their conversation (our summary's state holds
# the outcomes), the branch and pull request it keeps `.consensus/learned.yml` on, and the
# writes that put one commit on that branch and open its pull request.

_CLOSED_COMMENT = (
    "databaseId body author { login __typename } lastEditedAt editor { login __typename }"
)
CLOSED_PULLS = f"""
query ConsensusClosedPulls($owner: String!, $name: String!, $cursor: String) {{
  repository(owner: $owner, name: $name) {{
    pullRequests(states: [CLOSED, MERGED], first: 25, after: $cursor,
                 orderBy: {{field: UPDATED_AT, direction: DESC}}) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{
        number closedAt updatedAt merged
        comments(first: 100) {{ nodes {{ {_CLOSED_COMMENT} }} }}
      }}
    }}
  }}
}}
"""
LEARNINGS_BRANCH = """
query ConsensusLearningsBranch($owner: String!, $name: String!, $ref: String!, $branch: String!) {
  repository(owner: $owner, name: $name) {
    id
    defaultBranchRef { name target { oid } }
    ref(qualifiedName: $ref) { id target { oid } }
    pullRequests(headRefName: $branch, states: [OPEN], first: 1) { nodes { number } }
  }
}
"""
CREATE_REF = """
mutation ConsensusCreateRef($repositoryId: ID!, $name: String!, $oid: GitObjectID!) {
  createRef(input: {repositoryId: $repositoryId, name: $name, oid: $oid}) { ref { id } }
}
"""
MOVE_REF = """
mutation ConsensusMoveRef($refId: ID!, $oid: GitObjectID!) {
  updateRef(input: {refId: $refId, oid: $oid, force: true}) { ref { id } }
}
"""
COMMIT_FILE = """
mutation ConsensusCommitFile($branch: CommittableBranch!, $message: CommitMessage!,
                             $changes: FileChanges!, $head: GitObjectID!) {
  createCommitOnBranch(input: {branch: $branch, message: $message, fileChanges: $changes,
                               expectedHeadOid: $head}) { commit { oid } }
}
"""
OPEN_PULL = """
mutation ConsensusOpenPull($repositoryId: ID!, $base: String!, $head: String!,
                           $title: String!, $body: String!) {
  createPullRequest(input: {repositoryId: $repositoryId, baseRefName: $base,
                            headRefName: $head, title: $title, body: $body}) {
    pullRequest { number }
  }
}
"""


def _editor(node: dict[str, Any]) -> CommentEdit | None:
    return comment_edit_of({"node": node})


def closed_page(data: dict[str, Any], since: str) -> tuple[list[ClosedPullThread], str | None]:
    """One page of closed PRs updated after `since` (all when it is empty), and the cursor
    of the next page (None: the last one, or the rest were updated before `since`)."""
    page = ((data.get("repository") or {}).get("pullRequests")) or {}
    pulls: list[ClosedPullThread] = []
    older = False
    for node in page.get("nodes") or ():
        if since and str(node.get("updatedAt") or "") <= since:
            older = True
            continue
        nodes = ((node.get("comments") or {}).get("nodes")) or []
        pulls.append(
            ClosedPullThread(
                number=int(node["number"]),
                closed_at=str(node.get("closedAt") or ""),
                merged=bool(node.get("merged")),
                comments=tuple(_thread_comment(c) for c in nodes),
                edits=tuple(_editor(c) for c in nodes),
            )
        )
    info = page.get("pageInfo") or {}
    more = info.get("hasNextPage") and info.get("endCursor") and not older
    return pulls, str(info["endCursor"]) if more else None


def learnings_branch_of(data: dict[str, Any], branch: str) -> LearningsBranch:
    repository = data.get("repository") or {}
    default = repository.get("defaultBranchRef") or {}
    ref = repository.get("ref") or {}
    pulls = ((repository.get("pullRequests") or {}).get("nodes")) or []
    return LearningsBranch(
        name=branch,
        repository_id=str(repository.get("id") or ""),
        default_branch=str(default.get("name") or "main"),
        default_oid=str((default.get("target") or {}).get("oid") or ""),
        ref_id=str(ref["id"]) if ref.get("id") else None,
        head_oid=str((ref.get("target") or {}).get("oid") or "") or None,
        open_pull=int(pulls[0]["number"]) if pulls else None,
    )


def commit_variables(
    repo: str, branch: LearningsBranch, path: str, text: str, message: str
) -> dict[str, Any]:
    """createCommitOnBranch's variables: `path` as `text`, on top of the default branch."""
    return {
        "branch": {"repositoryNameWithOwner": repo, "branchName": branch.name},
        "message": {"headline": message},
        "changes": {
            "additions": [{"path": path, "contents": base64.b64encode(text.encode()).decode()}]
        },
        "head": branch.default_oid,
    }


def closed_since(
    graphql: Callable[[str, dict[str, Any]], dict[str, Any]], repo: str, since: str
) -> list[ClosedPullThread]:
    """Every closed PR updated after `since`, page by page, newest first."""
    owner, name = repo.split("/", 1)
    pulls: list[ClosedPullThread] = []
    cursor: str | None = None
    while True:
        variables = {"owner": owner, "name": name, "cursor": cursor}
        page, cursor = closed_page(graphql(CLOSED_PULLS, variables), since)
        pulls += page
        if cursor is None:
            return pulls


def branch_at_default(branch: LearningsBranch) -> tuple[str, dict[str, Any]]:
    """The mutation that puts `branch` at the default branch's head: created, or moved."""
    if branch.ref_id is None:
        name = f"refs/heads/{branch.name}"
        return CREATE_REF, {
            "repositoryId": branch.repository_id,
            "name": name,
            "oid": branch.default_oid,
        }
    return MOVE_REF, {"refId": branch.ref_id, "oid": branch.default_oid}
