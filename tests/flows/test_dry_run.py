"""consensus.dry_run: the plan of a review and its cost, from plain data, no provider."""

from __future__ import annotations

from consensus.ingest.chunking import split_large_hunks
from consensus.ingest.review_diff import ingest
from consensus.model.analysis import AnalyzerCheck
from consensus.ports import ModelPrice
from consensus.render.dry_run import render_dry_run_json, render_dry_run_text
from consensus.review.dry_run_text import plan_dry_run, prompt_tokens
from consensus.review.pipeline import plan_calls
from consensus.settings.config import ProviderSettings
from consensus.settings.personas import load_personas


class WordCounter:
    """One token per word, per model; a small window so that the diff needs chunks."""

    def count(self, model: str, text: str) -> int:
        return len(text.split()) * (2 if "claude" in model else 1)

    def context_window(self, model: str) -> int | None:
        return 12_000


def _diff() -> str:
    body = "".join(f"+value_{n} = compute({n}) + offset\n" for n in range(3_000))
    return (
        "diff --git a/src/table.py b/src/table.py\nnew file mode 100644\nindex 0..1\n"
        f"--- /dev/null\n+++ b/src/table.py\n@@ -0,0 +1,3000 @@\n{body}"
        "diff --git a/logo.png b/logo.png\nindex 1..2 100644\n"
        "Binary files a/logo.png and b/logo.png differ\n"
    )


PROVIDERS = (
    ProviderSettings(model="openai/gpt-test"),
    ProviderSettings(model="anthropic/claude-test"),
    ProviderSettings(model="gemini/gemini-test"),
)
PRICES = {
    "openai/gpt-test": ModelPrice(input_per_token=2e-6, output_per_token=8e-6),
    "anthropic/claude-test": ModelPrice(input_per_token=3e-6, output_per_token=15e-6),
}


def test_the_plan_counts_the_calls_and_tokens_a_review_would_send() -> None:
    diff = split_large_hunks(ingest(_diff()))
    personas = [
        p for pid, p in sorted(load_personas([]).items()) if pid in ("correctness", "security")
    ]
    counter = WordCounter()
    plan = plan_dry_run(
        diff,
        providers=PROVIDERS,
        personas=personas,
        unavailable={"gemini/gemini-test": "GEMINI_API_KEY is not set"},
        counter=counter,
        prices=PRICES,
        default_window=8_000,
    )
    calls = plan_calls(
        diff, providers=PROVIDERS, personas=personas, counter=counter, default_window=8_000
    )
    gpt, claude, gemini = plan.providers
    for provider in (gpt, claude):
        mine = [c for c in calls if c.provider.model == provider.model]
        assert provider.chunks > 1  # the window forced chunks
        assert provider.calls == len(mine) == provider.chunks * 2
        assert provider.prompt_tokens == sum(prompt_tokens(c.request, counter) for c in mine)
        price = PRICES[provider.model]
        assert provider.cost_usd == round(provider.prompt_tokens * price.input_per_token, 6)
        assert provider.max_cost_usd is not None and provider.max_cost_usd > provider.cost_usd
    assert claude.prompt_tokens > gpt.prompt_tokens  # each model's own tokenizer
    assert (gemini.status, gemini.calls) == ("not called: GEMINI_API_KEY is not set", 0)
    assert plan.calls == gpt.calls + claude.calls
    assert plan.prompt_tokens == gpt.prompt_tokens + claude.prompt_tokens
    assert plan.files == ["src/table.py"]
    assert [(s.path, s.reason) for s in plan.skipped] == [("logo.png", "binary")]

    text = render_dry_run_text(plan)
    assert "nothing was sent to any provider" in text
    assert "logo.png: binary" in text
    assert "not called: GEMINI_API_KEY is not set" in text
    assert f"{plan.prompt_tokens:,} prompt tokens" in text
    assert '"calls": ' in render_dry_run_json(plan)


def test_a_model_without_a_price_makes_the_cost_unknown_not_zero() -> None:
    diff = ingest(_diff())
    plan = plan_dry_run(
        diff,
        providers=PROVIDERS[:1],
        personas=[load_personas([])["correctness"]],
        unavailable={},
        counter=WordCounter(),
        prices={"openai/gpt-test": None},
        default_window=8_000,
    )
    assert plan.cost_usd is None and plan.providers[0].cost_usd is None
    assert "unknown (no price in litellm's map)" in render_dry_run_text(plan)


def test_the_plan_says_which_analyzer_would_run_and_why_another_would_not() -> None:
    small = (
        "diff --git a/cart.py b/cart.py\nindex 1..2 100644\n--- a/cart.py\n+++ b/cart.py\n"
        "@@ -1,2 +1,2 @@\n def total(items):\n-    return sum(i.price for i in items)\n"
        "+    return sum(i.price for i in itemz)\n"
    )
    plan = plan_dry_run(
        ingest(small),
        providers=PROVIDERS[:1],
        personas=[load_personas([])["correctness"]],
        unavailable={},
        counter=WordCounter(),
        prices=PRICES,
        default_window=8_000,
    ).with_analyzers(
        [
            AnalyzerCheck(name="ruff", ready=True, detail="ruff 0.8.4"),
            AnalyzerCheck(
                name="semgrep", ready=False, detail="not installed (pip install semgrep)"
            ),
        ]
    )
    text = render_dry_run_text(plan)
    assert "  ruff      yes: ruff 0.8.4" in text
    assert "  semgrep   no: not installed (pip install semgrep)" in text
    assert "the review goes on without it" in text
    assert plan.would_finish  # an analyzer that cannot run never stops the review
    assert '"name": "semgrep"' in render_dry_run_json(plan)
