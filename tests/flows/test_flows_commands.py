"""The slash commands that spend, in memory: `/consensus review`, `/consensus verify` and a
saved workflow, answered by `handle_comment` with the Services a face builds around
FakeGitHubHost and FakeModelClient."""

from __future__ import annotations

from pathlib import Path

from consensus.app.pull.review import review_pull_request
from consensus.app.talk.commands import handle_comment
from consensus.model.base import Status
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import ResultKind
from consensus.publish.state import decode_state
from consensus.publish.thread import ACTIONS
from tests.flows.flows_world import MAINTAINER, NUMBER, World, panel


def comment(world: World, body: str, login: str = MAINTAINER) -> str:
    """Post `body` as `login` and answer it; consensus's reply."""
    ident = world.host.seed_comment(NUMBER, body, author=login)
    event = IssueCommentEvent.model_validate(
        {
            "action": "created",
            "issue": {"number": NUMBER, "pull_request": {"url": "…"}},
            "comment": {"id": ident, "body": body, "user": {"login": login, "type": "User"}},
        }
    )
    result = handle_comment(world.services(), world.step(), event)
    assert result.kind is ResultKind.DONE
    return world.host.issue_comment_list[-1].body


def test_review_now_reviews_the_head_with_the_panel_and_publishes(tmp_path: Path) -> None:
    world = World(tmp_path)
    reply = comment(world, "/consensus review")
    assert "Reviewed aaaaaaaaaaaa: the summary comment is up to date." in reply
    assert {call.model for call in world.models.calls} == {
        "openai/gpt-5.1",
        "anthropic/claude-sonnet-4-5",
    }
    assert "SQL injection via f-string query" in world.summary()
    assert world.host.reactions[-1][1] == "rocket"


def test_review_now_without_a_key_fails_and_asks_no_model(tmp_path: Path) -> None:
    world = World(tmp_path, keys={})
    reply = comment(world, "/consensus review")
    assert "no provider key is available to this run: nothing was reviewed" in reply
    assert world.models.calls == []
    assert world.host.reactions[-1][1] == "confused"


def test_review_now_with_too_few_answers_says_there_was_no_review(tmp_path: Path) -> None:
    world = World(tmp_path, keys={"OPENAI_API_KEY": "sk-test"})
    reply = comment(world, "/consensus review")
    assert "no review: too few providers answered" in reply


def test_verify_asks_the_panel_and_records_the_verdict(tmp_path: Path) -> None:
    world = World(tmp_path)
    review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )
    world.models = panel(verdict="refuted")
    reply = comment(world, "/consensus verify F1")
    verifiers = [c for c in world.models.calls if c.schema_name == "verdict"]
    assert verifiers, "the panel was asked"
    assert "F1" in reply
    state = decode_state(world.summary())
    assert state is not None
    [record] = state.records
    assert record.status is Status.REJECTED
    assert record.verification is not None and record.verification.requested_by == MAINTAINER


def test_a_saved_workflow_runs_in_its_own_section(tmp_path: Path) -> None:
    world = World(tmp_path)
    reply = comment(world, "/consensus audit")
    assert "Ran the saved review workflow `audit`" in reply
    prompts = [call.messages[-1].content for call in world.models.calls]
    assert prompts and all("Look only for injection." in prompt for prompt in prompts)
    assert "Security audit of the change" in world.summary()
