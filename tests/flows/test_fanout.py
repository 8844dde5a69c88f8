"""Fan-out: bounded, ordered, repaired once, circuit-broken and budgeted."""

from __future__ import annotations

import asyncio
import json

from consensus.model.base import FailureKind, FileStatus
from consensus.model.diff import ChangedFile, Chunk, ChunkPart, DiffLine, Hunk, ReviewDiff
from consensus.model.findings import ModelFailure, ModelReview
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelPrice
from consensus.review.fanout import ReviewCall, fan_out
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger, Limit
from consensus.settings.config import BudgetSettings, ProviderSettings
from consensus.testing import FakeModelClient, rate_limited

DB_PY = ChangedFile(
    path="src/app/db.py",
    status=FileStatus.MODIFIED,
    hunks=(
        Hunk(
            old_start=40,
            old_length=3,
            new_start=40,
            new_length=4,
            section="def get_user(user_id):",
            lines=(
                DiffLine(kind=" ", text="def get_user(user_id):", old_line=40, new_line=40),
                DiffLine(kind="-", text="    cur.execute(SQL, (user_id,))", old_line=41),
                DiffLine(
                    kind="+",
                    text='    q = f"SELECT * FROM users WHERE id = {user_id}"',
                    new_line=41,
                ),
                DiffLine(kind="+", text="    cur.execute(q)", new_line=42),
                DiffLine(kind=" ", text="    return cur.fetchone()", old_line=42, new_line=43),
            ),
        ),
    ),
    added=2,
    removed=1,
)
DIFF = ReviewDiff(files=(DB_PY,))
CHUNK = Chunk(index=0, parts=(ChunkPart(path="src/app/db.py", hunks=(0,)),), tokens=100)

SQL_FINDING = {
    "path": "src/app/db.py",
    "line": 41,
    "severity": "high",
    "category": "security",
    "title": "SQL injection through f-string query",
    "body": "Use a parameterized query.",
    "evidence": 'q = f"SELECT * FROM users WHERE id = {user_id}"',
}


def reply(*findings: dict[str, object]) -> str:
    return json.dumps({"findings": list(findings)})


def call(model: str, persona: str = "security", concurrency: int = 4) -> ReviewCall:
    provider = ProviderSettings(model=model, max_concurrency=concurrency)
    request = CompletionRequest(
        model=model, messages=(Message(role="user", content="review this"),)
    )
    return ReviewCall(provider=provider, persona=persona, chunk=CHUNK, request=request)


def run(
    calls: list[ReviewCall],
    client: FakeModelClient,
    *,
    concurrency: int = 8,
    budget: BudgetSettings | None = None,
) -> list[object]:
    guarded = GuardedClient(
        client, Ledger(budget or BudgetSettings(max_cost_usd=None, max_tokens=None))
    )
    return list(asyncio.run(fan_out(calls, guarded, DIFF, concurrency=concurrency)))


def test_a_valid_reply_becomes_an_attributed_review() -> None:
    client = FakeModelClient().queue("openai/gpt-5.1", [reply(SQL_FINDING)])
    [result] = run([call("openai/gpt-5.1")], client)
    assert isinstance(result, ModelReview)
    assert result.family == "openai"
    assert result.persona == "security"
    [finding] = result.findings
    assert (finding.path, finding.line, finding.provider) == ("src/app/db.py", 41, "openai/gpt-5.1")
    assert result.usage.calls == 1


def test_results_keep_the_planned_order_whatever_finishes_first() -> None:
    models = [f"openai/model-{i}" for i in range(6)]
    client = FakeModelClient(latency_s=0.01)
    results = run([call(m) for m in models], client)
    assert [r.provider for r in results] == models  # type: ignore[attr-defined]


def test_concurrency_is_bounded_overall_and_per_provider() -> None:
    client = FakeModelClient(latency_s=0.02)
    calls = [call("openai/a", persona=f"p{i}", concurrency=2) for i in range(6)]
    calls += [call("anthropic/claude-x", persona=f"p{i}", concurrency=8) for i in range(6)]
    run(calls, client, concurrency=3)
    assert client.max_in_flight == 3

    per_provider = FakeModelClient(latency_s=0.02)
    run([call("openai/a", persona=f"p{i}", concurrency=2) for i in range(6)], per_provider)
    assert per_provider.max_in_flight == 2


def test_an_invalid_reply_gets_one_repair_turn_quoting_the_error() -> None:
    broken = '{"findings": [{"path": "src/app/db.py", "line": "forty-one"}]}'
    client = FakeModelClient().queue("openai/gpt-5.1", [broken, reply(SQL_FINDING)])
    [result] = run([call("openai/gpt-5.1")], client)
    assert isinstance(result, ModelReview)
    assert result.repaired
    assert result.usage.calls == 2
    repair = client.calls[1].messages
    assert repair[-2].role == "assistant" and repair[-2].content == broken
    assert repair[-1].role == "user" and "line" in repair[-1].content


def test_a_reply_invalid_twice_is_that_providers_failure() -> None:
    client = FakeModelClient().queue("openai/gpt-5.1", ["I think it looks fine!", "LGTM"])
    [result] = run([call("openai/gpt-5.1")], client)
    assert isinstance(result, ModelFailure)
    assert result.kind is FailureKind.INVALID_REPLY
    assert result.usage.calls == 2
    assert len(client.calls) == 2


def test_truncated_json_is_repaired() -> None:
    truncated = reply(SQL_FINDING)[:70]
    client = FakeModelClient().queue("openai/gpt-5.1", [truncated, reply(SQL_FINDING)])
    [result] = run([call("openai/gpt-5.1")], client)
    assert isinstance(result, ModelReview) and result.repaired and len(result.findings) == 1


