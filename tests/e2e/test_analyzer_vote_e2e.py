"""A static analyzer in the vote, end to end in process: the loopback GitHub and loopback
providers, the real GitHub and litellm adapters, a real git repository's pull request.

ruff's F821 on a planted undefined name and one model's paraphrase of it at the same line
become one inline comment that names both ("also reported by ruff F821"); a logic bug ruff
cannot see (a discount divided by 10) is posted on the three models' agreement alone.

The analyzer is the fake of the port (`consensus.testing.FakeAnalyzers`), the review driven
through the pipeline's entry with `ReviewServices.analyzers` set and posted to the loopback
GitHub by the Action's own poster (app/pull/apply.post_review): this test is the vote's.
Real ruff and a real SARIF file through `consensus review` are test_analyzers_e2e.py's; on
the Action's path, tests/flows/test_analyzer_sources.py's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from consensus.app.pull.apply import post_review
from consensus.app.wiring import github_host, model_client
from consensus.ingest.pull_diff import host_hunks
from consensus.ingest.review_diff import ingest
from consensus.model.report import Report
from consensus.ports import ModelPrice
from consensus.publish.carry import carry_forward
from consensus.publish.compose import PullView, compose
from consensus.publish.state import PublishState
from consensus.publish.thread import read_thread
from consensus.review.job import ReviewJob
from consensus.review.pipeline import ReviewServices, review
from consensus.settings.config import ProviderSettings, PublishSettings, Settings
from consensus.settings.personas import load_personas, select_personas
from consensus.testing import FakeAnalyzers, ruff_run
from consensus_sim.github_server import FakeGitHub, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script
from tests.e2e.cart_typo import AFTER, BEFORE, CART, MODELS, SLIP, TYPO, git, responder

REPO, NUMBER = "acme/shop", 7


class Counter:
    def count(self, model: str, text: str) -> int:
        return len(text) // 4

    def context_window(self, model: str) -> int | None:
        return 100_000

    def price(self, model: str) -> ModelPrice | None:
        return None


@dataclass
class World:
    repo: Path
    github: FakeGitHub
    providers: FakeProviderServer


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, responder(model))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "shop"
        (repo / "src").mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
        (repo / CART).write_text(BEFORE)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        git(repo, "checkout", "-q", "-b", "feature")
        (repo / CART).write_text(AFTER)
        git(repo, "commit", "-q", "-am", "count quantities, give discounts")
        load_pull_from_git(github, REPO, NUMBER, repo, base="main", head="feature")
        yield World(repo, github, providers)


def reviewed(world: World, analyzers: FakeAnalyzers) -> Report:
    env = {"FAKE_OPENAI_KEY": "sk-fake", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    base = f"{world.providers.url}/v1"
    providers = tuple(
        ProviderSettings(
            model=f"openai/{m}", api_base=base, api_key_env="FAKE_OPENAI_KEY", family=m[:-5]
        )
        for m in MODELS
    )
    job = ReviewJob(
        diff=ingest(git(world.repo, "diff", "main...feature").decode()),
        settings=Settings(personas=("correctness",)),
        providers=providers,
        personas=tuple(select_personas(load_personas([]), ["correctness"])),
    )
    services = ReviewServices(model_client(env), Counter(), analyzers=analyzers)
    return asyncio.run(review(job, services))


def test_ruff_and_a_model_at_one_line_are_one_comment_naming_both(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    analyzers = FakeAnalyzers((ruff_run([("F821", CART, TYPO, "Undefined name `amont`")]),))
    report = reviewed(world, analyzers)
    env = {"GITHUB_REPOSITORY": REPO, "GITHUB_TOKEN": "ghs_fake", "GITHUB_API_URL": ""}
    env["GITHUB_API_URL"] = world.github.url
    host = github_host(env, log=lambda line: None, write_interval_s=0.0)
    info = host.pull_request(NUMBER)
    files = host.pull_files(NUMBER)
    diff = ingest(git(world.repo, "diff", "main...feature").decode())
    thread = read_thread(host.issue_comments(NUMBER), host.review_comments(NUMBER))
    view = PullView(
        thread=thread, head_sha=info.head_sha, changed=frozenset(f.path for f in files),
        links=(), settings=PublishSettings(),
    )  # fmt: skip
    carried = carry_forward(PublishState(), diff, basis="0" * 32, fresh=True)
    post_review(host, info, compose(report, carried, diff, view), host_hunks(files), print)

    comments = world.github.repos[REPO].review_comments
    at_typo = [c for c in comments if c["line"] == TYPO]
    [comment] = at_typo  # ruff's result and the model's words: one comment
    assert "also reported by ruff F821" in comment["body"]
    assert "(gpt, ruff)" in comment["body"]  # both families named among its reporters
    [slip] = [c for c in comments if c["line"] == SLIP]  # the bug ruff cannot see
    assert "ruff" not in slip["body"]
    assert len(analyzers.asked) == 1
