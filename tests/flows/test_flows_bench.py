"""The bench flow in memory: one PR on FakeGitHubHost, a FakeModelClient panel and judge,
the Services a face would hand it. What each configuration costs, and what a re-run asks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from consensus.app.bench.bench import BenchOutput, BenchPanel, BenchServices, run_bench
from consensus.app.bench.bench_source import LoadedSuite
from consensus.bench.suite import Golden, Suite, SuitePR
from consensus.ingest.pull_diff import ContentsSource
from consensus.model.base import FailureKind, Severity
from consensus.ports import CompletionRequest, ModelCallError, ModelPrice
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import load_personas
from consensus.testing import FakeModelClient
from tests.flows.flows_world import FINDING, NUMBER, REPO, Counter, World

JUDGE = ProviderSettings(model="openai/gpt-5.2", api_key_env="OPENAI_API_KEY")
SUITE = Suite(
    name="mine",
    source="mine.jsonl",
    prs=(
        SuitePR(
            repo=REPO,
            number=NUMBER,
            goldens=(Golden(comment="user_id is put into the SQL text", severity=Severity.HIGH),),
        ),
    ),
)


def reviewers(judge_fails: list[bool]) -> FakeModelClient:
    """Both reviewers report the injection; the judge matches it to golden 1 (or fails
    while `judge_fails` holds True)."""

    def answer(request: CompletionRequest) -> str | ModelCallError:
        if request.schema_name == "judgement":
            if judge_fails and judge_fails[0]:
                return ModelCallError(FailureKind.TIMEOUT, "no answer")
            return json.dumps({"verdict": "match", "golden": 1, "reason": "the same injection"})
        if request.schema_name == "verdict":
            return json.dumps({"verdict": "confirmed", "reason": "shown"})
        return json.dumps({"findings": [FINDING]})

    return FakeModelClient(by_request=answer)


def bench(world: World, *, redact: tuple[str, ...] = ()) -> BenchOutput:
    core = world.services()
    settings = Settings.model_validate(
        {"providers": [{"model": "openai/gpt-5.1", "api_key_env": "OPENAI_API_KEY"},
                       {"model": "anthropic/claude-sonnet-4-5",
                        "api_key_env": "ANTHROPIC_API_KEY"}],
         "personas": ["security"], "redact": list(redact)}
    )  # fmt: skip
    panel = BenchPanel(
        settings=settings,
        providers=settings.providers,
        personas=(load_personas([])["security"],),
        personas_from="test",
        unavailable={},
        judge=JUDGE,
    )
    services = BenchServices(
        core,
        pulls=lambda repo: world.host,
        sources=lambda repo, sha: ContentsSource(world.host, sha),
        home=world.tmp / "home",
    )
    return asyncio.run(run_bench(LoadedSuite(SUITE), panel, services))


def review_calls(models: FakeModelClient) -> int:
    return sum(1 for r in models.calls if r.schema_name == "review")


def test_each_provider_alone_and_no_verification_are_scored_from_the_consensus_runs_calls(
    tmp_path: Path,
) -> None:
    priced = {
        p: ModelPrice(input_per_token=1e-6, output_per_token=4e-6)
        for p in ("openai/gpt-5.1", "anthropic/claude-sonnet-4-5")
    }
    world = World(tmp_path, models=reviewers([]), counter=Counter(prices=priced))
    outcome = bench(world)
    assert review_calls(world.models) == 2  # the consensus run's, one per provider: no more
    names = {v.name: v.overall for v in outcome.result.variants}
    assert set(names) == {"consensus", "consensus-no-verify", "solo:openai/gpt-5.1",
                          "solo:anthropic/claude-sonnet-4-5"}  # fmt: skip
    assert all((f.tp, f.fp, f.fn) == (1, 0, 0) for f in names.values())
    # each provider's review costs what its own call cost in the consensus run
    costs = {v.name: v.cost_usd for v in outcome.result.variants}
    assert costs["solo:openai/gpt-5.1"] == costs["solo:anthropic/claude-sonnet-4-5"] == 0.001
    assert [j.verdict for j in outcome.result.judgements] == ["match"]


def test_a_re_run_asks_only_what_failed_the_judge_again(tmp_path: Path) -> None:
    failing = [True]
    world = World(tmp_path, models=reviewers(failing))
    first = bench(world)
    assert [j.verdict for j in first.result.judgements] == ["failed"]
    assert first.result.variants[0].overall.fp == 1  # a failed judgement matches nothing
    assert any("1 judgement(s) failed" in note for note in first.result.notes)
    asked = len(world.models.calls)

    failing[0] = False
    second = bench(world)
    assert len(world.models.calls) == asked + 1  # the judge's question, and nothing else
    assert [j.verdict for j in second.result.judgements] == ["match"]
    assert second.result.variants[0].overall.tp == 1
    bench(world)
    assert len(world.models.calls) == asked + 1  # done: re-scored from the journal
