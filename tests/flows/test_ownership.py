"""Whose comments are ours (publish/thread.py), and when our summary's state is believed.

Ours means written by the identity the token acts as, looked up once per run, or by a
configured login; another bot posting our markers is someone else. A state someone else
edited last is ignored, and a command rewrites that page whole. In memory, with
FakeGitHubHost; the adapter's two questions (who am I, who edited this) against the
loopback GitHub.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consensus.action.main import run as run_action
from consensus.adapters.github import GitHubHost, Retries
from consensus.app.pull.apply import settle_concurrent_runs
from consensus.app.talk.commands import handle_comment
from consensus.app.wiring import action_step, services
from consensus.errors import GitHubError
from consensus.model.base import Severity
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import ResultKind
from consensus.ports import CommentEdit, HostComment, OpenPull, PullFile, PullRequestInfo
from consensus.publish.state import Pause, PublishState, TrackedFinding, decode_state, encode_state
from consensus.publish.thread import (
    SUMMARY_MARKER,
    Identity,
    fingerprint_marker,
    load_thread,
    read_thread,
)
from consensus.queue.observe import observe_pull
from consensus.queue.standing import QueueRules
from consensus.queue.writes import COMMENT_MARKER
from consensus.testing import BOT_LOGIN, FakeGitHubHost, FakePull
from consensus_sim.github_server import BOT, FakeGitHub, PullRequest, human

NUMBER = 5
RENOVATE = "renovate[bot]"
ACTIONS = Identity.of(None)
FP = "0123456789abcdef"


def tracked(head: str = "h" * 40) -> PublishState:
    finding = TrackedFinding(
        fingerprint=FP,
        id="F1",
        path="src/app.py",
        line=3,
        severity=Severity.CRITICAL,
        title="SQL injection",
        inline=True,
    )
    return PublishState(head_sha=head, findings=(finding,), paused=Pause(by="maria"))


def summary_body(state: PublishState, text: str = "F1 is open.") -> str:
    return f"{SUMMARY_MARKER}\n## consensus review\n\n{text}\n{encode_state(state)}"


def host(**kwargs: object) -> FakeGitHubHost:
    github = FakeGitHubHost(permissions={"maria": "write", "randall": "read"}, **kwargs)  # type: ignore[arg-type]
    info = PullRequestInfo(
        number=NUMBER,
        author="codex[bot]",
        head_sha="h" * 40,
        base_sha="b" * 40,
        base_repo="acme/service",
    )
    github.add_pull(FakePull(info=info, files=[PullFile(path="src/app.py", status="modified")]))
    return github


# --------------------------------------------------------------------------- identity


@pytest.mark.parametrize(
    ("viewer", "configured", "ours", "not_ours"),
    [
        (None, "", {"github-actions[bot]"}, {"renovate[bot]", "maria"}),  # GITHUB_TOKEN
        (None, "my-app[bot]", {"my-app[bot]"}, {"github-actions[bot]"}),  # a GitHub App
        ("maria-bot", "", {"Maria-Bot"}, {"github-actions[bot]"}),  # a personal token
        ("maria-bot", "github-actions[bot]", {"maria-bot", "github-actions[bot]"}, {"x[bot]"}),
    ],
)
def test_ours_is_the_tokens_identity_or_a_configured_login_and_nothing_else(
    viewer: str | None, configured: str, ours: set[str], not_ours: set[str]
) -> None:
    identity = Identity.of(viewer, configured)
    assert all(identity.owns(login) for login in ours)
    assert not any(identity.owns(login) for login in not_ours)


def test_the_identity_is_asked_once_per_run(tmp_path: Path) -> None:
    github = host()
    event = tmp_path / "event.json"
    payload = {"action": "opened", "number": NUMBER, "pull_request": {"number": NUMBER}}
    github.pulls[NUMBER].info = github.pulls[NUMBER].info.model_copy(update={"draft": True})
    event.write_text(json.dumps(payload))
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "acme/service",
    }
    assert run_action(env, log=lambda line: None, host=github) == 0
    assert github.viewer_asked == 1
    env["GITHUB_EVENT_NAME"] = "schedule"
    assert run_action(env, log=lambda line: None, host=github) == 0
    assert github.viewer_asked == 2


# --------------------------------------------------------------------------- another bot


def test_another_bots_summary_is_not_ours_and_its_state_is_not_believed() -> None:
    github = host()
    github.seed_comment(NUMBER, summary_body(tracked()), author=RENOVATE, bot=True)
    thread = load_thread(github, NUMBER, ACTIONS)
    assert thread.summary_id is None and thread.state == PublishState()


def test_a_command_posts_our_own_summary_beside_another_bots_imitation() -> None:
    github = host()
    fake = github.seed_comment(NUMBER, summary_body(tracked()), author=RENOVATE, bot=True)
    before = github.issue_comments(NUMBER)[0]
    answer(github, "/consensus resume", "maria")  # it never was paused: nothing to save
    answer(github, "/consensus pause", "maria")
    assert github.issue_comments(NUMBER)[0] == before and fake not in github.edits
    [ours] = [
        c
        for c in github.issue_comments(NUMBER)
        if c.author == BOT_LOGIN and c.body.startswith(SUMMARY_MARKER)
    ]
    state = decode_state(ours.body)
    assert state is not None and state.findings == () and state.paused == Pause(by="maria")


def test_another_bots_inline_marker_does_not_stop_our_comment() -> None:
    ours = HostComment(
        id=1, body=f"x\n{fingerprint_marker('f' * 16)}", author=BOT_LOGIN, author_is_bot=True
    )
    theirs = HostComment(
        id=2, body=f"x\n{fingerprint_marker(FP)}", author=RENOVATE, author_is_bot=True
    )
    thread = read_thread([], [ours, theirs], identity=ACTIONS)
    assert thread.inline_fingerprints == {"f" * 16}


def test_the_duplicate_cleanup_deletes_only_what_we_posted_twice() -> None:
    github = host()
    imitation = github.seed_comment(NUMBER, summary_body(tracked()), author=RENOVATE, bot=True)
    first = github.create_issue_comment(NUMBER, summary_body(PublishState())).id
    second = github.create_issue_comment(NUMBER, summary_body(PublishState())).id
    marker = fingerprint_marker(FP)
    their_inline = github.seed_review_comment(
        NUMBER, f"x\n{marker}", author=RENOVATE, bot=True, path="src/app.py", line=3
    )
    ours = HostComment(id=github._id(), body=f"y\n{marker}", author=BOT_LOGIN, author_is_bot=True)
    github.review_comment_list.append(ours)
    github.comment_pull[ours.id] = NUMBER
    settle_concurrent_runs(github, NUMBER, ACTIONS, lambda line: None)
    left = {c.id for c in github.issue_comments(NUMBER)}
    assert left == {imitation, first}, f"deleted {second} only"
    assert {c.id for c in github.review_comments(NUMBER)} == {their_inline, ours.id}


def test_the_queue_reads_neither_another_bots_gate_nor_its_queue_comment() -> None:
    github = host()
    github.seed_comment(NUMBER, summary_body(tracked()), author=RENOVATE, bot=True)
    github.seed_comment(NUMBER, f"{COMMENT_MARKER}\nqueued", author=RENOVATE, bot=True)
    pull = OpenPull(number=NUMBER, author="codex[bot]", author_is_bot=True, head_sha="h" * 40)
    agent = observe_pull(github, pull, QueueRules(), ACTIONS)
    assert agent.reviewed_head is None and agent.findings == () and agent.comment is None


def test_a_personal_tokens_comments_are_ours_and_github_actions_are_not() -> None:
    github = host(login="maria-bot")
    github.seed_comment(NUMBER, summary_body(tracked()), author=BOT_LOGIN, bot=True)
    mine = github.create_issue_comment(NUMBER, summary_body(tracked("c" * 40))).id
    thread = load_thread(github, NUMBER, Identity.of(github.viewer_login()))
    assert thread.summary_id == mine and thread.state.head_sha == "c" * 40


# --------------------------------------------------------------------------- edited state


@pytest.mark.parametrize(
    ("edit", "believed"),
    [
        (None, True),
        (CommentEdit(editor="github-actions[bot]", edited_at="t"), True),
        (CommentEdit(editor="GitHub-Actions[bot]", edited_at="t"), True),
        (CommentEdit(editor="mallory", edited_at="t"), False),
        (CommentEdit(editor="renovate[bot]", edited_at="t"), False),
        (CommentEdit(editor="", edited_at="t"), False),  # a deleted account: unknown
    ],
)
def test_the_state_is_believed_only_when_we_edited_it_last(
    edit: CommentEdit | None, believed: bool
) -> None:
    summary = HostComment(id=9, body=summary_body(tracked()), author=BOT_LOGIN, author_is_bot=True)
    thread = read_thread([summary], [], identity=ACTIONS, summary_edit=edit)
    assert thread.summary_id == 9
    assert (thread.state == tracked()) is believed and thread.summary_trusted is believed
    assert ("not by consensus" in thread.state_problem) is (not believed)


def test_a_command_rewrites_a_page_someone_else_edited_whole() -> None:
    github = host()
    ours = github.create_issue_comment(NUMBER, summary_body(PublishState())).id
    forged = summary_body(tracked(), text="Approved by consensus. cc @everyone")
    github.edit_as(ours, forged, editor="mallory")
    answer(github, "/consensus resume", "maria")  # paused says the forged state: not believed
    answer(github, "/consensus pause", "maria")
    [page] = [c.body for c in github.issue_comments(NUMBER) if c.id == ours]
    assert "Approved by consensus" not in page and "@everyone" not in page
    assert "last edited by mallory" in page
    state = decode_state(page)
    assert state is not None and state.paused == Pause(by="maria") and state.findings == ()
    assert github.edits[ours].editor == BOT_LOGIN  # we edited it last: believed from now on
    assert load_thread(github, NUMBER, ACTIONS).state == state


def test_a_read_only_user_is_refused_before_their_arguments_are_read() -> None:
    github = host()
    reply = answer(
        github, "/consensus dismiss @acme/security ![t](https://t.example/p.png)", "randall"
    )
    assert "not allowed" in reply and "acme" not in reply and "t.example" not in reply


def answer(github: FakeGitHubHost, body: str, login: str) -> str:
    comment_id = github.seed_comment(NUMBER, body, author=login)
    event = IssueCommentEvent.model_validate(
        {
            "action": "created",
            "issue": {"number": NUMBER, "pull_request": {"url": "x"}},
            "comment": {"id": comment_id, "body": body, "user": {"login": login, "type": "User"}},
        }
    )
    env = {"GITHUB_REPOSITORY": "acme/service", "CONSENSUS_POST_INTERVAL": "0"}
    wired = services(env, log=lambda line: None, github=github)
    assert handle_comment(wired, action_step(env), event).kind is not ResultKind.INCOMPLETE
    return github.issue_comment_list[-1].body


# --------------------------------------------------------------------------- the adapter


def test_the_adapter_asks_who_it_is_and_who_edited_a_comment() -> None:
    with FakeGitHub() as server:
        server.repo("acme/service").pulls[1] = PullRequest(
            number=1, head_sha="h" * 40, base_sha="b" * 40, files=[]
        )
        adapter = GitHubHost("acme/service", token="t", base_url=server.url, write_interval_s=0)
        assert adapter.viewer_login() is None  # GITHUB_TOKEN: 403
        server.viewer = human("maria-bot")
        assert adapter.viewer_login() == "maria-bot"
        created = adapter.create_issue_comment(1, "first")
        [listed] = adapter.issue_comments(1)
        assert listed.node_id and adapter.comment_edit(listed) is None
        adapter.edit_issue_comment(1, created.id, "second")
        assert adapter.comment_edit(listed) == CommentEdit(
            editor="maria-bot", edited_at="2026-01-02T00:00:00Z"
        )
        server.viewer = None
        adapter.edit_issue_comment(1, created.id, "third")  # as github-actions[bot]: a Bot
        edit = adapter.comment_edit(listed)
        assert edit is not None and edit.editor == BOT["login"]
        server.edit_issue_comment("acme/service", created.id, "forged", human("mallory"))
        edit = adapter.comment_edit(listed)
        assert edit is not None and edit.editor == "mallory"
        server.fail_next("GET", r"^/user$", 500, times=5)
        with pytest.raises(GitHubError):  # not "nobody": that would disown our comments
            GitHubHost(
                "acme/service",
                token="t",
                base_url=server.url,
                retries=Retries(attempts=1, backoff_s=0),
            ).viewer_login()
