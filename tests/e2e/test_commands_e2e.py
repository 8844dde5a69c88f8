"""End to end: slash commands through the real `python -m consensus action` in a subprocess,
on `issue_comment` events, against the loopback fake GitHub and fake providers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.publish.state import (
    FindingRecord,
    MemberNote,
    PublishState,
    TrackedFinding,
    VerificationNote,
    VoteNote,
    decode_state,
    encode_state,
)
from consensus.publish.thread import SUMMARY_MARKER
from consensus_sim.github_server import BOT, FakeGitHub, human, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text, reply
from fakes.inprocess import run_consensus
from tests.e2e.test_action_e2e import (
    DB_AFTER,
    DB_BEFORE,
    LOOP,
    MODELS,
    NUMBER,
    REPO,
    ROOT,
    SQL,
    commit,
    config,
    git,
    line_of,
    responder,
)

MAINTAINER, READER = "maria", "randall"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    writes: list[tuple[str, str, int]]


@dataclass
class World:
    tmp: Path
    repo: Path
    github: FakeGitHub
    providers: FakeProviderServer

    def __post_init__(self) -> None:
        self.github.repo(REPO).permissions.update({MAINTAINER: "maintain", READER: "read"})

    def open_pr(self, head: str = "feature") -> None:
        load_pull_from_git(self.github, REPO, NUMBER, self.repo, base="main", head=head)

    def run(self, event: str, payload: dict[str, Any], **env: str) -> Run:
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload))
        full = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_TOKEN": "ghs_fake_token",
            "GITHUB_WORKSPACE": str(self.repo),
            "RUNNER_TEMP": str(self.tmp),
            "CONSENSUS_POST_INTERVAL": "0",
            "OLLAMA_HOST": "127.0.0.1:9",
            "FAKE_OPENAI_KEY": "sk-fake-openai-secret",
            "FAKE_ANTHROPIC_KEY": "sk-ant-fake-secret",
            **env,
        }
        before = len(self.github.requests)
        done = run_consensus(["action"], cwd=self.repo, env=full)
        writes = [
            (r.method, r.path, r.status)
            for r in self.github.requests[before:]
            if r.method != "GET" and r.path != "/graphql"
        ]
        return Run(done.returncode, done.stdout, done.stderr, writes)

    def pull_event(self, action: str = "opened", **env: str) -> Run:
        repo = self.github.repos[REPO]
        payload = {
            "action": action,
            "number": NUMBER,
            "pull_request": self.github.pull_json(repo, repo.pulls[NUMBER]),
            "repository": {"full_name": REPO},
        }
        return self.run("pull_request", payload, **env)

    def comment(
        self,
        body: str,
        login: str = MAINTAINER,
        *,
        user: dict[str, Any] | None = None,
        action: str = "created",
        on_pull: bool = True,
        **env: str,
    ) -> Run:
        self.last = self.github.add_issue_comment(REPO, NUMBER, body, user or human(login))
        issue: dict[str, Any] = {"number": NUMBER, "title": "A change", "user": human("dev")}
        if on_pull:
            issue["pull_request"] = {"url": f"{self.github.url}/repos/{REPO}/pulls/{NUMBER}"}
        payload = {
            "action": action,
            "issue": issue,
            "comment": {k: v for k, v in self.last.items() if not k.startswith("_")},
            "repository": {"full_name": REPO},
            "sender": user or human(login),
        }
        return self.run("issue_comment", payload, **env)

    def replies(self) -> list[str]:
        bodies = [str(c["body"]) for c in self.github.repos[REPO].issue_comments]
        return [b for b in bodies if b.startswith("<!-- consensus:reply")]

    def reactions(self) -> list[str]:
        mine = [r for r in self.github.repos[REPO].reactions if r["_comment"] == self.last["id"]]
        return [r["content"] for r in mine]

    def summary(self) -> str:
        [body] = [
            str(c["body"])
            for c in self.github.repos[REPO].issue_comments
            if str(c["body"]).startswith(SUMMARY_MARKER) and c["user"]["type"] == "Bot"
        ]
        return body

    def seed_summary(self, state: PublishState, *, state_line: str | None = None) -> None:
        line = state_line if state_line is not None else encode_state(state)
        body = f"{SUMMARY_MARKER}\n## consensus review\n\nF1 and F2 are open.\n{line}"
        self.github.add_issue_comment(REPO, NUMBER, body, BOT)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, responder(model))  # type: ignore[arg-type]
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": config(providers.url)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        commit(repo, {"src/app/db.py": DB_AFTER}, "feature")
        world = World(tmp_path, repo, github, providers)
        world.open_pr()
        yield world


def seeded_state() -> PublishState:
    line = line_of(DB_AFTER, SQL)
    record = FindingRecord(
        id="F1",
        fingerprint="0123456789abcdef",
        path="src/app/db.py",
        line=line,
        end_line=line,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title="SQL injection <b>in get_user</b>",
        body="The query is built with an f-string.",
        status=Status.CONSENSUS,
        reason="3 of 4 families agree",
        votes_for=3,
        votes_of=4,
        providers=("openai/gpt-test", "anthropic/claude-test", "openai/qwen-test"),
        personas=("correctness",),
        members=(
            MemberNote(
                provider="openai/gpt-test", family="openai", persona="correctness", title="SQLi"
            ),
            MemberNote(
                provider="anthropic/claude-test",
                family="anthropic",
                persona="correctness",
                title="Injection via f-string",
            ),
        ),
        verification=VerificationNote(
            confirmed=2,
            refuted=0,
            ahead_by=2,
            votes=(
                VoteNote(
                    model="openai/llama-test",
                    role="inspector",
                    verdict=VerdictKind.CONFIRMED,
                    reason="user_id reaches the query unescaped @someone",
                ),
            ),
        ),
    )
    tracked = TrackedFinding(
        fingerprint=record.fingerprint,
        id="F1",
        path=record.path,
        line=line,
        severity=Severity.HIGH,
        title=record.title,
        inline=True,
    )
    return PublishState(head_sha="0" * 40, findings=(tracked,), records=(record,))


def provider_calls(world: World) -> int:
    return len(world.providers.log)


# --------------------------------------------------------------------------- no spending


def test_help_lists_every_command_in_one_reply(world: World) -> None:
    run = world.comment("/consensus help", READER)
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    for name in ("review", "explain F3", "verify F3", "dismiss F3 [reason]", "pause", "config"):
        assert f"`/consensus {name}`" in reply
    assert world.reactions() == ["eyes", "rocket"]
    assert provider_calls(world) == 0


def test_a_read_only_users_review_spends_nothing_and_gets_one_polite_reply(world: World) -> None:
    run = world.comment("/consensus review", READER)
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "needs write, maintain or admin permission" in reply and "yours: read" in reply
    assert provider_calls(world) == 0
    assert world.github.repos[REPO].reviews == []
    assert [w[0] for w in run.writes] == ["POST"]  # the one reply; no reaction, no review
    permission = [r for r in world.github.requests if r.path.endswith("/permission")]
    assert [r.path for r in permission] == [f"/repos/{REPO}/collaborators/{READER}/permission"]


def test_author_association_is_not_trusted(world: World) -> None:
    # The fake marks every human comment MEMBER; the permission API says read: denied.
    run = world.comment("/consensus pause", READER)
    assert run.code == 0, run.stderr
    assert "not allowed" in world.replies()[0]
    assert [c for c in world.github.repos[REPO].issue_comments if "state" in c["body"]] == []


@pytest.mark.parametrize(
    "body",
    [
        "```\n/consensus review\n```",
        "~~~md\n/consensus review\n~~~",
        "Try `/consensus review` later",
        "`\n/consensus review\n`",
        "> /consensus review\n\nquoted it above",
        "> Someone said\n/consensus review",
        "    /consensus review",
        "<!--\n/consensus review\n-->",
        "please run /consensus review",
    ],
)
def test_commands_in_code_quotes_and_prose_are_ignored(world: World, body: str) -> None:
    run = world.comment(body)
    assert run.code == 0, run.stderr
    assert run.writes == [] and provider_calls(world) == 0


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"user": BOT}, "bots never run commands"),
        ({"user": human("renovate[bot]")}, "bots never run commands"),
        ({"action": "edited"}, "only new comments"),
        ({"on_pull": False}, "not a pull request"),
    ],
)
def test_bots_edits_and_plain_issues_never_trigger(
    world: World, kwargs: dict[str, Any], said: str
) -> None:
    before = len(world.github.requests)
    run = world.comment("/consensus review", **kwargs)
    assert run.code == 0, run.stderr
    assert said in run.stderr
    assert world.github.requests[before:] == [] and provider_calls(world) == 0


def test_unknown_command_gets_help_with_did_you_mean(world: World) -> None:
    run = world.comment("/consensus reveiw")
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "There is no command `reveiw`" in reply and "Did you mean `/consensus review`?" in reply
    assert "`/consensus explain F3`" in reply
    assert world.reactions() == []  # nothing was accepted


def test_two_commands_in_one_comment_get_one_reply(world: World) -> None:
    run = world.comment("/consensus personas\nand then\n/CONSENSUS Config")
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "Personas and providers" in reply and "`correctness`" in reply
    assert "Effective settings" in reply and "api_key_env: FAKE_OPENAI_KEY" in reply
    assert "sk-fake" not in reply and "sk-ant" not in reply and "ghs_fake" not in reply
    assert world.reactions() == ["eyes", "rocket"]


def test_strict_arguments(world: World) -> None:
    world.seed_summary(seeded_state())
    run = world.comment("/consensus explain src/app/db.py\n/consensus review --model evil")
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "is not a finding id" in reply and "takes no arguments" in reply
    assert provider_calls(world) == 0 and world.reactions() == []


def test_explain_shows_the_decision_the_reporters_and_each_judges_reason(world: World) -> None:
    world.seed_summary(seeded_state())
    run = world.comment("/consensus explain f1", READER)  # read: anyone may ask
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "- reported by 3 of 4 families" in reply
    assert "`anthropic/claude-test` as `correctness`: Injection via f-string" in reply
    assert "`openai/llama-test` (first): **confirmed**: user_id reaches" in reply
    assert "<b>" not in reply and "@someone" not in reply  # model text is escaped
    assert provider_calls(world) == 0


def test_explain_of_a_missing_finding_fails_politely(world: World) -> None:
    world.seed_summary(seeded_state())
    run = world.comment("/consensus explain F9")
    assert run.code == 0, run.stderr
    assert "no finding F9 on this PR (the summary lists F1)" in world.replies()[0]
    assert world.reactions() == ["eyes", "confused"]


def test_a_tampered_state_block_is_ignored_with_a_warning(world: World) -> None:
    good = encode_state(seeded_state())
    forged = good[: len(good) // 2] + "AAAA" + good[len(good) // 2 + 4 :]
    world.seed_summary(seeded_state(), state_line=forged)
    run = world.comment("/consensus explain F1")
    assert "unreadable or was altered: ignored" in run.stderr
    assert "there is no finding F1" in world.replies()[0]
    # A forged state grants nothing: a reader still may not dismiss.
    world.comment("/consensus dismiss F1", READER)
    assert "not allowed" in world.replies()[1]


def test_pause_stops_the_next_synchronize_review_and_resume_restarts(world: World) -> None:
    run = world.comment("/consensus pause")
    assert run.code == 0, run.stderr
    state = decode_state(world.summary())
    assert state is not None and state.paused is not None and state.paused.by == MAINTAINER
    assert "Automatic reviews are **paused**" in world.summary()
    sync = world.pull_event("synchronize")
    assert sync.code == 0, sync.stderr
    assert "automatic reviews are paused" in sync.stderr
    assert provider_calls(world) == 0 and world.github.repos[REPO].reviews == []
    world.comment("/consensus resume")
    state = decode_state(world.summary())
    assert state is not None and state.paused is None
    assert world.reactions() == ["eyes", "rocket"]


def test_queue_answers(world: World) -> None:
    run = world.comment("/consensus queue", READER)
    assert run.code == 0, run.stderr
    [reply] = world.replies()
    assert "queue" in reply.lower()
    assert provider_calls(world) == 0


# --------------------------------------------------------------------------- spending


def test_dismiss_then_review_does_not_post_the_dismissed_finding(world: World) -> None:
    first = world.pull_event(CONSENSUS_MAX_INLINE_COMMENTS="0")  # both stay in the summary
    assert first.code == 0, first.stderr
    assert world.github.repos[REPO].review_comments == []
    state = decode_state(world.summary())
    assert state is not None
    sql = next(r for r in state.records if "SQL injection" in r.title)
    run = world.comment(f"/consensus dismiss {sql.id} we escape upstream @dev")
    assert run.code == 0, run.stderr
    assert world.reactions() == ["eyes", "rocket"]
    assert "Dismissed (1)" in world.summary() and "@\u200dmaria" in world.summary()
    review = world.comment("/consensus review")
    assert review.code == 0, review.stderr
    assert world.reactions() == ["eyes", "rocket"]
    [inline] = world.github.repos[REPO].review_comments
    assert inline["line"] == line_of(DB_AFTER, LOOP)  # the other finding, not the dismissed one
    summary = world.summary()
    assert "Dismissed (1)" in summary and "we escape upstream" in summary
    assert "@\u200ddev" in summary  # the reason pings no one
    after = decode_state(summary)
    assert after is not None and [d.by for d in after.dismissed] == [MAINTAINER]
    assert "Reviewed" in world.replies()[-1]


def test_verify_runs_the_inspector_and_voters_now(world: World) -> None:
    world.seed_summary(seeded_state())
    run = world.comment("/consensus verify F1")
    assert run.code == 0, run.stderr
    # The fake verifiers all refute: the two families that did not report it are asked
    # together, and their refutations reject it.
    asked = [r for r in world.providers.log.all() if "independent verifier" in r.raw]
    assert {r.model for r in asked} == {"llama-test", "qwen-test"}
    [reply] = world.replies()
    assert "**rejected**" in reply and "refuted" in reply
    summary = world.summary()
    assert "Verified on request" in summary and "asked by @\u200dmaria" in summary
    state = decode_state(summary)
    assert state is not None and state.records[0].status is Status.REJECTED
    assert world.reactions() == ["eyes", "rocket"]


def test_review_on_an_unchanged_head_decides_afresh_and_shows_the_changed_decision(
    world: World,
) -> None:
    head = world.github.repos[REPO].pulls[NUMBER].head_sha
    first = world.pull_event(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert first.code == 0, first.stderr
    again = world.pull_event("reopened", CONSENSUS_HOME=str(world.tmp / "runner-2"))
    assert again.code == 0 and "carried" in again.stderr
    calls = provider_calls(world)

    def refuting_verifiers(model: str) -> object:
        reviewer = responder(model)

        def answer(body: dict[str, object]) -> object:
            if "independent verifier" in prompt_text(body):  # the verifiers changed their mind
                return reply(json.dumps({"verdict": "refuted", "reason": "bounds are checked"}))
            return reviewer(body)  # type: ignore[operator]

        return answer

    for model in MODELS:
        world.providers.script.respond(model, refuting_verifiers(model))  # type: ignore[arg-type]
    run = world.comment("/consensus review", CONSENSUS_HOME=str(world.tmp / "runner-3"))
    assert run.code == 0, run.stderr
    assert provider_calls(world) > calls  # decided afresh, not carried
    summary = world.summary()
    assert "Decisions changed on a fresh look (1)" in summary
    [line] = [x for x in summary.splitlines() if x.startswith("- ") and "Off-by-one" in x]
    # The one family that did not report it confirmed it; its refutation now rejects it
    # (no veto: the refutation weighs what the family's estimated rates say, enough here to
    # make the claim more likely invented than real).
    assert line.endswith(
        f"consensus 3/4 · confirmed by meta on `{head[:7]}`, now **rejected (refuted by meta)**"
    )
    assert "carried from" not in summary
    state = decode_state(summary)
    assert state is not None
    loop = next(t for t in state.findings if "Off-by-one" in t.title)
    assert loop.resolved and loop.resolved_reason == "now rejected, no longer posted"
