"""The Action's review flow and the budget, in memory: an incomplete review's result and
summary, a superseded head, and the per-PR budget's gate."""

from __future__ import annotations

from pathlib import Path

from consensus.app.exit_codes import exit_code
from consensus.app.pull.review import review_pull_request
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import PullRequestInfo
from consensus.publish.spend import SPEND_MARKER, Spent
from consensus.publish.state import PublishState, decode_state, encode_state
from consensus.publish.thread import ACTIONS, SUMMARY_MARKER
from consensus.testing import FakeGitHubHost
from tests.flows.flows_world import CONFIG, HEAD_SHA, NUMBER, World

NEWER = "f" * 40


def review(world: World, *, event_head: str = "") -> FlowResult:
    return review_pull_request(
        world.services(),
        world.step(),
        NUMBER,
        event="pull_request",
        carry=True,
        identity=ACTIONS,
        event_head=event_head,
    )


def with_config(world: World, extra: str) -> World:
    world.host.pulls[NUMBER].base_files[".consensus.yml"] = CONFIG + extra
    return world


def test_a_budget_stop_is_incomplete_says_so_first_and_fails_or_warns(tmp_path: Path) -> None:
    world = with_config(World(tmp_path), "budget: {max_tokens: 4000, max_cost_usd: null}\n")
    result = review(world)
    assert result.kind is ResultKind.INCOMPLETE
    assert result.reason.startswith("Incomplete: 1 of 1 file was not reviewed by any model")
    assert "--max-tokens" in result.reason
    assert world.models.calls == []  # no call's worst case fits 4,000 tokens
    summary = world.summary().splitlines()
    opening = "\n".join(summary[:6])
    assert "Incomplete: 1 of 1 file was not reviewed by any model (budget reached)" in opening
    assert exit_code(result, fail_on="none", log=world.lines.append) == 3
    assert exit_code(result, fail_on="none", log=world.lines.append, on_no_review="warn") == 0


def test_an_event_for_a_superseded_head_asks_no_model(tmp_path: Path) -> None:
    world = World(tmp_path)
    result = review(world, event_head=NEWER)  # the PR's head is HEAD_SHA
    assert result == FlowResult.skipped("superseded by a newer push")
    assert world.models.calls == [] and world.host.issue_comment_list == []


class PushedDuringTheRun(FakeGitHubHost):
    """The PR's head moves after the run read it: a push while it read the diff."""

    def pull_request(self, number: int) -> PullRequestInfo:
        info = super().pull_request(number)
        self.reads = getattr(self, "reads", 0) + 1
        return info if self.reads == 1 else info.model_copy(update={"head_sha": NEWER})


def test_a_head_that_moves_before_the_model_phase_stops_the_run_there(tmp_path: Path) -> None:
    world = World(tmp_path, host=PushedDuringTheRun(permissions={}))
    result = review(world, event_head=HEAD_SHA)
    assert result == FlowResult.skipped("superseded by a newer push")
    assert world.models.calls == [] and world.host.issue_comment_list == []


def test_the_pr_budget_spent_stops_automatic_reviews_with_one_comment(tmp_path: Path) -> None:
    world = with_config(World(tmp_path), "budget: {max_cost_usd_per_pr: 1.0}\n")
    spent = Spent(cost_usd=1.02, tokens=90_000, runs=4, run_cap_usd=0.5)
    body = f"{SUMMARY_MARKER}\n## consensus review\n{encode_state(PublishState(spent=spent))}"
    world.host.create_issue_comment(NUMBER, body)
    for _ in range(2):
        result = review(world)
        assert result == FlowResult.skipped("the pull request's budget is spent")
    assert world.models.calls == []
    [notice] = [c.body for c in world.host.issue_comment_list if SPEND_MARKER in c.body]
    assert "$1.02 on this PR over 4 runs" in notice and "`/consensus review`" in notice


def test_each_run_adds_its_cost_to_the_prs_spend(tmp_path: Path) -> None:
    world = World(tmp_path)
    review(world)
    first = decode_state(world.summary())
    assert first is not None and first.spent is not None and first.spent.runs == 1
    assert "on this PR" not in world.summary()  # one run: its cost is the PR's, said once
    spent = Spent(cost_usd=0.5, tokens=9_000, runs=2, run_cap_usd=0.5)
    body = f"{SUMMARY_MARKER}\n## consensus review\n{encode_state(PublishState(spent=spent))}"
    (tmp_path / "again").mkdir()
    again = World(tmp_path / "again")
    again.host.create_issue_comment(NUMBER, body)
    review(again)
    assert "this run" in again.summary() and "on this PR over 3 runs" in again.summary()
