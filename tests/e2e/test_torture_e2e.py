"""Every shape of tests/e2e/torture_repos.py end to end, in process, against the
loopback provider and GitHub servers: through `consensus review` (git's own diff) and
through the Action (GitHub's files list, with the checkout's git for what it omits).

Each run is checked for: the exit code; the report written; each file reviewed or skipped
with its reason; line numbers right in what the models saw (the provider server logs the
prompts, and the models cite the lines they saw); consensus's own findings; and no
credential in any request, report or journal.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from consensus.action.main import run as run_action
from consensus.adapters.journal import Journal
from consensus.adapters.llm import LiteLLMTokenCounter
from consensus.cli.main import cli
from consensus.ingest.pull_diff import NO_CHECKOUT
from consensus_sim.github_server import FakeGitHub, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script, Step, reply
from tests.e2e.torture_repos import PLANTED, SHAPES, Shape, build

MODELS = {"gpt-test": "openai/gpt-test", "claude-test": "anthropic/claude-test"}
KEYS = {"FAKE_OPENAI_KEY": "sk-fake-openai-k3y-0000", "FAKE_ANTHROPIC_KEY": "sk-ant-fake-k3y-0000"}
REPO, NUMBER = "acme/torture", 12
NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "OLLAMA_HOST": "127.0.0.1:9"}


def config(url: str) -> str:
    return textwrap.dedent(
        f"""\
        providers:
          - model: openai/gpt-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
          - model: anthropic/claude-test
            api_base: {url}
            api_key_env: FAKE_ANTHROPIC_KEY
        personas: [correctness]
        budget: {{max_cost_usd: 5.0, max_tokens: 5000000}}
        """
    )


def row(line: int, text: str) -> re.Pattern[str]:
    """The row of a rendered hunk that shows `text` as new-side line `line`."""
    return re.compile(rf"^ *{line} [+ ] {re.escape(text)}$", re.MULTILINE)


def messages_text(body: dict[str, Any]) -> list[str]:
    """Each message's text as the provider received it (Anthropic's system apart)."""

    def text(content: Any) -> str:
        if isinstance(content, list):
            return "".join(str(part.get("text", "")) for part in content)
        return str(content or "")

    texts = [text(body["system"])] if body.get("system") else []
    return texts + [text(message.get("content")) for message in body.get("messages") or []]


def models_that_cite(shape: Shape, paths: dict[str, str]) -> Any:
    """A model that reports, for each file of its prompt, the first expected line it sees
    there (so a wrong number on the way in or out loses the finding), and counts prompt
    tokens with the model's tokenizer (so the journal can be compared with --dry-run)."""
    counter = LiteLLMTokenCounter()

    def answer(model: str, body: dict[str, Any]) -> Step:
        prompt = "\n".join(messages_text(body))
        findings = []
        for expected, lines in shape.reviewed.items():
            path = paths[expected]
            if f"## File: {path} (" not in prompt:
                continue
            for line, text in lines.items():
                if row(line, text).search(prompt):
                    findings.append(
                        {
                            "path": path,
                            "line": line,
                            "severity": "medium",
                            "category": "bug",
                            "title": f"Check line {line} of this file",
                            "body": "The models saw this line with this number.",
                            "evidence": text,
                        }
                    )
                    break
        tokens = sum(counter.count(MODELS[model], text) for text in messages_text(body))
        return reply(json.dumps({"findings": findings}), tokens_in=tokens)

    script = Script()
    for model in MODELS:
        script.respond(model, lambda body, model=model: answer(model, body))
    return script


