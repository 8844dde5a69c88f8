"""Held to GitHub's own descriptions (the npm packages in .ci/github-api, pinned):

- every method of the GitHub adapter sends a request GitHub's OpenAPI description accepts,
  and the loopback GitHub answers with bodies valid against it (tests/conftest.py checks
  the same for every loopback test of the suite);
- the checker itself finds what GitHub would refuse or silently ignore;
- the Action accepts every `pull_request`, `pull_request_target`, `issue_comment`,
  `pull_request_review` and `workflow_dispatch` example of `@octokit/webhooks-examples`
  (and a `schedule` payload as GitHub documents it: the package has no example of it).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus.action.main import run
from consensus.adapters.github import GitHubHost
from consensus.adapters.github_graphql import (
    EDIT_QUERY,
    RESOLVE_THREAD,
    REVIEW_THREADS,
    UNRESOLVE_THREAD,
)
from consensus.adapters.github_learnings import (
    CLOSED_PULLS,
    CREATE_REF,
    DESCRIBE_PULL,
    LEARNINGS_BRANCH,
    MOVE_REF,
    OPEN_PULL,
)
from consensus.ports import InlineComment, PullFile, PullRequestInfo
from consensus.testing import FakeGitHubHost, FakePull
from consensus_sim.github_server import FakeGitHub, PullRequest, human
from tests.contract.github_openapi import (
    EXAMPLES,
    NOT_INSTALLED,
    GitHubDescription,
    description,
    graphql_problems,
    graphql_schema,
    problems_of,
    webhook_examples,
)

REPO = "acme/service"
PATCH = "@@ -1,2 +1,3 @@\n a\n+b\n c"


@pytest.fixture(scope="module")
def github_api() -> GitHubDescription:
    found = description()
    if found is None:
        pytest.skip(NOT_INSTALLED)
    return found


@pytest.fixture
def server() -> Iterator[FakeGitHub]:
    with FakeGitHub() as github:
        repo = github.repo(REPO)
        repo.snapshots["b" * 40] = {".consensus.yml": "threshold: 0.5\n", "p/a.md": "x"}
        repo.snapshots["h" * 40] = {".consensus.yml": "threshold: 0.5\n", "p/a.md": "xy"}
        repo.ancestors["h" * 40] = {"b" * 40, "h" * 40}
        files = [{"filename": "p/a.md", "status": "modified", "additions": 1, "patch": PATCH}]
        repo.pulls[1] = PullRequest(number=1, head_sha="h" * 40, base_sha="b" * 40, files=files)
        repo.labels[1] = ["agent"]
        repo.permissions["alice"] = "maintain"
        repo.branches["main"] = "b" * 40
        yield github


def read_large(host: GitHubHost, github: FakeGitHub) -> str | None:
    """A file over the contents API's limit (lowered here): its blob is read instead."""
    github.repos[REPO].large_file_bytes = 1
    try:
        return host.read_file("p/a.md", "h" * 40)
    finally:
        github.repos[REPO].large_file_bytes = 1_000_000


