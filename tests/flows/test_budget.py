"""The run's budget: derived from the plan, a hard cap, and advice that finishes the review.

In process, with the models' own tokenizers and prices (litellm's map, installed) and a
fake model that answers every call at its longest: the worst case the budget reserves.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from consensus.adapters.journal import Journal
from consensus.adapters.llm import LiteLLMTokenCounter
from consensus.app.journaled import run_review
from consensus.app.services import ProviderKeys, Services
from consensus.ingest.review_diff import ingest
from consensus.ingest.risk import Tier, risk_order, tier
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile
from consensus.model.report import Report
from consensus.ports import Completion, CompletionRequest, TokenCounter
from consensus.render import render
from consensus.review.budget import OUTPUT_TOKENS, REFERENCE_LINES, worst_case
from consensus.review.dry_run_text import plan_dry_run
from consensus.review.job import ReviewJob
from consensus.review.pipeline import ReviewServices, plan_calls, review
from consensus.review.redacting import RedactingClient
from consensus.settings.config import AUTO_PROVIDERS, Settings, resolve_providers
from consensus.settings.personas import load_personas, select_personas
from tests.flows.flows_world import NoCheckout

KEYS = {key: "sk-test" for key, _ in AUTO_PROVIDERS[:3]}  # OpenAI, Anthropic, Gemini


def change(files: int, lines_per_file: int) -> str:
    """A unified diff: `files` Python modules, each rewriting `lines_per_file` lines (one
    hunk each, the lines removed and added: 2 × lines_per_file changed lines a file)."""
    out = []
    for n in range(files):
        path = f"src/pkg/module_{n:02d}.py"
        removed = [f"-    total_{i} = compute(total_{i - 1}, {i})" for i in range(lines_per_file)]
        added = [
            f"+    total_{i} = compute(total_{i - 1}, {i}, scale)" for i in range(lines_per_file)
        ]
        out += [
            f"diff --git a/{path} b/{path}",
            "index 1111111..2222222 100644",
            f"--- a/{path}",
            f"+++ b/{path}",
            f"@@ -10,{lines_per_file + 2} +10,{lines_per_file + 2} @@ def run(scale):",
            "     total_0 = 0",
            *removed,
            *added,
            "     return total_0",
        ]
    return "\n".join(out) + "\n"


@dataclass
class LongestAnswers:
    """A model client whose every answer is as long as the request allows, priced at the
    model's price: each call spends exactly the worst case the budget plans for it."""

    counter: TokenCounter
    calls: list[CompletionRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        self.calls.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        tokens_in = sum(self.counter.count(request.model, m.content) for m in request.messages)
        tokens_out = request.max_tokens or OUTPUT_TOKENS
        price = self.counter.price(request.model)
        cost = 0.0
        if price is not None:
            cost = tokens_in * price.input_per_token + tokens_out * price.output_per_token
        return Completion(
            text=self.text(request), tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost
        )

    def text(self, request: CompletionRequest) -> str:
        return '{"findings": []}'


@pytest.fixture(scope="module")
def counter() -> LiteLLMTokenCounter:
    return LiteLLMTokenCounter()


def job_for(diff_text: str, settings: Settings) -> ReviewJob:
    personas = select_personas(load_personas([]), settings.personas)
    return ReviewJob(
        diff=ingest(diff_text),
        settings=settings,
        providers=resolve_providers(settings, KEYS),
        personas=tuple(personas),
        unavailable={},
        verify=True,
        label="test",
    )


def reviewed(job: ReviewJob, client: LongestAnswers, counter: TokenCounter) -> Report:
    return asyncio.run(review(job, ReviewServices(client=client, counter=counter)))


def services(client: LongestAnswers, counter: TokenCounter, journal: Path) -> Services:
    """What `run_review` works with: the fake model, the real counter, a journal file."""
    return Services(
        models=RedactingClient(client),
        counter=counter,
        keys=ProviderKeys(KEYS, needed_keys=lambda model: ()),
        journal=lambda: Journal(journal),
        log=lambda line: None,
        checkout=NoCheckout(),
    )


def test_the_default_panel_completes_a_2000_line_review_with_default_settings(
    counter: LiteLLMTokenCounter,
) -> None:
    job = job_for(change(files=40, lines_per_file=REFERENCE_LINES // 80), Settings())
    assert sum(f.added + f.removed for f in job.diff.files) == REFERENCE_LINES
    client = LongestAnswers(counter)
    report = reviewed(job, client, counter)
    assert report.incomplete is None
    assert len(client.calls) == 3 * 4  # three families, four personas, one chunk each
    assert report.budget is not None and report.budget.tokens_source == "auto"
    assert report.budget.max_tokens is not None
    assert report.stats.tokens_in + report.stats.tokens_out <= report.budget.max_tokens


def test_a_bigger_change_stops_at_the_default_cap_riskiest_files_first(
    counter: LiteLLMTokenCounter,
) -> None:
    # Four times the reference size: the default covers about a quarter of it.
    text = change(files=40, lines_per_file=REFERENCE_LINES // 20)
    text += change(files=1, lines_per_file=50).replace("src/pkg/module_00", "tests/test_pkg")
    job = job_for(text, Settings(personas=("correctness",)))
    client = LongestAnswers(counter)
    report = reviewed(job, client, counter)
    assert report.incomplete is not None and report.budget is not None
    assert report.budget.max_tokens is not None
    assert report.stats.tokens_in + report.stats.tokens_out <= report.budget.max_tokens
    assert "tests/test_pkg.py" in report.incomplete.unreviewed  # the test file is last
    assert report.incomplete.unreviewed[-1] == "tests/test_pkg.py"
    assert report.coverage[-1].path == "tests/test_pkg.py"


@pytest.mark.parametrize("share", [0.4, 1.0])
def test_the_dry_run_warns_exactly_when_the_run_would_stop(
    counter: LiteLLMTokenCounter, share: float
) -> None:
    job = job_for(change(files=12, lines_per_file=40), Settings(personas=("correctness",)))
    plan = plan_dry_run(
        job.diff,
        providers=job.providers,
        personas=job.personas,
        unavailable={},
        counter=counter,
        prices={p.model: counter.price(p.model) for p in job.providers},
        default_window=32_000,
    )
    assert plan.budget is not None and plan.budget.fits  # the default fits a small change
    cap = int(plan.budget.needed_tokens * share)
    settings = Settings.model_validate(
        {"personas": ["correctness"], "budget": {"max_tokens": cap, "max_cost_usd": None}}
    )
    planned = plan_dry_run(
        job.diff,
        providers=job.providers,
        personas=job.personas,
        unavailable={},
        counter=counter,
        prices={p.model: counter.price(p.model) for p in job.providers},
        default_window=32_000,
        budget=settings.budget,
    )
    assert planned.budget is not None
    report = reviewed(
        job_for(change(files=12, lines_per_file=40), settings), LongestAnswers(counter), counter
    )
    assert planned.budget.fits is (report.incomplete is None)
    if not planned.budget.fits:
        assert "does NOT fit" in planned.budget.advice
        assert f"--max-tokens {planned.budget.needed_tokens}" in planned.budget.advice


def test_following_the_stop_advice_literally_completes_the_review(
    counter: LiteLLMTokenCounter, tmp_path: Path
) -> None:
    text = change(files=30, lines_per_file=40)
    settings = Settings.model_validate({"budget": {"max_tokens": 150_000, "max_cost_usd": 0.05}})
    client = LongestAnswers(counter)
    wired = services(client, counter, tmp_path / "journal.db")
    first = asyncio.run(run_review(job_for(text, settings), wired, source=None))
    assert first.incomplete is not None
    assert first.incomplete.headline.startswith("Incomplete: ")
    assert first.incomplete.headline.endswith("What was not reviewed may still hold problems.")
    flags = dict(re.findall(r"--(max-tokens|max-cost) ([0-9.]+)", first.incomplete.fix))
    assert flags  # the fix names the flags that stopped the run
    sent_before = len(client.calls)
    raised = Settings.model_validate(
        {
            "budget": {
                "max_tokens": int(flags.get("max-tokens", 150_000)),
                "max_cost_usd": float(flags.get("max-cost", 0.05)),
            }
        }
    )
    second = asyncio.run(run_review(job_for(text, raised), wired, source=None))
    assert second.incomplete is None
    assert second.run_id == first.run_id  # the same run, continued
    # Calls answered in the first run are served from the journal, never sent again.
    paid_first = {c.model_dump_json() for c in client.calls[:sent_before]}
    assert len(client.calls) > sent_before
    assert not paid_first & {c.model_dump_json() for c in client.calls[sent_before:]}
    assert second.budget is not None and second.budget.max_tokens is not None
    assert second.stats.tokens_in + second.stats.tokens_out <= second.budget.max_tokens
    assert client.max_in_flight <= 8


def test_every_format_opens_with_the_same_incomplete_line(counter: LiteLLMTokenCounter) -> None:
    settings = Settings.model_validate(
        {"personas": ["correctness"], "budget": {"max_tokens": 40_000, "max_cost_usd": None}}
    )
    report = reviewed(
        job_for(change(files=30, lines_per_file=40), settings), LongestAnswers(counter), counter
    )
    assert report.incomplete is not None
    headline = report.incomplete.headline
    assert re.fullmatch(
        r"Incomplete: \d+ of 30 files were not reviewed by any model \(budget reached\)\. "
        r"What was not reviewed may still hold problems\.",
        headline,
    )
    for fmt in ("text", "markdown", "json", "sarif"):
        opening = "\n".join(render(report, fmt).splitlines()[:10])
        assert headline in opening, fmt
    assert "--max-tokens" in report.incomplete.fix
    unseen = set(report.incomplete.unreviewed)
    for provider in report.providers:
        assert not unseen & set(provider.files_seen)  # nothing ticked that no model saw


def test_risk_order_puts_security_first_and_tests_and_docs_last() -> None:
    def changed(path: str, size: int) -> ChangedFile:
        return ChangedFile(path=path, status=FileStatus.MODIFIED, added=size, removed=0)

    files = [
        changed("docs/auth.md", 500),
        changed("tests/test_login.py", 400),
        changed("src/app/views.py", 10),
        changed("src/app/big.py", 300),
        changed("src/app/auth/session.py", 5),
        changed("pyproject.toml", 3),
        changed("config/settings.yaml", 50),
    ]
    assert [f.path for f in risk_order(files)] == [
        "src/app/auth/session.py",  # security-relevant, the larger change first
        "pyproject.toml",
        "src/app/big.py",
        "src/app/views.py",
        "config/settings.yaml",
        "tests/test_login.py",
        "docs/auth.md",
    ]
    assert tier(changed("src/app/views.py", 1), redacted={"src/app/views.py"}) is Tier.SECURITY


@dataclass
class OneFamilyFinds(LongestAnswers):
    """LongestAnswers, where OpenAI's models report one finding nobody else reports (so it
    goes to verification) and every verifier confirms it."""

    def text(self, request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            return json.dumps({"verdict": "confirmed", "reason": "the loop reads past the end"})
        if not request.model.startswith("openai/"):
            return '{"findings": []}'
        finding = {
            "path": "src/pkg/module_00.py",
            "line": 11,
            "severity": "high",
            "category": "bug",
            "title": "The running total is computed from the wrong step",
            "body": "`total_{i - 1}` is read before it is assigned.",
        }
        return json.dumps({"findings": [finding]})


def with_tokens(job: ReviewJob, cap: int) -> ReviewJob:
    """The same job with a token cap and no cost cap."""
    budget = {"max_tokens": cap, "max_cost_usd": None}
    settings = Settings.model_validate({**job.settings.model_dump(), "budget": budget})
    return ReviewJob.model_validate({**dict(job), "settings": settings})


def test_a_stop_during_verification_advises_what_finishes_it(
    counter: LiteLLMTokenCounter, tmp_path: Path
) -> None:
    text = change(files=1, lines_per_file=10)
    keys = {key: "sk-test" for key, _ in AUTO_PROVIDERS[:2]}
    client = OneFamilyFinds(counter)
    plain = Settings.model_validate({"personas": ["correctness"], "min_providers": 2})
    job = job_for(text, plain)
    job = ReviewJob.model_validate({**dict(job), "providers": resolve_providers(plain, keys)})
    review_worst = sum(
        worst_case(call.request, counter).tokens
        for call in plan_calls(
            job.diff,
            providers=job.providers,
            personas=job.personas,
            counter=counter,
            default_window=32_000,
        )
    )
    # Room for the review calls, not for the one verification call (Anthropic is the only
    # other family: the claim's one judge).
    cap = review_worst + 500
    capped = ReviewJob.model_validate(
        {
            **dict(job),
            "settings": Settings.model_validate(
                {**plain.model_dump(), "budget": {"max_tokens": cap, "max_cost_usd": None}}
            ),
        }
    )
    wired = services(client, counter, tmp_path / "journal.db")
    first = asyncio.run(run_review(capped, wired, source=None))
    assert first.incomplete is not None and first.budget is not None
    assert "could not be verified (budget reached)" in first.incomplete.headline
    [flag] = re.findall(r"--max-tokens (\d+)", first.incomplete.fix)
    assert int(flag) > cap
    raised = ReviewJob.model_validate(
        {
            **dict(job),
            "settings": Settings.model_validate(
                {**plain.model_dump(), "budget": {"max_tokens": int(flag), "max_cost_usd": None}}
            ),
        }
    )
    second = asyncio.run(run_review(raised, wired, source=None))
    assert second.incomplete is None
    [finding] = second.findings
    # Judged: one confirmation of an unknown judge is not enough for a claim one of two
    # families made, and no other family is left to ask.
    assert finding.verification is not None and len(finding.verification.votes) == 1
    assert finding.status.value == "undecided" and "no family left to ask" in finding.reason
