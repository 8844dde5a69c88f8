"""Slash commands against the in-memory GitHub host (consensus.testing): behaviour in
milliseconds. The loopback end-to-end tests (test_commands_e2e.py) keep the adapter honest,
and the conformance test at the bottom holds the fake to what the loopback GitHub does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consensus.app.talk.commands import handle_comment
from consensus.app.wiring import action_step, services
from consensus.errors import GitHubError
from consensus.model.base import Severity
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import ResultKind
from consensus.model.host import GITHUB_WORDS, GITLAB_WORDS, HostWords
from consensus.ports import GitHubPort, InlineComment, PullFile, PullRequestInfo, ReviewRejected
from consensus.publish.state import PublishState, TrackedFinding, decode_state, encode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus.testing import FakeGitHubHost, FakePull
from consensus_sim.github_server import FakeGitHub, PullRequest

REPO, NUMBER, MAINTAINER, READER = "acme/service", 7, "maria", "randall"
PATCH = "@@ -1,2 +1,3 @@\n import os\n+import hmac\n def check(sig, mac):"
FILE = PullFile(path="src/auth.py", status="modified", additions=1, patch=PATCH)
GITHUB_FILE = {"filename": "src/auth.py", "status": "modified", "additions": 1, "patch": PATCH}
TRACKED = TrackedFinding(
    fingerprint="0123456789abcdef",
    id="F1",
    path="src/auth.py",
    line=2,
    severity=Severity.HIGH,
    title="Signature compared with ==",
    inline=True,
)


@pytest.fixture
def host() -> FakeGitHubHost:
    fake = FakeGitHubHost(permissions={MAINTAINER: "maintain", READER: "read"})
    info = PullRequestInfo(
        number=NUMBER, head_sha="h" * 40, base_sha="b" * 40, base_ref="main", base_repo=REPO
    )
    fake.add_pull(FakePull(info=info, files=[FILE]))
    state = encode_state(PublishState(head_sha="h" * 40, findings=(TRACKED,)))
    fake.create_issue_comment(NUMBER, f"{SUMMARY_MARKER}\n## consensus review\n{state}")
    fake.writes.clear()
    return fake


def comment(host: FakeGitHubHost, body: str, login: str = MAINTAINER) -> list[str]:
    """Post `body` as `login`, answer it; the log lines."""
    ident = host.seed_comment(NUMBER, body, author=login)
    event = IssueCommentEvent.model_validate(
        {
            "action": "created",
            "issue": {"number": NUMBER, "pull_request": {"url": "…"}},
            "comment": {"id": ident, "body": body, "user": {"login": login, "type": "User"}},
        }
    )
    lines: list[str] = []
    env = {"GITHUB_REPOSITORY": REPO}
    result = handle_comment(services(env, log=lines.append, github=host), action_step(env), event)
    assert result.kind is not ResultKind.INCOMPLETE
    return lines


def state(host: FakeGitHubHost) -> PublishState:
    [summary] = [c for c in host.issue_comments(NUMBER) if c.body.startswith(SUMMARY_MARKER)]
    decoded = decode_state(summary.body)
    assert decoded is not None
    return decoded


def replies(host: FakeGitHubHost) -> list[str]:
    return [
        c.body for c in host.issue_comments(NUMBER) if c.body.startswith("<!-- consensus:reply")
    ]


def test_pause_then_resume_write_the_state_and_answer_once_each(host: FakeGitHubHost) -> None:
    comment(host, "/consensus pause")
    paused = state(host).paused
    assert paused is not None and paused.by == MAINTAINER
    comment(host, "/consensus resume")
    assert state(host).paused is None
    assert len(replies(host)) == 2
    assert [content for _, content in host.reactions] == ["eyes", "rocket"] * 2


def test_dismiss_records_who_and_why_and_resolves_the_finding(host: FakeGitHubHost) -> None:
    comment(host, "/consensus dismiss F1 constant-time compare is done by the caller")
    [dismissal] = state(host).dismissed
    assert (dismissal.id, dismissal.by) == ("F1", MAINTAINER)
    assert dismissal.reason == "constant-time compare is done by the caller"
    [tracked] = state(host).findings
    assert tracked.resolved and tracked.resolved_reason == "dismissed"


def test_a_read_only_user_changes_nothing_and_is_told_why(host: FakeGitHubHost) -> None:
    before = state(host)
    comment(host, "/consensus dismiss F1", login=READER)
    assert state(host) == before
    [reply] = replies(host)
    assert "yours: read" in reply
    assert host.reactions == []  # nothing was accepted


@pytest.mark.parametrize(
    ("words", "needs", "yours", "never"),
    [
        (GITHUB_WORDS, "needs write, maintain or admin permission", "triage", "Reporter"),
        (GITLAB_WORDS, "needs the Developer role or higher", "Reporter", "triage"),
    ],
)
def test_a_triager_asking_for_a_review_is_told_in_the_host_s_words(
    host: FakeGitHubHost, words: HostWords, needs: str, yours: str, never: str
) -> None:
    """The port's words decide what the answer says; the permission rule stays one."""
    host.words = words
    host.permissions["tess"] = "triage"
    comment(host, "/consensus review", login="tess")
    [reply] = replies(host)
    assert f"`/consensus review` {needs} (yours: {yours})" in reply
    assert never not in reply
    assert host.reactions == []  # refused before anything ran