def every_adapter_call(host: GitHubHost, github: FakeGitHub) -> set[str]:
    """Each public method of the adapter, once; the names called."""
    comment = github.add_issue_comment(REPO, 1, "/consensus help", human("alice"))
    inline = InlineComment(path="p/a.md", line=2, start_line=1, body="**high** · x")
    calls = {
        "pull_request": lambda: host.pull_request(1),
        "pull_files": lambda: host.pull_files(1),
        "read_file": lambda: (
            host.read_file(".consensus.yml", "b" * 40),
            read_large(host, github),
        ),
        "read_files": lambda: host.read_files([".consensus.yml", "AGENTS.md"], "b" * 40),
        "list_dir": lambda: host.list_dir("p", "b" * 40),
        "archive": lambda: host.archive("h" * 40),
        "issue_comments": lambda: host.issue_comments(1),
        "review_comments": lambda: host.review_comments(1),
        "comment_edit": lambda: host.comment_edit(host.issue_comments(1)[0]),
        "default_branch": host.default_branch,
        "viewer_login": host.viewer_login,
        "open_pulls": host.open_pulls,
        "pull_reviews": lambda: host.pull_reviews(1),
        "collaborator_permission": lambda: host.collaborator_permission("alice"),
        "create_issue_comment": lambda: host.create_issue_comment(1, "summary"),
        "edit_issue_comment": lambda: host.edit_issue_comment(1, int(comment["id"]), "edited"),
        "add_reaction": lambda: host.add_reaction(1, int(comment["id"]), "eyes"),
        "create_review": lambda: host.create_review(
            1, commit_sha="h" * 40, body="review", event="COMMENT", comments=[inline]
        ),
        # GraphQL (POST /graphql): checked against GitHub's GraphQL schema below.
        "review_threads": lambda: host.review_threads(1),
        "set_thread_resolved": lambda: host.set_thread_resolved(
            1, host.review_threads(1)[0].id, True
        ),
        "review_comment_reactions": lambda: host.review_comment_reactions(
            1, int(github.repos[REPO].review_comments[0]["id"])
        ),
        "reply_to_review_comment": lambda: host.reply_to_review_comment(
            1, int(github.repos[REPO].review_comments[0]["id"]), "an answer"
        ),
        "delete_review_comment": lambda: host.delete_review_comment(
            1, int(github.repos[REPO].review_comments[0]["id"])
        ),
        "delete_issue_comment": lambda: host.delete_issue_comment(1, int(comment["id"])),
        "add_labels": lambda: host.add_labels(1, ["consensus:ready"]),
        "remove_label": lambda: host.remove_label(1, "consensus:ready"),
        "request_reviewers": lambda: host.request_reviewers(1, ["alice"], ["backend"]),
        "closed_pulls": lambda: host.closed_pulls(""),
        "learnings_branch": lambda: host.learnings_branch("consensus/learnings"),
        "commit_learnings": lambda: host.commit_learnings(
            host.learnings_branch("consensus/learnings"),
            ".consensus/learned.yml",
            "version: 1\n",
            "m",
        ),
        "open_learnings_pull": lambda: host.open_learnings_pull(
            host.learnings_branch("consensus/learnings"), "learnings", "body"
        ),
        "describe_learnings_pull": lambda: host.describe_learnings_pull(
            host.learnings_branch("consensus/learnings"), "counted again"
        ),
        "close": host.close,  # no request: the run is over
    }
    for call in calls.values():
        call()
    return set(calls)


def test_every_adapter_method_sends_what_github_accepts(
    github_api: GitHubDescription, server: FakeGitHub
) -> None:
    host = GitHubHost(REPO, token="ghs_fake", base_url=server.url, write_interval_s=0)
    called = every_adapter_call(host, server)
    public = {
        name
        for name, member in inspect.getmembers(GitHubHost, inspect.isfunction)
        if not name.startswith("_")
    }
    assert called == public, "a new adapter method needs a call here"
    assert len(server.requests) >= len(called)
    assert problems_of(server.requests, github_api) == []


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "problem"),
    [
        ("GET", "/repos/a/b/pulls/1", {}, None, None),
        ("GET", "/repos/a/b/pulls/one", {}, None, "pull_number: 'one' is not an integer"),
        ("GET", "/repos/a/b/pullz/1", {}, None, "no such operation"),
        ("GET", "/repos/a/b/pulls", {"state": "opened"}, None, "'opened' is not one of"),
        ("GET", "/repos/a/b/pulls", {"per_pages": "100"}, None, "'per_pages' is not one"),
        ("GET", "/repos/a/b/contents/src/app/db.py", {"ref": "main"}, None, None),
        (
            "POST",
            "/repos/a/b/pulls/1/requested_reviewers",
            None,
            {"reviewers": ["x"], "team_reviewer": ["y"]},
            "team_reviewer: not a property GitHub knows",
        ),
        (
            "POST",
            "/repos/a/b/pulls/1/reviews",
            None,
            {"event": "COMMENTED", "body": "x"},
            "'COMMENTED' is not one of",
        ),
        (
            "POST",
            "/repos/a/b/pulls/1/reviews",
            None,
            {"event": "COMMENT", "comments": [{"path": "a", "body": "b", "lines": 3}]},
            "comments[].lines: not a property",
        ),
        ("DELETE", "/repos/a/b/issues/comments/5", None, {"body": "x"}, "takes no JSON body"),
    ],
)
def test_the_checker_finds_what_github_would_refuse_or_ignore(
    github_api: GitHubDescription,
    method: str,
    path: str,
    query: dict[str, str] | None,
    body: Any,
    problem: str | None,
) -> None:
    problems = github_api.request_problems(method, path, query or {}, body)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_our_graphql_documents_are_valid_in_githubs_schema() -> None:
    schema = graphql_schema()
    if schema is None:
        pytest.skip(NOT_INSTALLED)
    learnings = (CLOSED_PULLS, LEARNINGS_BRANCH, CREATE_REF, MOVE_REF, OPEN_PULL, DESCRIBE_PULL)
    for document in (REVIEW_THREADS, RESOLVE_THREAD, UNRESOLVE_THREAD, EDIT_QUERY, *learnings):
        assert graphql_problems({"query": document}, schema) == []
    wrong_input = "mutation($id: ID!) { resolveReviewThread(input: {id: $id}) { thread { id } } }"
    assert any("threadId" in p for p in graphql_problems({"query": wrong_input}, schema))
    no_field = '{ repository(owner: "a", name: "b") { pullRequest(number: 1) { threads { id } } } }'
    assert graphql_problems({"query": no_field}, schema)
    assert graphql_problems({"query": "{ unclosed"}, schema)


