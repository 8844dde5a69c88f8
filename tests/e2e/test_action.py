"""`consensus action` dispatch and inputs, in process (the end-to-end runs are in
test_action_e2e.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.action.main import run
from consensus.adapters.github import GitHubHost
from consensus.errors import UsageError
from consensus.settings.action_inputs import ActionInputs
from consensus_sim.github_server import FakeGitHub, PullRequest

REPO = "acme/service"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.repo(REPO).pulls[3] = PullRequest(
            number=3, head_sha="h" * 40, base_sha="b" * 40, files=[], draft=True
        )
        yield server


USER = {"login": "alice", "type": "User"}
COMMENT = {"id": 11, "body": "/consensus help", "user": USER}
COMMENT_ON_ISSUE = {"issue": {"number": 5}, "comment": COMMENT}
COMMENT_ON_PR = {"issue": {"number": 3, "pull_request": {"url": "…"}}, "comment": COMMENT}


def env_for(tmp_path: Path, event: str, payload: dict[str, object]) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": REPO,
    }


@pytest.mark.parametrize(
    ("event", "payload", "said"),
    [
        ("issue_comment", {"action": "created", **COMMENT_ON_ISSUE}, "not a pull request"),
        ("issue_comment", {"action": "edited", **COMMENT_ON_PR}, "only new comments run commands"),
        ("push", {}, "is not handled"),
        ("pull_request", {"action": "labeled", "pull_request": {"number": 3}}, "nothing to review"),
    ],
)
def test_events_that_are_not_reviewed_say_why_and_exit_0(
    tmp_path: Path, event: str, payload: dict[str, object], said: str
) -> None:
    lines: list[str] = []
    assert run(env_for(tmp_path, event, payload), log=lines.append) == 0
    assert any(said in line for line in lines), lines


def test_a_draft_is_skipped_unless_configured(tmp_path: Path, github: FakeGitHub) -> None:
    host = GitHubHost(REPO, token="t", base_url=github.url, write_interval_s=0)
    env = env_for(tmp_path, "pull_request", {"action": "opened", "pull_request": {"number": 3}})
    lines: list[str] = []
    assert run(env, log=lines.append, host=host) == 0
    assert any("is a draft: skipped" in line for line in lines)
    # Who the token is (once per run), then the PR, nothing else.
    assert [(r.method, r.path) for r in github.requests] == [
        ("GET", "/user"),
        ("GET", f"/repos/{REPO}/pulls/3"),
    ]


def test_a_payload_that_is_not_a_pull_request_is_a_usage_error(tmp_path: Path) -> None:
    env = env_for(tmp_path, "pull_request", {"action": "opened"})
    with pytest.raises(UsageError, match="not a valid pull_request event payload: pull_request"):
        run(env, log=lambda line: None)


def test_a_comment_event_without_its_comment_names_the_missing_field(tmp_path: Path) -> None:
    env = env_for(tmp_path, "issue_comment", {"action": "created", "issue": {"number": 3}})
    with pytest.raises(UsageError, match="not a valid issue_comment event payload: comment: Field"):
        run(env, log=lambda line: None)


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("CONSENSUS_FAIL_ON", "high", "fail_on", "high"),
        ("CONSENSUS_MAX_INLINE_COMMENTS", "3", "max_inline_comments", 3),
        ("CONSENSUS_REVIEW_DRAFTS", "true", "review_drafts", True),
        ("CONSENSUS_MIN_SEVERITY", "", "min_severity", None),  # an empty input is unset
    ],
)
def test_inputs_from_the_environment(
    variable: str, value: str, field: str, expected: object
) -> None:
    inputs = ActionInputs.from_env({variable: value})
    assert getattr(inputs, field) == expected


def test_a_bad_input_names_its_variable() -> None:
    with pytest.raises(UsageError, match="CONSENSUS_FAIL_ON"):
        ActionInputs.from_env({"CONSENSUS_FAIL_ON": "sometimes"})