def test_findings_outside_the_diff_are_dropped_and_counted() -> None:
    outside = dict(SQL_FINDING, path="src/app/other.py", evidence=None)
    client = FakeModelClient().queue("openai/gpt-5.1", [reply(SQL_FINDING, outside)])
    [result] = run([call("openai/gpt-5.1")], client)
    assert isinstance(result, ModelReview)
    assert len(result.findings) == 1
    [dropped] = result.dropped
    assert dropped.path == "src/app/other.py"
    assert "not in the diff" in dropped.reason


def test_the_circuit_opens_after_three_consecutive_failures() -> None:
    client = FakeModelClient().queue("openai/dead", [rate_limited()] * 10)
    calls = [call("openai/dead", persona=f"p{i}", concurrency=1) for i in range(6)]
    results = run(calls, client)
    kinds = [r.kind for r in results]  # type: ignore[attr-defined]
    assert kinds[:3] == [FailureKind.RATE_LIMITED] * 3
    assert kinds[3:] == [FailureKind.CIRCUIT_OPEN] * 3
    assert len(client.calls) == 3


def test_a_success_resets_the_breaker() -> None:
    answers: list[str | ModelCallError] = [rate_limited(), rate_limited(), reply(), rate_limited()]
    client = FakeModelClient().queue("openai/flaky", answers)
    calls = [call("openai/flaky", persona=f"p{i}", concurrency=1) for i in range(5)]
    results = run(calls, client)
    assert len(client.calls) == 5
    assert not any(
        isinstance(r, ModelFailure) and r.kind is FailureKind.CIRCUIT_OPEN for r in results
    )


class WordCounter:
    """One token per word; every model priced at $0.001 a token in and out."""

    def count(self, model: str, text: str) -> int:
        return len(text.split())

    def context_window(self, model: str) -> int | None:
        return None

    def price(self, model: str) -> ModelPrice | None:
        return ModelPrice(input_per_token=0.001, output_per_token=0.001)


def capped(model: str, persona: str, *, words: int = 10, answer: int = 1_000) -> ReviewCall:
    """A call whose prompt is `words` words and whose answer may run to `answer` tokens."""
    request = CompletionRequest(
        model=model,
        messages=(Message(role="user", content=" ".join(["word"] * words)),),
        max_tokens=answer,
    )
    provider = ProviderSettings(model=model, max_concurrency=8)
    return ReviewCall(provider=provider, persona=persona, chunk=CHUNK, request=request)


def test_the_budget_refuses_a_call_whose_worst_case_does_not_fit() -> None:
    # Worst case per call: 10 words * 1.1 + 8 + 1,000 = 1,019 tokens; each spends 500.
    client = FakeModelClient(tokens_in=300, tokens_out=200)
    calls = [capped("openai/gpt-5.1", f"p{i}") for i in range(4)]
    ledger = Ledger(BudgetSettings(max_tokens=2_000, max_cost_usd=None))
    guarded = GuardedClient(client, ledger, WordCounter())
    results = asyncio.run(fan_out(calls, guarded, DIFF, concurrency=1))
    assert len(client.calls) == 2  # 500 + 1,019 fits; 1,000 + 1,019 does not
    refused = [r for r in results if isinstance(r, ModelFailure)]
    assert [(f.kind, f.sent) for f in refused] == [(FailureKind.BUDGET, False)] * 2
    assert "token budget reached (1,000 of 2,000)" in refused[0].message
    assert ledger.tokens == 1_000


def test_the_cost_budget_reserves_dollars() -> None:
    client = FakeModelClient(tokens_in=300, tokens_out=200, cost_usd=0.5)
    calls = [capped("openai/gpt-5.1", f"p{i}") for i in range(4)]
    ledger = Ledger(BudgetSettings(max_cost_usd=2.0, max_tokens=None))
    guarded = GuardedClient(client, ledger, WordCounter())
    results = asyncio.run(fan_out(calls, guarded, DIFF, concurrency=1))
    assert len(client.calls) == 2  # worst case $1.019 each: $0.50 + $1.019 fits, $1.00 + not
    refused = results[2]
    assert isinstance(refused, ModelFailure)
    assert "cost budget reached ($1.00 of $2.00)" in refused.message
    assert ledger.stopped_by == {Limit.COST}


def test_calls_in_flight_at_concurrency_8_never_spend_past_the_cap() -> None:
    # 48 calls answered at their longest, 8 at a time: without reservations all 8 would
    # start under the cap and together spend far past it.
    client = FakeModelClient(latency_s=0.01, tokens_in=19, tokens_out=1_000)
    calls = [capped(f"openai/m{i % 3}", f"p{i}") for i in range(48)]
    cap = 48 * 1_019 * 2 // 5  # 40% of the plan's worst case
    ledger = Ledger(BudgetSettings(max_tokens=cap, max_cost_usd=None))
    guarded = GuardedClient(client, ledger, WordCounter())
    results = asyncio.run(fan_out(calls, guarded, DIFF, concurrency=8))
    assert client.max_in_flight == 8
    assert ledger.tokens <= cap
    assert ledger.reserved_tokens == 0
    answered = [r for r in results if isinstance(r, ModelReview)]
    refused = [r for r in results if isinstance(r, ModelFailure)]
    assert len(answered) == cap // 1_019 == 19
    assert all(f.kind is FailureKind.BUDGET and not f.sent for f in refused)
