"""The loopback GitHub does to a pull request what GitHub does when its head branch moves:
its head (and its files) follow the branch, and a pull request whose branch is moved to no
commit beyond its base is closed at that moment. It is as strict as GitHub about the writes
that move a branch: a non-forced updateRef must be a fast-forward, createCommitOnBranch
needs the branch's head as expectedHeadOid, and a pull request needs a commit beyond its
base. Every GraphQL document sent here is one GitHub's schema accepts. (The in-memory
fake's part: tests/flows/test_learnings_flow.py.)"""

from __future__ import annotations

import base64
from typing import Any

from consensus.adapters.github_learnings import CREATE_REF, LEARNINGS_BRANCH, MOVE_REF, OPEN_PULL
from consensus_sim import github_graphql, github_learnings
from consensus_sim.github_server import PullRequest, Repo
from tests.contract.github_openapi import graphql_problems, graphql_schema

REPO, BASE, BRANCH = "acme/service", "b" * 40, "consensus/learnings"
LEARNED = ".consensus/learned.yml"
# createCommitOnBranch, as GitHub serves it (an earlier learnings run committed with it).
COMMIT_ON_BRANCH = """
mutation ConsensusCommitFile($branch: CommittableBranch!, $message: CommitMessage!,
                             $changes: FileChanges!, $head: GitObjectID!) {
  createCommitOnBranch(input: {branch: $branch, message: $message, fileChanges: $changes,
                               expectedHeadOid: $head}) { commit { oid } }
}
"""
FAST_FORWARD_ONLY = """
mutation ConsensusMoveRef($refId: ID!, $oid: GitObjectID!) {
  updateRef(input: {refId: $refId, oid: $oid}) { ref { id } }
}
"""


class World:
    """A repository whose branch `consensus/learnings` has one commit beyond main, and the
    pull request open from it."""

    def __init__(self) -> None:
        self.repo = Repo(REPO, snapshots={BASE: {"a.py": "x = 1\n"}}, branches={"main": BASE})
        self.repo.now = "2026-11-02T09:00:00Z"
        asked = {"owner": "acme", "name": "service", "branch": BRANCH}
        found = self.send(LEARNINGS_BRANCH, **asked, ref=f"refs/heads/{BRANCH}")
        self.repository_id = found["data"]["repository"]["id"]
        made = self.send(
            CREATE_REF, repositoryId=self.repository_id, name=f"refs/heads/{BRANCH}", oid=BASE
        )
        self.ref_id = made["data"]["createRef"]["ref"]["id"]
        self.commit_on_branch("version: 1\n", head=BASE)
        opened = self.open_pull()
        self.pull = self.repo.pulls[
            int(opened["data"]["createPullRequest"]["pullRequest"]["number"])
        ]

    def send(self, query: str, **variables: Any) -> dict[str, Any]:
        schema = graphql_schema()
        if schema is not None:
            assert graphql_problems({"query": query, "variables": variables}, schema) == []
        body = {"query": query, "variables": variables}
        status, answer = github_graphql.answer({REPO: self.repo}, body, PullRequest)
        assert status == 200
        return answer

    def commit_on_branch(self, text: str, *, head: str) -> dict[str, Any]:
        changes = {
            "additions": [{"path": LEARNED, "contents": base64.b64encode(text.encode()).decode()}]
        }
        branch = {"repositoryNameWithOwner": REPO, "branchName": BRANCH}
        message = {"headline": "learnings"}
        return self.send(
            COMMIT_ON_BRANCH, branch=branch, message=message, changes=changes, head=head
        )

    def open_pull(self) -> dict[str, Any]:
        asked = {"repositoryId": self.repository_id, "base": "main", "head": BRANCH}
        return self.send(OPEN_PULL, **asked, title="consensus: learnings", body="counted")

    def commit_apart(self, text: str) -> str:
        """A tree on main's and a commit of it on top of main (REST), on no branch yet."""
        base_tree = github_learnings.tree_of(self.repo, BASE)
        entry = {"path": LEARNED, "mode": "100644", "type": "blob", "content": text}
        status, tree = github_learnings.git_write(
            self.repo, "trees", {"base_tree": base_tree, "tree": [entry]}
        )
        assert status == 201
        body = {"message": "learnings", "tree": tree["sha"], "parents": [BASE]}
        status, commit = github_learnings.git_write(self.repo, "commits", body)
        assert status == 201 and commit["parents"][0]["sha"] == BASE
        return str(commit["sha"])


def test_a_pull_request_follows_its_branch_and_closes_when_it_is_reset_to_its_base() -> None:
    world = World()
    assert world.pull.state == "open" and world.pull.head_sha == world.repo.branches[BRANCH]
    world.commit_on_branch("version: 1\nfamilies: {}\n", head=world.pull.head_sha)
    assert world.pull.head_sha == world.repo.branches[BRANCH]  # the push is the PR's head
    assert world.send(MOVE_REF, refId=world.ref_id, oid=BASE).get("errors") is None
    assert (world.pull.state, world.pull.closed_at) == ("closed", "2026-11-02T09:00:00Z")


def test_a_commit_made_apart_then_one_forced_move_keeps_the_pull_request_open() -> None:
    world = World()
    oid = world.commit_apart("version: 1\nupdated_through: '2026-11-01T00:00:00Z'\n")
    assert world.pull.head_sha != oid  # nothing moved yet
    assert world.send(MOVE_REF, refId=world.ref_id, oid=oid).get("errors") is None
    assert world.pull.state == "open" and world.pull.head_sha == oid
    assert [f["filename"] for f in world.pull.files] == [LEARNED]
    assert world.repo.snapshots[oid] == {
        "a.py": "x = 1\n",
        LEARNED: "version: 1\nupdated_through: '2026-11-01T00:00:00Z'\n",
    }


def test_github_refuses_what_would_lose_work_or_open_an_empty_pull_request() -> None:
    world = World()
    stale = world.commit_on_branch("version: 1\n", head=BASE)  # not the branch's head
    assert stale["errors"][0]["type"] == "STALE_DATA"
    apart = world.commit_apart("version: 1\npersonas: {}\n")
    refused = world.send(FAST_FORWARD_ONLY, refId=world.ref_id, oid=apart)
    assert refused["errors"][0]["message"] == "Update is not a fast forward"
    assert world.pull.state == "open"
    world.send(MOVE_REF, refId=world.ref_id, oid=BASE)  # closed: no commit beyond main
    again = world.open_pull()
    assert again["errors"][0]["message"] == f"No commits between main and {BRANCH}"