def test_explain_of_an_unknown_id_names_the_ids_there_are(host: FakeGitHubHost) -> None:
    comment(host, "/consensus explain F9")
    [reply] = replies(host)
    assert "there is no finding F9" in reply
    assert [content for _, content in host.reactions] == ["eyes", "confused"]


# --------------------------------------------------------------------------- the fake is GitHub


@pytest.fixture
def loopback() -> Iterator[GitHubPort]:
    from consensus.adapters.github import GitHubHost

    server = FakeGitHub().start()
    server.repo(REPO).pulls[NUMBER] = PullRequest(
        number=NUMBER, head_sha="h" * 40, base_sha="b" * 40, files=[GITHUB_FILE]
    )
    yield GitHubHost(REPO, token="t", base_url=server.url, write_interval_s=0)
    server.stop()


def conformance_script(host: GitHubPort) -> list[object]:
    """The same calls on any host; what it answered, in order."""
    seen: list[object] = []
    first = host.create_issue_comment(NUMBER, "one")
    host.edit_issue_comment(NUMBER, first.id, "one, edited")
    seen.append([c.body for c in host.issue_comments(NUMBER)])
    try:
        host.create_review(
            NUMBER,
            commit_sha="h" * 40,
            body="",
            event="COMMENT",
            comments=[InlineComment(path="src/auth.py", line=9, body="off the diff")],
        )
    except ReviewRejected:
        seen.append("rejected")
    seen.append(host.review_comments(NUMBER))
    host.create_review(
        NUMBER,
        commit_sha="h" * 40,
        body="",
        event="COMMENT",
        comments=[InlineComment(path="src/auth.py", line=2, body="on the diff")],
    )
    seen.append([(c.path, c.line, c.body) for c in host.review_comments(NUMBER)])
    try:
        host.pull_request(404)
    except GitHubError as exc:
        seen.append(exc.status)
    return seen


def test_the_in_memory_host_answers_as_the_loopback_github_does(loopback: GitHubPort) -> None:
    fake = FakeGitHubHost()
    fake.add_pull(
        FakePull(
            info=PullRequestInfo(
                number=NUMBER, head_sha="h" * 40, base_sha="b" * 40, base_repo=REPO
            ),
            files=[FILE],
        )
    )
    expected = conformance_script(loopback)
    assert expected[1] == "rejected" and expected[-1] == 404  # the script exercises both
    assert conformance_script(fake) == expected
