"""Resolved means resolved on GitHub too: the rule as a table, the GraphQL adapter against
the loopback GitHub (github.com and GHES), then the Action over three pushes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consensus.adapters.github import GitHubHost
from consensus.errors import GitHubError
from consensus.model.base import Category, Severity, Status
from consensus.model.report import ReportFinding, Votes
from consensus.ports import HostComment, InlineComment, ReviewThread
from consensus.publish.plan import PlacedFinding, Placement, PublishPlan
from consensus.publish.resolution import ThreadChange, ThreadChanges, thread_changes
from consensus.publish.state import PublishState, TrackedFinding
from consensus.publish.thread import Identity, fingerprint_marker
from consensus.testing import FakeGitHubHost
from consensus_sim.github_server import FakeGitHub, PullRequest, human
from tests.e2e import test_action_e2e as e2e

FIXED, BACK, OTHER = "aaaa0000aaaa0000", "bbbb1111bbbb1111", "cccc2222cccc2222"


def comment(
    fingerprint: str | None, author: str = "github-actions[bot]", bot: bool = True
) -> HostComment:
    body = "**high** · x" + (f"\n{fingerprint_marker(fingerprint)}" if fingerprint else "")
    return HostComment(id=1, body=body, author=author, author_is_bot=bot, path="a.py", line=3)


def thread(
    first: HostComment, last: HostComment | None = None, *, resolved_by: str | None = "-"
) -> ReviewThread:
    resolved = resolved_by != "-"
    return ReviewThread(
        id="T",
        resolved=resolved,
        resolved_by=resolved_by if resolved else None,
        first=first,
        last=last or first,
    )


def tracked(fingerprint: str, resolved: bool = False) -> TrackedFinding:
    return TrackedFinding(
        fingerprint=fingerprint,
        id="F1",
        path="a.py",
        line=3,
        severity=Severity.HIGH,
        title="t",
        inline=True,
        resolved=resolved,
    )


def finding(fingerprint: str) -> ReportFinding:
    return ReportFinding(
        id="F1",
        fingerprint=fingerprint,
        path="a.py",
        line=3,
        end_line=3,
        severity=Severity.HIGH,
        category=Category.BUG,
        title="t",
        body="b",
        agreement=1.0,
        votes=Votes(**{"for": 2, "of": 2}),
        providers=["a/x", "b/y"],
        personas=["correctness"],
        status=Status.CONSENSUS,
    )


PLAN = PublishPlan(
    placed=(PlacedFinding(finding=finding(BACK), placement=Placement.INLINE_EARLIER),),
    review=None,
    resolved=(tracked(FIXED, resolved=True),),
    unchecked=(),
    state=PublishState(),
)


def wanted(earlier: set[str]) -> ThreadChanges:
    """What a run with PLAN changes, when the state marked `earlier` resolved before it."""
    return ThreadChanges(
        resolve=frozenset(t.fingerprint for t in PLAN.resolved),
        open_now=frozenset(p.finding.fingerprint for p in PLAN.placed if p.placement.inline),
        earlier=frozenset(earlier),
    )


HUMAN_REPLY = comment(None, author="alice", bot=False)
# The Action's own bot, and the personal token it also posts with (publish/thread.Identity).
OURS = Identity(logins=frozenset({"github-actions[bot]", "consensus-pat"}))


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (thread(comment(FIXED)), True),  # fixed by this push: resolve
        (thread(comment(FIXED), resolved_by="alice"), None),  # already resolved
        (thread(comment(FIXED), HUMAN_REPLY), None),  # a person wrote last: leave it
        (thread(comment(FIXED, "mallory", bot=False)), None),  # not our comment
        (thread(comment(FIXED, "consensus-pat", bot=False)), True),  # a trusted login
        (thread(comment(FIXED, "renovate[bot]")), None),  # another bot's: not ours
        (thread(comment(BACK), resolved_by=None), False),  # came back, resolved by an app
        (thread(comment(BACK), resolved_by="github-actions[bot]"), False),
        (thread(comment(BACK), resolved_by="alice"), None),  # a person resolved it
        (thread(comment(BACK), HUMAN_REPLY, resolved_by=None), None),
        (thread(comment(BACK)), None),  # open and open
        (thread(comment(OTHER), resolved_by=None), None),  # not checked this run
        (thread(comment(None)), None),  # no marker: not one of our findings
    ],
)
def test_which_threads_change(case: ReviewThread, expected: bool | None) -> None:
    changes = thread_changes([case], wanted({BACK, OTHER}), identity=OURS)
    fingerprint = (
        case.first.body.rsplit("=", 1)[-1].removesuffix(" -->") if expected is not None else ""
    )
    assert changes == (
        []
        if expected is None
        else [ThreadChange(thread_id="T", fingerprint=fingerprint, resolve=expected)]
    )


def test_an_app_resolution_is_reopened_only_after_a_run_resolved_the_finding() -> None:
    case = thread(comment(BACK), resolved_by=None)
    assert thread_changes([case], wanted(set())) == []


def test_a_marker_that_is_not_on_the_last_line_does_not_count() -> None:
    first = comment(None).model_copy(update={"body": f"{fingerprint_marker(FIXED)}\nmodel text"})
    assert thread_changes([thread(first)], wanted(set())) == []


def test_the_in_memory_host_keeps_threads_like_github() -> None:
    from consensus.ports import PullFile, PullRequestInfo
    from consensus.testing import FakePull

    host = FakeGitHubHost()
    info = PullRequestInfo(number=1, head_sha="h", base_sha="b", base_repo="a/b")
    patch = "@@ -1,1 +1,2 @@\n a\n+b"
    host.add_pull(
        FakePull(info=info, files=[PullFile(path="a.py", status="modified", patch=patch)])
    )
    host.create_review(
        1,
        commit_sha="h",
        body="r",
        event="COMMENT",
        comments=[InlineComment(path="a.py", line=2, body=f"x\n{fingerprint_marker(FIXED)}")],
    )
    [first] = host.review_comments(1)
    host.seed_reply(first.id, "not fixed", author="alice")
    [only] = host.review_threads(1)
    assert (only.first.id, only.last.author, only.resolved) == (first.id, "alice", False)
    host.set_thread_resolved(1, only.id, True)
    assert host.review_threads(1)[0].resolved
    with pytest.raises(GitHubError):
        host.set_thread_resolved(1, "PRRT_nope", True)


# --------------------------------------------------------------------------- the adapter


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        repo = server.repo("acme/service")
        patch = "@@ -1,1 +1,200 @@\n a\n" + "".join(f"+line {n}\n" for n in range(2, 201))
        files = [{"filename": "a.py", "status": "modified", "additions": 199, "patch": patch}]
        repo.pulls[1] = PullRequest(number=1, head_sha="h" * 40, base_sha="b" * 40, files=files)
        yield server


@pytest.mark.parametrize(("base", "graphql"), [("", "/graphql"), ("/api/v3", "/api/graphql")])
def test_threads_are_read_page_by_page_and_resolved_through_graphql(
    github: FakeGitHub, base: str, graphql: str
) -> None:
    host = GitHubHost("acme/service", token="t", base_url=github.url + base, write_interval_s=0)
    comments = [
        InlineComment(path="a.py", line=n, body=f"c{n}\n{fingerprint_marker(f'{n:016x}')}")
        for n in range(2, 152)
    ]
    host.create_review(1, commit_sha="h" * 40, body="r", event="COMMENT", comments=comments)
    first = github.repos["acme/service"].review_comments[0]
    github.add_review_reply("acme/service", 1, int(first["id"]), "why?", human("alice"))
    threads = host.review_threads(1)
    assert len(threads) == 150  # two pages of 100
    assert threads[0].last.author == "alice" and not threads[0].last.author_is_bot
    assert threads[1].first.author_is_bot and threads[1].first.author == "github-actions[bot]"
    host.set_thread_resolved(1, threads[1].id, True)
    assert [t.resolved for t in host.review_threads(1)][:3] == [False, True, False]
    host.set_thread_resolved(1, threads[1].id, False)
    assert not any(t.resolved for t in host.review_threads(1))
    posts = [r.path for r in github.requests if r.method == "POST" and "graphql" in r.path]
    assert posts and set(posts) == {graphql}
    assert all(
        r.path.startswith(base + "/repos/") for r in github.requests if "graphql" not in r.path
    )


def test_several_files_are_read_in_one_graphql_request(github: FakeGitHub) -> None:
    github.repos["acme/service"].snapshots["b" * 40] = {"AGENTS.md": "tabs", "x/y.md": "z"}
    host = GitHubHost("acme/service", token="t", base_url=github.url, write_interval_s=0)
    got = host.read_files(["AGENTS.md", "CLAUDE.md", "x/y.md", "../etc/passwd"], "b" * 40)
    assert got == {"AGENTS.md": "tabs", "CLAUDE.md": None, "x/y.md": "z", "../etc/passwd": None}
    assert [r.method for r in github.requests] == ["POST"]


def test_files_are_read_one_by_one_when_graphql_fails(github: FakeGitHub) -> None:
    github.repos["acme/service"].snapshots["b" * 40] = {"AGENTS.md": "tabs"}
    github.fail_next("POST", r"graphql$", 403, message="Resource not accessible by integration")
    lines: list[str] = []
    host = GitHubHost(
        "acme/service", token="t", base_url=github.url, write_interval_s=0, log=lines.append
    )
    assert host.read_files(["AGENTS.md", "CLAUDE.md"], "b" * 40) == {
        "AGENTS.md": "tabs",
        "CLAUDE.md": None,
    }
    assert any("reading the files one by one" in line for line in lines)


def test_a_graphql_error_is_a_github_error(github: FakeGitHub) -> None:
    host = GitHubHost("acme/service", token="t", base_url=github.url, write_interval_s=0)
    with pytest.raises(GitHubError, match="Could not resolve to a node"):
        host.set_thread_resolved(1, "PRRT_missing", True)


# --------------------------------------------------------------------------- the Action

world = e2e.world  # the loopback GitHub and providers around a git repository


def threads_of(world: e2e.World) -> dict[str, tuple[bool, str | None]]:
    """title (first words) → (resolved, resolved by) of each of our threads."""
    repo = world.github.repos[e2e.REPO]
    out = {}
    for c in repo.review_comments:
        if c.get("in_reply_to_id"):
            continue
        ident = f"PRRT_kwDO{c['id']:08d}"
        title = str(c["body"]).split("**")[3].split(" (")[0]
        out[title] = (ident in repo.thread_state, repo.thread_state.get(ident))
    return out


def test_a_fixed_finding_resolves_its_thread_and_unresolves_it_when_it_comes_back(
    world: e2e.World,
) -> None:
    world.open_pr()
    assert world.run().code == 0
    assert threads_of(world) == {
        "SQL injection": (False, None),
        "Off-by-one in loop": (False, None),
    }
    world.open_pr(head="fixed")
    fixed = world.run("synchronize")
    assert fixed.code == 0, fixed.stderr
    assert threads_of(world) == {"SQL injection": (True, None), "Off-by-one in loop": (False, None)}
    assert "review threads: resolved" in fixed.stderr
    e2e.git(world.repo, "checkout", "-q", "-b", "again", "fixed")
    e2e.commit(world.repo, {"src/app/db.py": e2e.DB_AFTER}, "the injection is back")
    world.open_pr(head="again")
    back = world.run("synchronize")
    assert back.code == 0, back.stderr
    assert threads_of(world) == {
        "SQL injection": (False, None),
        "Off-by-one in loop": (False, None),
    }
    assert "review threads: reopened" in back.stderr
    assert e2e.review_posts(back) == []  # reopened, not posted again


def test_threads_a_person_spoke_in_or_resolved_are_left_alone(world: e2e.World) -> None:
    world.open_pr()
    assert world.run().code == 0
    repo = world.github.repos[e2e.REPO]
    sql = next(c for c in repo.review_comments if "SQL injection" in c["body"])
    world.github.add_review_reply(e2e.REPO, e2e.NUMBER, int(sql["id"]), "Is it?", human("alice"))
    world.open_pr(head="fixed")
    run = world.run("synchronize")
    assert run.code == 0, run.stderr
    assert threads_of(world)["SQL injection"] == (False, None)  # alice wrote last
    assert "review threads" not in run.stderr
    # A person resolves the loop thread; the loop bug is still there on the next push.
    loop = next(c for c in repo.review_comments if "Off-by-one" in c["body"])
    world.github.resolve_thread_as(e2e.REPO, int(loop["id"]), "bob")
    e2e.commit(world.repo, {"README.md": "docs\n"}, "docs")
    world.open_pr(head="fixed")
    again = world.run("synchronize", CONSENSUS_FULL_REVIEW="true")
    assert again.code == 0, again.stderr
    assert threads_of(world)["Off-by-one in loop"] == (True, "bob")
