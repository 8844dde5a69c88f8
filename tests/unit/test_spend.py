"""Money per pull request: the cumulative spend in the state and the per-PR cap."""

from __future__ import annotations

import pytest

from consensus.model.host import GITHUB_WORDS
from consensus.model.report import BudgetReport, Quorum, Report, Stats
from consensus.publish.spend import Spent, allowance, cap_comment, spend_text, spent_after
from consensus.publish.state import PublishState, decode_state, encode_state
from consensus.review.budget import Ceiling, Reservation, plan_budget
from consensus.settings.config import BudgetSettings


def report(cost: float | None, tokens: int, *, cap_usd: float | None = 1.0) -> Report:
    return Report(
        run_id="r1",
        quorum=Quorum(families_answered=2, min_providers=2, met=True),
        threshold=0.75,
        stats=Stats(calls=4, tokens_in=tokens - 100, tokens_out=100, cost_usd=cost),
        budget=BudgetReport(
            max_tokens=100_000,
            max_cost_usd=cap_usd,
            tokens_source="auto",
            cost_source="auto" if cap_usd is not None else "unknown",
            needed_tokens=90_000,
            needed_cost_usd=cap_usd,
        ),
    )


def test_each_run_adds_its_cost_and_its_caps_to_the_prs_spend() -> None:
    spent = spent_after(None, report(0.40, 5_000))
    spent = spent_after(spent, report(0.35, 4_000))
    assert (spent.cost_usd, spent.tokens, spent.runs) == (0.75, 9_000, 2)
    assert (spent.run_cap_usd, spent.run_cap_tokens) == (1.0, 100_000)
    assert spend_text(spent, GITHUB_WORDS) == "$0.75 on this PR over 2 runs"


def test_the_spend_survives_the_summary_state() -> None:
    state = PublishState(spent=spent_after(None, report(0.40, 5_000)))
    decoded = decode_state(f"summary\n{encode_state(state)}")
    assert decoded is not None and decoded.spent == state.spent


@pytest.mark.parametrize(
    ("setting", "spent", "left", "stopped"),
    [
        ("auto", 4.0, 1.0, False),  # 5 × the run's $1.00 cap
        ("auto", 5.0, 0.0, True),
        (2.5, 2.5, 0.0, True),
        (None, 50.0, None, False),  # no per-PR cap
    ],
)
def test_the_per_pr_cap_is_five_runs_unless_set(
    setting: float | str | None, spent: float, left: float | None, stopped: bool
) -> None:
    budget = BudgetSettings.model_validate({"max_cost_usd_per_pr": setting})
    state = Spent(cost_usd=spent, tokens=1, runs=3, run_cap_usd=1.0, run_cap_tokens=1_000)
    allowed = allowance(budget, state)
    assert allowed.cost_usd == left and allowed.exhausted is stopped


def test_unpriced_runs_fall_back_to_tokens() -> None:
    spent = spent_after(None, report(None, 400_000, cap_usd=None))
    assert (
        spend_text(spent, GITHUB_WORDS)
        == "$0.00 + 400,000 tokens at unknown prices on this PR over 1 run"
    )
    allowed = allowance(BudgetSettings(), spent)
    assert allowed.cap_usd is None and allowed.cap_tokens == 500_000
    assert allowed.tokens == 100_000 and not allowed.exhausted
    assert "500,000 tokens (prices unknown)" in cap_comment(spent, allowed, "a" * 40, GITHUB_WORDS)


def test_a_run_never_gets_more_than_the_pr_has_left() -> None:
    planned = [Reservation(tokens=10_000, cost_usd=0.10)] * 10
    free = plan_budget(BudgetSettings(), planned, unpriced=[], changed_lines=100)
    assert free.max_cost_usd is not None and free.max_cost_usd > 0.30
    held = plan_budget(
        BudgetSettings(), planned, unpriced=[], changed_lines=100, ceiling=Ceiling(cost_usd=0.30)
    )
    assert (held.max_cost_usd, held.cost_source, held.fits) == (0.30, "pr", False)


def test_a_cost_cap_with_unknown_prices_says_it_holds_in_tokens_only() -> None:
    planned = [Reservation(tokens=10_000, cost_usd=None)] * 4
    settings = BudgetSettings(max_cost_usd=1.0, max_tokens=30_000)
    budget = plan_budget(settings, planned, unpriced=["openai/local-model"], changed_lines=50)
    assert not budget.cost_enforced
    [note] = budget.notes()
    assert note == (
        "the cost cap ($1.00) cannot be enforced in money: no known price for "
        "openai/local-model; the token cap holds (30,000 tokens)"
    )


def test_a_run_with_no_planned_review_call_is_capped_in_tokens_not_at_zero_dollars() -> None:
    # `/consensus verify` plans no review call: its cap is the verification share.
    budget = plan_budget(BudgetSettings(), [], unpriced=[], changed_lines=0)
    assert budget.max_tokens == 50_000 and budget.max_cost_usd is None