def test_the_checker_finds_an_answer_github_would_not_give(
    github_api: GitHubDescription,
) -> None:
    path = "/repos/a/b/issues/1/comments"
    short = {"id": 1, "body": "x", "user": {"login": "x", "type": "Bot"}}
    assert github_api.response_problems("POST", path, 201, short)
    assert github_api.response_problems("POST", path, 200, short)[0].endswith("the fake 200")
    assert github_api.response_problems("POST", path, 422, short) == []  # errors: not checked


# --------------------------------------------------------------------------- webhooks

EVENTS = (
    "pull_request",
    "pull_request_target",
    "issue_comment",
    "pull_request_review",
    "pull_request_review_comment",
)
# GitHub's documented payload of a scheduled run (the package has no `schedule` example).
SCHEDULE = {"schedule": "17 */6 * * *", "workflow": ".github/workflows/consensus.yml"}


def _examples() -> list[Any]:
    if not EXAMPLES.is_dir():
        return [pytest.param("pull_request", {}, marks=pytest.mark.skip(reason=NOT_INSTALLED))]
    cases = []
    for event in (*EVENTS, "workflow_dispatch"):
        # pull_request_target carries pull_request's payload (GitHub documents one for both).
        source = "pull_request" if event == "pull_request_target" else event
        for name, payload in webhook_examples(source):
            cases.append(pytest.param(event, payload, id=f"{event}-{name}"))
    cases.append(pytest.param("schedule", SCHEDULE, id="schedule-documented"))
    return cases


def _host_for(payload: dict[str, Any]) -> FakeGitHubHost:
    """The in-memory GitHub holding the example's PR, a draft (its review stops there)."""
    host = FakeGitHubHost()
    number = (payload.get("pull_request") or payload.get("issue") or {}).get("number") or 1
    info = PullRequestInfo(
        number=number, head_sha="h" * 40, base_sha="b" * 40, base_repo=REPO, draft=True
    )
    host.add_pull(FakePull(info=info, files=[PullFile(path="a.py", status="modified")]))
    return host


@pytest.mark.parametrize(("event", "payload"), _examples())
def test_the_action_accepts_every_webhook_example(
    event: str, payload: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    env = {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_TOKEN": "ghs_fake",
    }
    lines: list[str] = []
    assert run(env, log=lines.append, host=_host_for(payload)) == 0, lines
    assert not any("not a valid" in line for line in lines)


def test_there_are_examples_of_every_event_the_action_handles() -> None:
    if not EXAMPLES.is_dir():
        pytest.skip(NOT_INSTALLED)
    for event in (*EVENTS[2:], "pull_request", "workflow_dispatch"):
        assert webhook_examples(event), event
    actions = {p.get("action") for _, p in webhook_examples("pull_request")}
    assert {"opened", "synchronize", "reopened", "ready_for_review", "closed"} <= actions
