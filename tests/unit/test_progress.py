"""The live bar's running cost: dollars while every model that answered has a price, and
never a made-up $0.0000 for a model without one."""

from __future__ import annotations

from consensus.app.progress import Totals
from consensus.model.findings import ModelReview, Usage
from consensus.ports import CompletionRequest, Message
from consensus.review.fanout import ReviewCall
from consensus.settings.config import ProviderSettings
from tests.flows.test_fanout import CHUNK

PRICED = {"openai/gpt-5.1", "ollama/qwen2.5-coder:14b"}  # a local model is priced: at $0


def finished(model: str, cost: float, tokens: int = 2_400) -> tuple[ReviewCall, ModelReview]:
    request = CompletionRequest(model=model, messages=(Message(role="user", content="review"),))
    call = ReviewCall(
        provider=ProviderSettings(model=model), persona="security", chunk=CHUNK, request=request
    )
    usage = Usage(tokens_in=tokens - 400, tokens_out=400, cost_usd=cost, calls=1)
    review = ModelReview(
        provider=model, family="x", persona="security", chunk=0, paths=(), usage=usage
    )
    return call, review


def totals() -> Totals:
    return Totals(lambda model: model in PRICED)


def test_priced_models_add_up_in_dollars() -> None:
    running = totals()
    running.add(*finished("openai/gpt-5.1", 0.0123))
    running.add(*finished("openai/gpt-5.1", 0.0100))
    assert (running.done, running.tokens) == (2, 4_800)
    assert running.cost_text() == "$0.0223"


def test_a_free_local_model_costs_nothing_and_says_so() -> None:
    running = totals()
    running.add(*finished("ollama/qwen2.5-coder:14b", 0.0))
    assert running.cost_text() == "$0.0000"


def test_a_model_without_a_price_makes_the_cost_unknown_not_zero() -> None:
    running = totals()
    running.add(*finished("openai/my-finetune", 0.0))
    assert running.cost_text() == "cost unknown"


def test_priced_and_unpriced_models_together_show_the_known_part_and_say_what_is_missing() -> None:
    running = totals()
    running.add(*finished("openai/gpt-5.1", 0.0123))
    running.add(*finished("openai/my-finetune", 0.0))
    assert running.cost_text() == "$0.0123 + unpriced models"
