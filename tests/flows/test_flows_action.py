"""The Action's review flow in memory: `review_pull_request` with the Services a face
builds, around FakeGitHubHost and FakeModelClient. What it publishes, what it returns (an
FlowResult) and the exit code the face makes of it."""

from __future__ import annotations

from pathlib import Path

from consensus.app.exit_codes import exit_code
from consensus.app.pull.review import review_pull_request
from consensus.model.base import Severity
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.publish.thread import ACTIONS
from consensus.settings.action_inputs import ActionInputs
from tests.flows.flows_world import NUMBER, World, panel


def review(world: World, *, carry: bool = True) -> FlowResult:
    return review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=carry, identity=ACTIONS
    )


def test_a_push_is_reviewed_published_and_fails_on_its_severity(tmp_path: Path) -> None:
    world = World(tmp_path)
    result = review(world)
    assert result.kind is ResultKind.REVIEWED
    assert result.posted == (Severity.HIGH,)
    asked = {call.model for call in world.models.calls}
    assert asked == {"openai/gpt-5.1", "anthropic/claude-sonnet-4-5"}
    [posted] = world.host.review_comment_list
    assert "SQL injection via f-string query" in posted.body
    assert "SQL injection via f-string query" in world.summary()
    assert "run-id=" in (tmp_path / "outputs").read_text()
    assert (tmp_path / "consensus-report.json").is_file()
    assert exit_code(result, fail_on="high", log=world.lines.append) == 1
    assert exit_code(result, fail_on="critical", log=world.lines.append) == 0


def test_the_same_diff_again_carries_its_decisions_and_asks_no_model(tmp_path: Path) -> None:
    world = World(tmp_path)
    review(world)
    calls = len(world.models.calls)
    again = review(world)
    assert again.kind is ResultKind.REVIEWED
    assert len(world.models.calls) == calls
    assert any("its decisions are carried, no model is asked" in line for line in world.lines)
    fresh = review(world, carry=False)  # `full-review`: decided again by the models
    assert fresh.kind is ResultKind.REVIEWED and len(world.models.calls) > calls


def test_one_key_is_no_quorum_an_incomplete_review_exit_3_or_a_warning(tmp_path: Path) -> None:
    world = World(tmp_path, keys={"OPENAI_API_KEY": "sk-test"})
    result = review(world)
    assert result.kind is ResultKind.INCOMPLETE and not result.quorum_met
    assert result.reason.startswith("quorum not met: 1 family answered, 2 needed")
    assert {call.model for call in world.models.calls} == {"openai/gpt-5.1"}
    assert world.host.review_comment_list == []  # advisory only: nothing inline
    assert "ANTHROPIC_API_KEY is not set" in "\n".join(world.lines)
    assert exit_code(result, fail_on="none", log=world.lines.append) == 3
    assert exit_code(result, fail_on="none", log=world.lines.append, on_no_review="warn") == 0


def test_a_draft_is_skipped_with_its_reason_and_asks_nothing(tmp_path: Path) -> None:
    world = World(tmp_path)
    pull = world.host.pulls[NUMBER]
    pull.info = pull.info.model_copy(update={"draft": True})
    result = review(world)
    assert result == FlowResult.skipped("a draft")
    assert world.models.calls == [] and world.host.issue_comment_list == []
    assert exit_code(result, fail_on="low", log=world.lines.append) == 0


def test_the_workflow_input_reviews_with_the_saved_workflow(tmp_path: Path) -> None:
    world = World(tmp_path, inputs=ActionInputs(workflow="audit"))
    result = review(world)
    assert result.kind is ResultKind.REVIEWED
    prompts = [call.messages[-1].content for call in world.models.calls]
    assert prompts and all("Look only for injection." in prompt for prompt in prompts)
    assert "Security audit of the change" in world.summary()


def test_a_clean_diff_is_reviewed_and_posts_nothing(tmp_path: Path) -> None:
    world = World(tmp_path, models=panel(finds=False))
    result = review(world)
    assert result == FlowResult(kind=ResultKind.REVIEWED)
    assert world.host.review_comment_list == []
    assert exit_code(result, fail_on="info", log=world.lines.append) == 0


def test_a_checkout_without_the_prs_commits_says_the_judges_cannot_read_the_code(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)  # no checkout: the default actions/checkout holds one commit
    review(world)
    assert any(
        line.startswith("warning: the judges cannot read the repository")
        and "fetch-depth: 0" in line
        for line in world.lines
    )
