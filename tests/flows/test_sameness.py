"""SAME PROBLEM?: align's open questions put to verifiers, first-to-ahead-by-2, journaled."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from consensus.adapters.journal import Journal
from consensus.adapters.recording import JournaledClient
from consensus.decide.align import SameProblemQuestion, align, open_questions
from consensus.model.base import Category, Severity
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Finding
from consensus.ports import ModelCallError, ModelClient
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.review.sameness import ask_same_problem, judges_for
from consensus.settings.config import BudgetSettings, ProviderSettings
from consensus.testing import FakeModelClient, rate_limited

PANEL = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
    ProviderSettings(model="ollama/qwen2.5-coder:14b"),
)


def finding(provider: str, family: str, title: str, body: str) -> Finding:
    return Finding(
        provider=provider, family=family, persona="correctness", chunk=0,
        path="web/api/users.ts", line=55, end_line=55, severity=Severity.MEDIUM,
        category=Category.BUG, title=title, body=body,
    )  # fmt: skip


# Two findings at one place that name no known kind of defect: an open question.
BEFORE_WRITE = finding(
    "openai/gpt-5.1", "openai", "Response sent before the database write completes",
    "The handler calls `res.json(user)` right after `saveUser(user)`.",
)  # fmt: skip
NOT_SAVED = finding(
    "anthropic/claude-sonnet-4-5", "anthropic", "Users created here are sometimes missing",
    "A client that reads the new user back right away gets a 404.",
)  # fmt: skip
[QUESTION] = open_questions([BEFORE_WRITE, NOT_SAVED])


def said(*answers: str | ModelCallError) -> FakeModelClient:
    queue: deque[str | ModelCallError] = deque(
        a if isinstance(a, ModelCallError) else json.dumps({"verdict": a, "reason": "…"})
        for a in answers
    )
    return FakeModelClient(by_request=lambda request: queue.popleft())


def ask(
    client: ModelClient,
    questions: Sequence[SameProblemQuestion] = (QUESTION,),
    *,
    panel: Sequence[ProviderSettings] = PANEL,
    budget: BudgetSettings | None = None,
) -> dict[SameProblemQuestion, bool]:
    ledger = Ledger(budget or BudgetSettings(max_cost_usd=None, max_tokens=None))
    return asyncio.run(
        ask_same_problem(
            questions,
            diff=ReviewDiff(),
            panel=panel,
            client=GuardedClient(client, ledger),
            ledger=ledger,
            concurrency=1,  # answers are consumed in the order calls are made
        )
    )


# The words say little: nothing shared. Unanswered, two problems.
GUESTS = finding(
    "gemini/gemini-2.5-pro", "google", "Guests see a blank checkout page",
    "The template reads `cart.owner.name`.",
)  # fmt: skip
[UNLIKE] = open_questions([BEFORE_WRITE, GUESTS])
S, D = "same", "different"


@pytest.mark.parametrize(
    ("question", "answers", "outcome", "calls"),
    [
        # The words say one problem: "same" needs a lead of 2, "different" one of 3.
        (QUESTION, [S, S], True, 2),
        (QUESTION, [D, D, D], False, 3),
        (QUESTION, [D, D, S, S, S], True, 5),
        (QUESTION, [S, D, S, S], True, 4),
        (QUESTION, [D, S, D, D, D], False, 5),
        (QUESTION, [S, D, D, S, D], False, 5),  # the cap: the majority
        (QUESTION, [S, "UNREADABLE", "UNREADABLE", S], True, 4),  # a bad reply is resampled
        # The words say two: "different" needs a lead of 2, "same" one of 3.
        (UNLIKE, [D, D], False, 2),
        (UNLIKE, [S, S, S], True, 3),
        (UNLIKE, [S, S, D, D, D], False, 5),
    ],
)
def test_first_to_ahead_by_two_and_three_to_overturn_the_words(
    question: SameProblemQuestion, answers: list[str], outcome: bool, calls: int
) -> None:
    assert (QUESTION.default, UNLIKE.default) == (True, False)
    replies: deque[str] = deque(
        a if a == "UNREADABLE" else json.dumps({"verdict": a, "reason": "…"}) for a in answers
    )
    client = FakeModelClient(by_request=lambda request: replies.popleft())
    assert ask(client, [question]) == {question: outcome}
    assert len(client.calls) == calls


@pytest.mark.parametrize(
    "answers",
    [
        pytest.param([rate_limited()] * 2, id="every-judge-fails"),
        pytest.param(["same", "different", rate_limited(), rate_limited()], id="a-tie-at-a-halt"),
    ],
)
def test_no_answer_leaves_the_question_to_the_words(answers: list[str | ModelCallError]) -> None:
    assert ask(said(*answers)) == {}
    assert QUESTION.default is True  # the words share enough (user, save): one problem
    assert len(align([BEFORE_WRITE, NOT_SAVED], answers={})) == 1


def test_a_spent_budget_refuses_the_question_and_nothing_is_decided() -> None:
    client = said("same", "same")
    assert ask(client, budget=BudgetSettings(max_tokens=0, max_cost_usd=None)) == {}
    assert client.calls == []


def test_judges_are_of_families_that_reported_neither_side_first() -> None:
    judges = [p.model for p in judges_for(QUESTION, PANEL)]
    assert judges == [
        "gemini/gemini-2.5-pro",
        "ollama/qwen2.5-coder:14b",
        "openai/gpt-5.1",
        "anthropic/claude-sonnet-4-5",
    ]
    client = said("same", "same")
    ask(client)
    assert [c.model for c in client.calls] == judges[:2]


def test_the_question_shows_both_findings_and_hides_who_reported_them() -> None:
    client = said("same", "same")
    ask(client)
    prompt = client.calls[0].messages[-1].content
    assert BEFORE_WRITE.title in prompt and NOT_SAVED.title in prompt
    assert "lines 55-55 of web/api/users.ts" in prompt
    for name in ("openai", "anthropic", "gpt", "claude"):
        assert name not in prompt.lower()
    bodies = [json.dumps([m.content for m in c.messages]) for c in client.calls]
    assert len(set(bodies)) == len(bodies)  # each judge's answer is its own request


def test_the_questions_and_their_requests_do_not_depend_on_arrival_order() -> None:
    assert open_questions([NOT_SAVED, BEFORE_WRITE]) == [QUESTION]
    first, second = said("same", "same"), said("same", "same")
    ask(first)
    asyncio.run(asyncio.sleep(0))
    ask(second, open_questions([NOT_SAVED, BEFORE_WRITE]))
    assert first.calls == second.calls


def test_answers_are_journaled_and_replayed_without_calling(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    journal.start_run("r1", "r1", "label", "{}")
    inner = said("same", "different", "same", "same")
    recorded = ask(JournaledClient(journal, "r1", inner))
    replayed = ask(JournaledClient(journal, "r1", None))
    assert recorded == replayed == {QUESTION: True}
    assert len(inner.calls) == 4


def many(answers: Iterable[str]) -> FakeModelClient:
    return said(*answers)


def test_a_panel_of_one_asks_the_same_model_again() -> None:
    client = many(["same", "same"])
    assert ask(client, panel=PANEL[:1]) == {QUESTION: True}
    assert [c.model for c in client.calls] == ["openai/gpt-5.1"] * 2