@dataclass
class World:
    tmp: Path
    shape: Shape
    repo: Path
    providers: FakeProviderServer
    home: Path

    def prompts(self) -> list[str]:
        return ["\n".join(messages_text(r.body)) for r in self.providers.log.all() if r.body]

    def journal_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.home.glob("journal.db*"))

    def check_prompts(self, paths: dict[str, str]) -> None:
        """Every expected line reached every provider with its number; nothing leaked."""
        prompts = self.prompts()
        if not self.shape.reviewed:
            assert prompts == []  # nothing reviewable: no provider is called
        for expected, lines in self.shape.reviewed.items():
            for model in MODELS:
                mine = [
                    "\n".join(messages_text(r.body))
                    for r in self.providers.log.requests_for(model)
                    if r.body
                ]
                for line, text in lines.items():
                    assert any(row(line, text).search(p) for p in mine), (model, expected, line)
                assert any(f"## File: {paths[expected]} (" in p for p in mine)
        for text in self.shape.must_see:
            assert all(text in p for p in prompts)
        sent = self.providers.log.all_text()
        assert PLANTED not in sent
        journal = self.journal_bytes()
        assert PLANTED.encode() not in journal
        assert not any(key.encode() in journal for key in KEYS.values())

    def check_report(self, report: dict[str, Any], paths: dict[str, str]) -> None:
        skipped = {s["path"]: s["reason"] for s in report["skipped_files"]}
        expected_skips = {paths.get(p, p): reason for p, reason in self.shape.skipped.items()}
        assert skipped == expected_skips
        cited = {
            (f["path"], f["line"]) for f in report["findings"] if "consensus" not in f["providers"]
        }
        for expected in self.shape.reviewed:
            assert any(path == paths[expected] for path, _ in cited), expected
        assert all(line in self.shape.reviewed[_back(paths, p)] for p, line in cited)
        assert all(f["status"] == "consensus" for f in report["findings"])
        own = {f["path"] for f in report["findings"] if f["providers"] == ["consensus"]}
        assert own == set(self.shape.found)
        assert PLANTED not in json.dumps(report)


def _back(paths: dict[str, str], path: str) -> str:
    return next(expected for expected, shown in paths.items() if shown == path)


@pytest.fixture(params=SHAPES, ids=[shape.name for shape in SHAPES])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    shape: Shape = request.param
    with FakeProviderServer() as providers:
        repo = build(tmp_path / "repo", shape, files={".consensus.yml": config(providers.url)})
        providers.script = models_that_cite(shape, {p: p for p in shape.reviewed})
        yield World(tmp_path, shape, repo, providers, tmp_path / "home")


def review(world: World, *args: str) -> tuple[int, str]:
    """`consensus review --base main ARGS` in the repository: exit code and stdout."""
    env = {**NO_KEYS, **KEYS, "CONSENSUS_HOME": str(world.home), "HOME": str(world.tmp)}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(world.repo)
        result = CliRunner().invoke(cli, ["review", "--base", "main", *args], env=env)
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


def test_consensus_review(world: World) -> None:
    out = world.tmp / "report.json"
    code, output = review(world, "--format", "json", "--output", str(out))
    assert code == 0, output
    report = json.loads(out.read_text())
    identity = {p: p for p in world.shape.reviewed}
    world.check_report(report, identity)
    world.check_prompts(identity)
    reviewed = sorted(world.shape.reviewed)
    for provider in report["providers"]:
        assert provider["files_seen"] == reviewed and provider["status"] == "ok"
    if not world.shape.reviewed:
        assert report["stats"]["calls"] == 0 and report["quorum"]["met"]
        code, text = review(world)  # the text report names every skipped file and why
        assert code == 0
        for path, reason in world.shape.skipped.items():
            assert f"{path}: {reason}" in text


def test_the_action_on_githubs_files_list(world: World) -> None:
    shape = world.shape
    paths = {p: shape.api_path(p) for p in shape.reviewed}
    world.providers.script = models_that_cite(shape, paths)
    with FakeGitHub() as github:
        load_pull_from_git(
            github,
            REPO,
            NUMBER,
            world.repo,
            base="main",
            head="feature",
            omit_patch=shape.omit_patch,
        )
        logs: list[str] = []
        code = run_action(action_env(world, github), log=logs.append)
        assert code == 0, "\n".join(logs)
        report = json.loads((world.tmp / "consensus-report.json").read_text())
        world.check_report(report, paths)
        world.check_prompts(paths)
        repo = github.repos[REPO]
        comments = {(c["path"], c["line"]) for c in repo.review_comments}
        findings = {(f["path"], f["line"]) for f in report["findings"]}
        inline = {(p, n) for p, n in findings if p not in shape.omit_patch}
        assert comments == inline  # every finding inline, on a line GitHub accepts, …
        [summary] = [c["body"] for c in repo.issue_comments if c["user"]["type"] == "Bot"]
        for path, line in findings - inline:  # … or in the summary where GitHub has no patch
            assert f"{path}:{line}" in summary
        assert not any(PLANTED in json.dumps(r.body) for r in github.requests)
        if shape.omit_patch:
            assert any("reviewed from the checkout's git history" in n for n in report["notes"])


