"""The agent-PR queue against the loopback fake GitHub: the real GitHubHost, the real
reconcile; the CLI and the Action in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.sim.queue_world import REPO, add_pull, build, host, labels, queue_comments, review
from consensus.errors import GitHubError
from consensus.queue.reconcile import queue_markdown, reconcile
from consensus.queue.standing import QueueStatus
from consensus_sim.github_server import FakeGitHub, human

ROOT = Path(__file__).resolve().parents[2]
READY, QUEUED = ["consensus:ready"], ["consensus:queued"]
CONFLICT, BACK = ["consensus:conflict"], ["consensus:changes-requested"]


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        build(server)
        yield server


def run(github: FakeGitHub, *, apply: bool = True) -> list[str]:
    lines: list[str] = []
    reconcile(host(github), apply=apply, log=lines.append)
    return lines


def test_reconcile_admits_max_in_review_queues_the_rest_in_order_and_flags_the_overlap(
    github: FakeGitHub,
) -> None:
    run(github)
    assert labels(github) == {
        1: QUEUED,
        2: READY,
        3: READY,
        4: READY,
        5: QUEUED,
        6: CONFLICT,
        7: QUEUED,
        8: BACK,
        9: [],
        10: [],
    }
    pulls = github.repo(REPO).pulls
    assert pulls[2].requested_reviewers == ["bob"]  # CODEOWNERS: /src/auth/
    assert pulls[3].requested_reviewers == pulls[4].requested_reviewers == ["alice"]
    assert all(not pulls[n].requested_reviewers for n in (1, 5, 6, 7, 8))
    # One comment each, with the position: #7 (60 lines), then #1 and #5 by age.
    for number, position in ((7, 1), (1, 2), (5, 3)):
        [comment] = queue_comments(github, number)
        assert f"position {position}." in comment, comment
    [conflict] = queue_comments(github, 6)
    assert "same lines as #5" in conflict and "`src/shared.py:11-12`" in conflict
    assert "@" not in conflict
    # Human PRs: no request touches them.
    touched = {r.path for r in github.writes()}
    assert not any(p.endswith(("/9", "/10")) or "/9/" in p or "/10/" in p for p in touched)


def test_a_high_severity_finding_sends_the_pr_back_without_a_human_review_request(
    github: FakeGitHub,
) -> None:
    run(github)
    [review_] = [r for r in github.repo(REPO).reviews if r["_number"] == 8]
    assert review_["state"] == "CHANGES_REQUESTED" and review_["commit_id"] == f"{8:040x}"
    assert "Unchecked input reaches the query" in review_["body"]
    assert github.repo(REPO).pulls[8].requested_reviewers == []
    # A push re-enters the gate: awaiting the review, then clean and queued.
    pull = github.repo(REPO).pulls[8]
    pull.head_sha = "9" * 40
    run(github)
    assert labels(github)[8] == []
    review(github, pull, None)  # the review of the new head found nothing
    run(github)
    assert labels(github)[8] == QUEUED


def test_closing_an_admitted_pr_admits_the_next_one(github: FakeGitHub) -> None:
    run(github)
    github.close_pull(REPO, 4, merged=True)
    run(github)
    current = labels(github)
    assert current[7] == READY and current[1] == QUEUED and current[5] == QUEUED
    assert github.repo(REPO).pulls[7].requested_reviewers == ["alice"]
    [comment] = queue_comments(github, 1)  # edited in place, not a second comment
    assert "position 1." in comment
    [admitted] = queue_comments(github, 7)
    assert "Admitted to human review" in admitted and "`alice`" in admitted


def test_reconciling_twice_writes_nothing_the_second_time(github: FakeGitHub) -> None:
    run(github)
    before = len(github.requests)
    assert run(github) == []
    assert [r for r in github.requests[before:] if r.method != "GET" and r.path != "/graphql"] == []


def test_a_crash_half_way_is_completed_by_the_next_run(github: FakeGitHub) -> None:
    with FakeGitHub() as clean:
        build(clean)
        run(clean)
        expected = labels(clean)
        total = len(clean.writes())
    github.crash_after_writes = total // 2
    with pytest.raises(GitHubError, match="HTTP 500"):
        run(github)
    assert labels(github) != expected
    github.crash_after_writes = None
    run(github)
    assert labels(github) == expected
    for number in range(1, 9):
        assert len(queue_comments(github, number)) <= 1
    assert len([r for r in github.repo(REPO).reviews if r["_number"] == 8]) == 1
    before = len(github.requests)
    run(github)
    assert [r for r in github.requests[before:] if r.method != "GET" and r.path != "/graphql"] == []


def test_a_human_review_is_not_re_requested_and_a_dismissal_lets_a_pr_through(
    github: FakeGitHub,
) -> None:
    run(github)
    github.add_review(REPO, 3, human("alice"), "COMMENTED")
    assert github.repo(REPO).pulls[3].requested_reviewers == []
    before = len(github.writes())
    run(github)
    assert len(github.writes()) == before  # alice reviewed: not asked again
    [gate] = [r for r in github.repo(REPO).reviews if r["_number"] == 8]
    gate["state"] = "DISMISSED"
    run(github)
    assert labels(github)[8] == QUEUED


def test_read_only_writes_nothing_and_markdown_lists_every_agent_pr(github: FakeGitHub) -> None:
    run(github, apply=False)
    text = queue_markdown(host(github))
    assert github.writes() == []
    # Read-only shows the queue as it should be; nothing on GitHub changed.
    assert text.startswith("3 of at most 3 agent PRs in review")  # the answer titles it
    assert text.count("\n| #") == 8 and "| #9 " not in text


def test_pagination_and_conditional_requests(github: FakeGitHub) -> None:
    for number in range(11, 260):
        add_pull(github, human_spec(number), reviewed=False)
    adapter = host(github, conditional=True)
    first = reconcile(adapter, apply=True, log=lambda line: None)
    assert sum(e.status is QueueStatus.READY for e in first.view.entries) == 3
    lists = [r for r in github.requests if r.path == f"/repos/{REPO}/pulls"]
    assert [r.query.get("page", "1") for r in lists] == ["1", "2", "3"]
    reconcile(adapter, apply=True, log=lambda line: None)  # reads what the first wrote
    before = len(github.requests)
    reconcile(adapter, apply=True, log=lambda line: None)
    # GraphQL (who last edited each summary) has its own budget and no ETags.
    again = [r for r in github.requests[before:] if r.path != "/graphql"]
    assert again and all(r.method == "GET" and r.status == 304 for r in again)


def human_spec(number: int) -> object:
    from benchmarks.sim.queue_world import Spec

    return Spec(number, f"dev{number}", 9, f"docs/{number}.md")


def _env(github: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "ghs_fake",
        "CONSENSUS_POST_INTERVAL": "0",
        **extra,
    }


def test_the_cli_shows_the_table_and_json_then_applies(github: FakeGitHub, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "consensus", "queue", "--repo", REPO]
    env = _env(github, tmp_path)
    done = subprocess.run(
        [*command, "--json"], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert github.writes() == [] and data["applied"] is False
    statuses = {p["number"]: p["status"] for p in data["pulls"]}
    assert statuses == {
        1: "queued", 2: "ready", 3: "ready", 4: "ready", 5: "queued", 6: "conflict",
        7: "queued", 8: "changes-requested",
    }  # fmt: skip
    done = subprocess.run([*command, "--apply"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == [
        "PR", "AGENT", "STATUS", "POS", "RISK", "CONFLICTS", "AGE",
    ]  # fmt: skip
    assert labels(github)[2] == READY and "change(s) written" in done.stdout


def test_the_action_reconciles_on_schedule(github: FakeGitHub, tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"schedule": "17 */6 * * *"}))
    summary = tmp_path / "summary.md"
    env = _env(
        github,
        tmp_path,
        GITHUB_EVENT_NAME="schedule",
        GITHUB_EVENT_PATH=str(event),
        GITHUB_REPOSITORY=REPO,
        GITHUB_STEP_SUMMARY=str(summary),
    )
    done = subprocess.run(
        [sys.executable, "-m", "consensus", "action"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "agent-PR queue: 3 in review" in done.stderr
    assert labels(github)[6] == CONFLICT
    assert "**Agent-PR queue**" in summary.read_text()


@pytest.mark.parametrize(
    ("event", "action"), [("pull_request", "closed"), ("pull_request_review", "submitted")]
)
def test_closed_and_reviewed_events_reconcile(
    github: FakeGitHub, tmp_path: Path, event: str, action: str
) -> None:
    from consensus.action.main import run as action_run

    run(github)
    github.close_pull(REPO, 4, merged=True)
    payload = {"action": action, "pull_request": {"number": 4}}
    (tmp_path / "event.json").write_text(json.dumps(payload))
    env = {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_REPOSITORY": REPO,
    }
    lines: list[str] = []
    assert action_run(env, log=lines.append, host=host(github)) == 0
    assert labels(github)[7] == READY, lines


def test_after_a_review_only_an_agent_pr_moves_the_queue(github: FakeGitHub) -> None:
    from consensus.app.queue import run_in_action
    from consensus.app.wiring import action_step, services
    from consensus.model.events import PullRequestEvent
    from consensus.model.flow_result import ResultKind

    env = {"GITHUB_REPOSITORY": REPO}
    wired = services(env, log=lambda line: None, github=host(github))
    done = ResultKind.DONE
    person = PullRequestEvent.model_validate(
        {"pull_request": {"number": 3, "user": {"login": "carol", "type": "User"}, "labels": []}}
    )
    assert run_in_action(wired, action_step(env), why="t", pull=person).kind is done
    assert github.requests == []  # a human's unlabelled PR costs no request
    agent = PullRequestEvent.model_validate(
        {
            "pull_request": {
                "number": 4,
                "user": {"login": "codex[bot]", "type": "Bot"},
                "labels": [],
            }
        }
    )
    assert run_in_action(wired, action_step(env), why="t", pull=agent).kind is done
    assert labels(github)[4] == READY
