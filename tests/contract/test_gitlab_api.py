"""Held to GitLab's REST API as python-gitlab defines it (tests/contract/gitlab_api.py):

- every method of the GitLab adapter, run once against the loopback GitLab, sends
  requests the definitions accept; the requests no definition covers are exactly the
  ones docs/gitlab.md lists (tests/conftest.py checks every loopback GitLab of the suite);
- the checker itself finds what GitLab would refuse or silently drop.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.adapters.gitlab import GitLabHost
from consensus.ports import InlineComment
from consensus_sim.gitlab import DEVELOPER, MAINTAINER, FakeGitLab
from tests.contract.gitlab_api import definition, problems_of, request_problems, uncovered

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "glpat-contract-bot"
BASE = {
    ".consensus.yml": "threshold: 0.5\n",
    "app/tax.py": "RATE = 0.2\n\n\ndef tax(x):\n    return x * RATE\n",
}
HEAD = {**BASE, "app/tax.py": "RATE = 0.21\n\n\ndef tax(x):\n    return round(x * RATE, 2)\n"}


@pytest.fixture
def server() -> Iterator[FakeGitLab]:
    with FakeGitLab() as gitlab:
        gitlab.project("acme/service", ident=7)
        gitlab.user("project_7_bot_ab12", bot=True, token=TOKEN)
        gitlab.add_member("acme/service", "project_7_bot_ab12", DEVELOPER)
        gitlab.add_member("acme/service", "maria", MAINTAINER)
        gitlab.add_merge_request("acme/service", 3, base=BASE, head=HEAD)
        yield gitlab


def every_adapter_call(host: GitLabHost, gitlab: FakeGitLab) -> set[str]:
    """Each public method of the adapter, once; the names called."""
    note = gitlab.add_note("acme/service", 3, "/consensus help", "maria")
    inline = InlineComment(path="app/tax.py", line=5, start_line=4, body="**high** · rounding")
    calls = {
        "pull_request": lambda: host.pull_request(3),
        "pull_files": lambda: host.pull_files(3),
        "read_file": lambda: host.read_file(".consensus.yml", host.pull_request(3).base_sha),
        "read_files": lambda: host.read_files([".consensus.yml", "AGENTS.md"], "main"),
        "archive": lambda: host.archive(host.pull_request(3).head_sha),
        "list_dir": lambda: host.list_dir("app", "main"),
        "default_branch": host.default_branch,
        "viewer_login": host.viewer_login,
        "collaborator_permission": lambda: host.collaborator_permission("maria"),
        "issue_comments": lambda: host.issue_comments(3),
        "create_issue_comment": lambda: host.create_issue_comment(3, "summary"),
        "edit_issue_comment": lambda: host.edit_issue_comment(
            3, host.issue_comments(3)[-1].id, "s2"
        ),
        "comment_edit": lambda: host.comment_edit(host.issue_comments(3)[-1]),
        "add_reaction": lambda: host.add_reaction(3, int(note["id"]), "eyes"),
        "create_review": lambda: host.create_review(
            3, commit_sha="", body="review", event="COMMENT", comments=[inline]
        ),
        "review_comments": lambda: host.review_comments(3),
        "review_threads": lambda: host.review_threads(3),
        "reply_to_review_comment": lambda: host.reply_to_review_comment(
            3, host.review_comments(3)[0].id, "an answer"
        ),
        "review_comment_reactions": lambda: host.review_comment_reactions(
            3, host.review_comments(3)[0].id
        ),
        "set_thread_resolved": lambda: host.set_thread_resolved(
            3, host.review_threads(3)[0].id, True
        ),
        "delete_review_comment": lambda: host.delete_review_comment(
            3, host.review_comments(3)[-1].id
        ),
        "delete_issue_comment": lambda: host.delete_issue_comment(3, host.issue_comments(3)[-1].id),
        "close": host.close,  # no request: the run is over
        "words": lambda: host.words,  # no request: GitLab's words are the adapter's own
    }
    for call in calls.values():
        call()
    return set(calls)


def documented_uncovered() -> set[str]:
    """The requests docs/gitlab.md says python-gitlab's definitions do not cover."""
    page = (ROOT / "docs" / "gitlab.md").read_text(encoding="utf-8")
    section = page.split("<!-- uncovered:start -->", 1)[1].split("<!-- uncovered:end -->", 1)[0]
    return set(re.findall(r"^- `([A-Z]+ [^`]+)`", section, re.MULTILINE))


def test_every_adapter_method_sends_what_gitlab_takes(server: FakeGitLab) -> None:
    host = GitLabHost("7", token=TOKEN, api_url=server.api_url)
    called = every_adapter_call(host, server)
    public = {n for n, _ in vars(GitLabHost).items() if not n.startswith("_")}
    assert called == public, f"not exercised: {sorted(public - called)}"
    assert all(r.status < 400 or r.status == 404 for r in server.requests)
    assert problems_of(server.requests) == []
    assert uncovered(server.requests) == documented_uncovered()


def test_a_misspelt_or_missing_body_key_is_found() -> None:
    path = "/projects/7/merge_requests/3/notes"
    assert request_problems("POST", path, {}, {"body": "x"}) == []
    problems = request_problems("POST", path, {}, {"bodyy": "x"})
    assert any("'body' is required" in p for p in problems)
    assert any("'bodyy' is not one GitLab takes" in p for p in problems)


def test_a_position_attribute_gitlab_does_not_know_is_found() -> None:
    path = "/projects/7/merge_requests/3/discussions"
    position = {
        "position_type": "text",
        "new_line": 4,
        "line": 4,
        "line_range": {"start": {"type": "new"}, "end": {"line_code": "a_1_1"}},
    }
    problems = request_problems("POST", path, {}, {"body": "x", "position": position})
    assert any("'line' is not a position attribute" in p for p in problems)
    assert any("line_range.start: line_code is required" in p for p in problems)


def test_an_undeclared_filter_and_a_non_integer_iid_are_found() -> None:
    assert request_problems("GET", "/users", {"username": "maria"}, None) == []
    assert any("'login'" in p for p in request_problems("GET", "/users", {"login": "maria"}, None))
    assert any(
        "mr_iid" in p
        for p in request_problems("GET", "/projects/7/merge_requests/x/notes", {}, None)
    )


def test_a_file_read_without_its_ref_is_found() -> None:
    path = "/projects/7/repository/files/app%2Ftax.py"
    assert definition("GET", path) is not None
    assert any("'ref' is required" in p for p in request_problems("GET", path, {}, None))