def action_env(world: World, github: FakeGitHub, workspace: Path | None = None) -> dict[str, str]:
    pull = github.repos[REPO].pulls[NUMBER]
    event = world.tmp / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "opened",
                "number": NUMBER,
                "pull_request": github.pull_json(github.repos[REPO], pull),
                "repository": {"full_name": REPO},
                "sender": {"login": "dev", "type": "User"},
            }
        )
    )
    for name in ("summary.md", "output.txt"):
        (world.tmp / name).write_text("")
    return {
        **NO_KEYS,
        **KEYS,
        "HOME": str(world.tmp),
        "CONSENSUS_HOME": str(world.home),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": github.url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_TOKEN": "ghs_fake_token",
        "GITHUB_WORKSPACE": str(workspace or world.repo),
        "GITHUB_STEP_SUMMARY": str(world.tmp / "summary.md"),
        "GITHUB_OUTPUT": str(world.tmp / "output.txt"),
        "RUNNER_TEMP": str(world.tmp),
        "CONSENSUS_POST_INTERVAL": "0",
    }


BIG = next(shape for shape in SHAPES if shape.omit_patch)


def test_an_omitted_patch_without_a_checkout_is_skipped_saying_why(tmp_path: Path) -> None:
    with FakeProviderServer() as providers, FakeGitHub() as github:
        repo = build(tmp_path / "repo", BIG, files={".consensus.yml": config(providers.url)})
        providers.script = models_that_cite(BIG, {p: p for p in BIG.reviewed})
        world = World(tmp_path, BIG, repo, providers, tmp_path / "home")
        load_pull_from_git(
            github, REPO, NUMBER, repo, base="main", head="feature", omit_patch=BIG.omit_patch
        )
        empty = tmp_path / "no-checkout"
        empty.mkdir()
        logs: list[str] = []
        assert run_action(action_env(world, github, empty), log=logs.append) == 0
        report = json.loads((tmp_path / "consensus-report.json").read_text())
        assert report["skipped_files"] == [{"path": "src/big.py", "reason": NO_CHECKOUT}]
        assert providers.log.all() == []


def test_dry_run_plans_the_calls_and_prompt_tokens_the_journal_then_records(
    tmp_path: Path,
) -> None:
    shape = BIG  # several chunks per provider: the plan must split as the run does
    with FakeProviderServer() as providers:
        repo = build(tmp_path / "repo", shape, files={".consensus.yml": config(providers.url)})
        providers.script = models_that_cite(shape, {p: p for p in shape.reviewed})
        world = World(tmp_path, shape, repo, providers, tmp_path / "home")
        code, output = review(world, "--dry-run", "--format", "json")
        assert code == 0, output
        assert providers.log.all() == []  # nothing was sent
        plan = json.loads(output)
        out = tmp_path / "report.json"
        code, output = review(world, "--no-verify", "--format", "json", "--output", str(out))
        assert code == 0, output
        run_id = json.loads(out.read_text())["run_id"]
    journal = Journal(world.home / "journal.db")
    try:
        calls = journal.calls(run_id)
    finally:
        journal.close()
    for provider in plan["providers"]:
        mine = [c for c in calls if c.model == provider["model"]]
        assert provider["calls"] == len(mine) > 1
        assert provider["prompt_tokens"] == sum(c.tokens_in for c in mine)
        assert provider["chunks"] == provider["calls"]  # one persona
    assert plan["calls"] == len(calls)
    assert plan["files"] == ["src/big.py"] and plan["skipped"] == []
