"""The PyGithub adapter against the loopback fake GitHub: pagination, retries, 422s."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from github import GithubException

from consensus.adapters.archive_tree import ArchiveTrees
from consensus.adapters.github import GitHubHost, Retries
from consensus.adapters.github_wire import retry_wait
from consensus.errors import GitHubError
from consensus.ports import InlineComment, ReviewRejected
from consensus_sim.github_server import FakeGitHub, PullRequest, human

REPO = "acme/service"
PATCH = "@@ -1,2 +1,3 @@\n a\n+b\n c"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        repo = server.repo(REPO)
        repo.snapshots["base"] = {
            ".consensus.yml": "threshold: 0.5\n",
            "p/a.md": "x",
            "p/b.md": "y",
        }
        files = [{"filename": f"f{n}.py", "status": "modified", "patch": PATCH} for n in range(250)]
        files.append({"filename": "huge.py", "status": "modified", "additions": 9000})
        repo.pulls[1] = PullRequest(number=1, head_sha="h" * 40, base_sha="base", files=files)
        yield server


def host(server: FakeGitHub, waits: list[float] | None = None, **retries: object) -> GitHubHost:
    sleeps = waits if waits is not None else []
    return GitHubHost(
        REPO,
        token="ghs_fake",
        base_url=server.url,
        write_interval_s=0,
        retries=Retries(sleep=sleeps.append, **retries),  # type: ignore[arg-type]
    )


def test_pull_files_are_paginated_and_an_omitted_patch_is_none(github: FakeGitHub) -> None:
    files = host(github).pull_files(1)
    assert len(files) == 251 and files[0].patch == PATCH
    assert files[-1].path == "huge.py" and files[-1].patch is None
    pages = [r for r in github.requests if r.path.endswith("/pulls/1/files")]
    assert [r.query.get("page", "1") for r in pages] == ["1", "2", "3"]


def test_issue_comments_follow_link_headers(github: FakeGitHub) -> None:
    for n in range(205):
        github.add_issue_comment(REPO, 1, f"c{n}", human("alice"))
    comments = host(github).issue_comments(1)
    assert [c.body for c in comments] == [f"c{n}" for n in range(205)]
    assert not comments[0].author_is_bot and comments[0].author == "alice"
    assert len([r for r in github.requests if r.path.endswith("/issues/1/comments")]) == 3


def test_contents_at_a_ref(github: FakeGitHub) -> None:
    adapter = host(github)
    assert adapter.read_file(".consensus.yml", "base") == "threshold: 0.5\n"
    assert adapter.read_file("missing.yml", "base") is None
    assert adapter.read_file("../etc/passwd", "base") is None
    assert adapter.list_dir("p", "base") == ["a.md", "b.md"]
    assert adapter.list_dir("nowhere", "base") is None


def test_a_secondary_rate_limit_waits_for_retry_after(github: FakeGitHub) -> None:
    github.fail_next(
        "GET", "/pulls/1$", 403, headers={"Retry-After": "7"}, message="secondary rate limit"
    )
    waits: list[float] = []
    assert host(github, waits).pull_request(1).head_sha == "h" * 40
    assert waits == [7.0]


def test_5xx_are_retried_with_backoff_then_fail_with_a_fix(github: FakeGitHub) -> None:
    github.fail_next("GET", "/pulls/1$", 502, times=5)
    waits: list[float] = []
    with pytest.raises(GitHubError) as caught:
        host(github, waits, attempts=3).pull_request(1)
    assert waits == [1.0, 2.0]
    assert "HTTP 502" in str(caught.value) and caught.value.exit_code == 3


def test_a_wait_longer_than_the_cap_gives_up_and_says_so(github: FakeGitHub) -> None:
    github.fail_next("GET", "/pulls/1$", 429, headers={"Retry-After": "3600"})
    with pytest.raises(GitHubError, match="asked to wait 3600s"):
        host(github, max_wait_s=60).pull_request(1)


def test_bad_credentials_are_not_retried(github: FakeGitHub) -> None:
    github.fail_next("GET", "/pulls/1$", 401, message="Bad credentials")
    waits: list[float] = []
    with pytest.raises(GitHubError, match="github-token"):
        host(github, waits).pull_request(1)
    assert waits == []


def test_a_comment_that_landed_before_a_502_is_not_posted_twice(github: FakeGitHub) -> None:
    github.fail_next("POST", "/issues/1/comments$", 502, after=True)
    created = host(github).create_issue_comment(1, "<!-- consensus:summary -->\nhello")
    assert [c["id"] for c in github.repos[REPO].issue_comments] == [created.id]


def test_a_review_that_landed_before_a_502_is_not_posted_twice(github: FakeGitHub) -> None:
    github.fail_next("POST", "/pulls/1/reviews$", 502, after=True)
    comment = InlineComment(path="f1.py", line=2, body="x")
    adapter = host(github)
    body = "review\n<!-- consensus:review head=h -->"
    review_id = adapter.create_review(
        1, commit_sha="h" * 40, body=body, event="COMMENT", comments=[comment]
    )
    assert [r["id"] for r in github.repos[REPO].reviews] == [review_id]


def test_a_comment_outside_the_diff_rejects_the_review_with_422(github: FakeGitHub) -> None:
    comments = [
        InlineComment(path="f1.py", line=2, body="ok"),
        InlineComment(path="f1.py", line=9, body="no"),
    ]
    with pytest.raises(ReviewRejected) as caught:
        host(github).create_review(
            1, commit_sha="h" * 40, body="b", event="COMMENT", comments=comments
        )
    assert caught.value.errors == ("Pull request review thread line must be part of the diff",)
    assert github.repos[REPO].reviews == []  # nothing of it was stored


def test_multi_line_comments_send_start_line_on_the_right_side(github: FakeGitHub) -> None:
    comment = InlineComment(path="f1.py", line=3, start_line=1, body="range")
    host(github).create_review(
        1, commit_sha="h" * 40, body="b", event="REQUEST_CHANGES", comments=[comment]
    )
    [stored] = github.repos[REPO].review_comments
    assert (stored["start_line"], stored["line"], stored["side"]) == (1, 3, "RIGHT")
    [posted] = [r for r in github.requests if r.method == "POST"]
    assert posted.body["comments"][0]["start_side"] == "RIGHT"


def _error(status: int, headers: dict[str, str], message: str = "x") -> GithubException:
    return GithubException(status, {"message": message}, headers)


@pytest.mark.parametrize(
    ("status", "headers", "message", "attempt", "wait"),
    [
        (403, {"Retry-After": "30"}, "secondary rate limit", 1, 30.0),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1100"}, "rate", 1, 101.0),
        (429, {}, "slow down", 1, 60.0),  # GitHub's advice: at least a minute when it is silent
        (502, {}, "Bad Gateway", 1, 1.0),
        (503, {}, "Unavailable", 3, 4.0),
    ],
)
def test_how_long_to_wait(
    status: int, headers: dict[str, str], message: str, attempt: int, wait: float
) -> None:
    assert retry_wait(_error(status, headers, message), attempt, now=1000.0, base_s=1.0) == wait


def test_labels_and_reactions(github: FakeGitHub) -> None:
    adapter = host(github)
    comment = github.add_issue_comment(REPO, 1, "/consensus review", human("alice"))
    adapter.add_reaction(1, comment["id"], "eyes")
    adapter.add_labels(1, ["consensus:ready", "consensus:ready"])
    repo = github.repos[REPO]
    assert [r["content"] for r in repo.reactions] == ["eyes"]
    assert repo.labels[1] == ["consensus:ready"]


def test_a_commits_tarball_follows_the_redirect_to_codeload_and_reads_as_its_tree(
    github: FakeGitHub,
) -> None:
    """Judges read the PR's trees from tarballs where the checkout lacks the commits."""
    lines: list[str] = []
    adapter = GitHubHost(REPO, token="ghs_fake", base_url=github.url, log=lines.append)
    trees = ArchiveTrees(adapter.archive, "base", "h" * 40, log=lines.append)
    assert trees.paths("base") == (".consensus.yml", "p/a.md", "p/b.md")
    assert trees.read(["p/a.md"], "base") == {"p/a.md": b"x"}
    [asked] = [r for r in github.requests if "tarball" in r.path]
    assert (asked.method, asked.path, asked.status) == ("GET", f"/repos/{REPO}/tarball/base", 302)
    assert trees.paths("head") == ()  # no such commit: GitHub's 404, the tree is empty
    assert any("tarball of hhhhhhhhhhhh could not be read" in line for line in lines)
