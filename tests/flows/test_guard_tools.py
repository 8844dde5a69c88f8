"""The guard and a model that takes no tools: its refusal of tools says nothing about the
provider's health, so the judge's question asked again without tools still goes out."""

from __future__ import annotations

import asyncio

import pytest

from consensus.model.base import FailureKind
from consensus.model.completion import ToolSpec
from consensus.ports import CompletionRequest, Message, ModelCallError
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.settings.config import BudgetSettings
from consensus.testing import FakeModelClient

TOOL = ToolSpec(name="read_file", description="Lines of a file.", parameters={"type": "object"})


def asked(tools: tuple[ToolSpec, ...]) -> CompletionRequest:
    return CompletionRequest(
        model="ollama/qwen2.5-coder:14b",
        messages=(Message(role="user", content="Title: total is unset"),),
        tools=tools,
    )


def test_refusing_tools_never_opens_the_breaker() -> None:
    def answer(request: CompletionRequest) -> str | ModelCallError:
        if request.tools:
            return ModelCallError(FailureKind.NO_TOOLS, "litellm lists no tool calling")
        return '{"verdict": "confirmed", "reason": "line 41"}'

    inner = FakeModelClient(by_request=answer)
    guard = GuardedClient(inner, Ledger(BudgetSettings(max_cost_usd=None, max_tokens=None)))

    async def judge_five_claims_at_once() -> str:
        # Five judges offered tools at once are refused one after another before any of
        # them asks again without tools: five failures in a row.
        for _ in range(5):
            with pytest.raises(ModelCallError) as refused:
                await guard.complete(asked((TOOL,)))
            assert refused.value.kind is FailureKind.NO_TOOLS
        return (await guard.complete(asked(()))).text

    text = asyncio.run(judge_five_claims_at_once())

    assert text.startswith('{"verdict": "confirmed"') and len(inner.calls) == 6
