"""What the scheduled learnings run sends GitHub, and reads back: closed pull requests with
their conversation (our summary's state holds the outcomes), the branch and pull request
that carry `.consensus/learned.yml`, and the writes that propose the file. No PyGithub here:
adapters/github.py sends them.

The file is proposed as one commit on top of the default head, made apart from any branch
(REST: a tree on the default head's tree, then a commit whose parent is the default head),
and the branch `consensus/learnings` is then created at it, or moved to it with one forced
`updateRef`. The branch is never put at the default head itself, even for a moment: GitHub
closes a pull request whose head has no commit beyond its base, so the open learnings pull
request would be closed rather than updated.
"""

from __future__ import annotations

from typing import Any

from consensus.adapters.github_graphql import GraphQL, comment_edit_of, every_page, thread_comment
from consensus.errors import GitHubError
from consensus.ports import ClosedPullThread, CommentEdit, LearningsBranch

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
        number closedAt updatedAt merged headRefName isCrossRepository
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
    defaultBranchRef { name target { oid ... on Commit { tree { oid } } } }
    ref(qualifiedName: $ref) { id target { oid } }
    pullRequests(headRefName: $branch, states: [OPEN], first: 1) { nodes { number id } }
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
DESCRIBE_PULL = """
mutation ConsensusDescribePull($id: ID!, $body: String!) {
  updatePullRequest(input: {pullRequestId: $id, body: $body}) { pullRequest { number } }
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
                head_ref=str(node.get("headRefName") or ""),
                cross_repository=bool(node.get("isCrossRepository")),
                comments=tuple(thread_comment(c) for c in nodes),
                edits=tuple(_editor(c) for c in nodes),
            )
        )
    info = page.get("pageInfo") or {}
    more = info.get("hasNextPage") and info.get("endCursor") and not older
    return pulls, str(info["endCursor"]) if more else None


def closed_since(graphql: GraphQL, repo: str, since: str) -> list[ClosedPullThread]:
    """Every closed PR updated after `since`, page by page, newest first."""
    owner, name = repo.split("/", 1)
    variables = {"owner": owner, "name": name}
    return every_page(graphql, CLOSED_PULLS, variables, lambda data: closed_page(data, since))


def learnings_branch_of(data: dict[str, Any], branch: str) -> LearningsBranch:
    repository = data.get("repository") or {}
    default = repository.get("defaultBranchRef") or {}
    target = default.get("target") or {}
    ref = repository.get("ref") or {}
    pulls = ((repository.get("pullRequests") or {}).get("nodes")) or []
    return LearningsBranch(
        name=branch,
        repository_id=str(repository.get("id") or ""),
        default_branch=str(default.get("name") or "main"),
        default_oid=str(target.get("oid") or ""),
        default_tree=str((target.get("tree") or {}).get("oid") or ""),
        ref_id=str(ref["id"]) if ref.get("id") else None,
        head_oid=str((ref.get("target") or {}).get("oid") or "") or None,
        open_pull=int(pulls[0]["number"]) if pulls else None,
        open_pull_id=str(pulls[0].get("id") or "") if pulls else "",
    )


def branch_query(repo: str, name: str) -> tuple[str, dict[str, Any]]:
    """The query for the learnings branch `name`, the default branch and the open PR."""
    owner, repository = repo.split("/", 1)
    asked = {"owner": owner, "name": repository, "ref": f"refs/heads/{name}", "branch": name}
    return LEARNINGS_BRANCH, asked


def open_request(branch: LearningsBranch, title: str, body: str) -> tuple[str, dict[str, Any]]:
    """createPullRequest from the learnings branch into the default branch."""
    asked = {"repositoryId": branch.repository_id, "base": branch.default_branch}
    return OPEN_PULL, asked | {"head": branch.name, "title": title, "body": body}


def describe_request(branch: LearningsBranch, body: str) -> tuple[str, dict[str, Any]]:
    """updatePullRequest of the open learnings PR's description."""
    if not branch.open_pull_id:
        raise GitHubError(f"GitHub did not give the node id of PR #{branch.open_pull}")
    return DESCRIBE_PULL, {"id": branch.open_pull_id, "body": body}


def tree_body(branch: LearningsBranch, path: str, text: str) -> dict[str, Any]:
    """`POST /git/trees`: the default head's tree with `path` written as `text`."""
    if not branch.default_oid or not branch.default_tree:
        raise GitHubError(
            f"cannot propose {path}: the default branch {branch.default_branch} has no commit",
            fix="push a first commit to the default branch",
        )
    entry = {"path": path, "mode": "100644", "type": "blob", "content": text}
    return {"base_tree": branch.default_tree, "tree": [entry]}


def commit_body(branch: LearningsBranch, tree: dict[str, Any], message: str) -> dict[str, Any]:
    """`POST /git/commits`: the tree `POST /git/trees` answered, on top of the default head."""
    return {"message": message, "tree": str(tree["sha"]), "parents": [branch.default_oid]}


def branch_to(branch: LearningsBranch, oid: str) -> tuple[str, dict[str, Any]]:
    """The one mutation that puts `branch` at commit `oid`: created there, or moved there
    from wherever it was (forced: the old head is not an ancestor of a commit on top of
    the default head)."""
    if branch.ref_id is None:
        name = f"refs/heads/{branch.name}"
        return CREATE_REF, {"repositoryId": branch.repository_id, "name": name, "oid": oid}
    return MOVE_REF, {"refId": branch.ref_id, "oid": oid}
