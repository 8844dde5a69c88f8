"""The wide change (128 files, like pallets/click `8.1.8...main`) reviewed end to end with
default settings: the real CLI against the loopback provider server, three provider
families, four personas, concurrency 8.

The default budget covers a 2,000-line change; this one is four times that, so the run
stops part-way. Checked: every output format opens with the same "Incomplete:" line, no
file is marked seen that no model saw, not one token is spent over the cap, and the stop
message's advice, followed literally, finishes the review without paying twice.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from consensus.ingest.risk import Tier, tier
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile
from consensus.model.report import Report
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text, reply
from fakes.inprocess import run_consensus
from tests.e2e.wide_change import FILES, build, changed_lines, provider_config

ROOT = Path(__file__).resolve().parents[2]
CHAT = ("/chat/completions", "/v1/messages")


def env_for(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CONSENSUS_HOME": str(home / "consensus"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT),
        "FAKE_OPENAI_KEY": "sk-fake-openai",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
        "CI": "1",
    }


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("wide")
    repo = build(tmp / "repo")
    with FakeProviderServer(Script(default=reply(json.dumps({"findings": []})))) as server:
        config = tmp / "consensus.yml"
        config.write_text(provider_config(server.url), encoding="utf-8")
        yield tmp, repo, config, server


def review(wide: Any, *args: str) -> tuple[int, str, str]:
    tmp, repo, config, _ = wide
    args = ("review", "--base", "main", "--config", str(config), *args)
    done = run_consensus(list(args), cwd=repo, env=env_for(tmp / "home"))
    return done.returncode, done.stdout, done.stderr


def files_in_prompts(server: FakeProviderServer) -> set[str]:
    """Every file whose diff reached a provider in an answered chat request."""
    seen: set[str] = set()
    for request in server.log.all():
        if request.body and request.path.endswith(CHAT):
            seen |= set(re.findall(r"## File: (\S+) \(", prompt_text(request.body)))
    return seen


def test_the_wide_change_stops_says_so_everywhere_and_the_advice_finishes_it(wide: Any) -> None:
    tmp, repo, _, server = wide
    assert changed_lines() > 4 * 2_000
    code, stdout, stderr = review(wide, "--format", "json")
    assert code == 3, stderr
    report = Report.model_validate(json.loads(stdout))
    incomplete, budget = report.incomplete, report.budget
    assert incomplete is not None and budget is not None
    headline = incomplete.headline
    assert re.fullmatch(
        rf"Incomplete: \d+ of {FILES} files were not reviewed by any model \(budget reached\)\. "
        r"What was not reviewed may still hold problems\.",
        headline,
    )
    assert budget.tokens_source == "auto" and budget.stopped_by == ["max_tokens"]

    # Not one token over the cap, with 8 calls in flight.
    assert budget.max_tokens is not None
    assert report.stats.tokens_in + report.stats.tokens_out <= budget.max_tokens
    # Calls never sent are counted as not sent, never as failed.
    assert sum(p.not_sent for p in report.providers) > 0
    assert all(p.failed_calls == 0 for p in report.providers)
    # No file is marked seen that no model saw.
    unreviewed = set(incomplete.unreviewed)
    for provider in report.providers:
        seen = {c.path for c in report.coverage if c.providers[provider.model] == "reviewed"}
        assert set(provider.files_seen) == seen
        assert not seen & unreviewed
    assert {c.path for c in report.coverage if c.reviewed} <= files_in_prompts(server)
    # The riskiest files were reviewed first: every source module, while tests and docs
    # are what the stop left unreviewed.
    reviewed = {c.path for c in report.coverage if c.reviewed}

    def tier_of(path: str) -> Tier:
        return tier(ChangedFile(path=path, status=FileStatus.MODIFIED))

    assert {tier_of(p) for p in unreviewed} <= {Tier.TESTS, Tier.DOCS}
    assert {p for p in reviewed if p.startswith("src/click/")} == {
        c.path for c in report.coverage if c.path.startswith("src/click/")
    }

    # Every format opens with the same line (replayed from the journal, no model called).
    sent = len(server.log)
    for fmt in ("text", "markdown", "sarif", "json"):
        tmp_env = env_for(tmp / "home")
        done = run_consensus(["replay", report.run_id, "--format", fmt], cwd=repo, env=tmp_env)
        assert headline in "\n".join(done.stdout.splitlines()[:10]), fmt
        assert "$0.0000" not in done.stdout  # the models have no known price: unknown
    html = tmp / "run.html"
    done = run_consensus(
        ["report", report.run_id, "--html", str(html)], cwd=repo, env=env_for(tmp / "home")
    )
    page = html.read_text(encoding="utf-8")
    assert headline in page[: page.index("</header>")]
    # Ticked only where a model returned a valid review; calls never sent are not failures.
    pairs = sum(state == "reviewed" for c in report.coverage for state in c.providers.values())
    assert page.count("<td class='cell reported' title='reviewed'>") == pairs
    unsent = sum(p.not_sent for p in report.providers)
    assert f"({0} failed), {unsent} not sent" in page
    assert "$0.0000" not in page
    assert len(server.log) == sent

    # The stop message names the flag and the value; following it literally finishes.
    [flag] = re.findall(r"--max-tokens \d+", stderr)
    assert flag in incomplete.fix
    code, stdout, stderr = review(wide, "--format", "json", *flag.split())
    assert code == 0, stderr
    finished = Report.model_validate(json.loads(stdout))
    assert finished.run_id == report.run_id and finished.incomplete is None
    assert all(c.reviewed for c in finished.coverage) and len(finished.coverage) == FILES
    assert finished.budget is not None and finished.budget.max_tokens is not None
    spent = finished.stats.tokens_in + finished.stats.tokens_out
    assert spent <= finished.budget.max_tokens
