"""Money per pull request, end to end: the real `consensus action` against the loopback
GitHub and provider servers, a PR pushed to 10 times in a row.

A run whose head was superseded by a newer push stops before its model phase; a settled
head is reviewed once (a re-run carries its decisions); what automatic runs spend on the
PR together never passes `budget.max_cost_usd_per_pr`, after which they stop with one
comment, and `/consensus review` by a maintainer still runs. Models are priced (litellm's
map), answers report their usage, so the cost in the summary is what litellm computed.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from consensus.publish.spend import SPEND_MARKER
from consensus.publish.state import decode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus_sim.github_server import FakeGitHub, human, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text, reply
from fakes.inprocess import run_consensus

ROOT = Path(__file__).resolve().parents[2]
REPO, NUMBER = "acme/service", 9
MAINTAINER = "maria"
CHAT = ("/chat/completions", "/v1/messages")
PER_PR = 0.05  # dollars: a few runs of this panel


def config(url: str) -> str:
    return textwrap.dedent(
        f"""\
        providers:
          - model: openai/gpt-3.5-turbo
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
            family: openai
          - model: openai/gpt-3.5-turbo-0125
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
            family: other
        personas: [correctness]
        budget: {{max_cost_usd_per_pr: {PER_PR}}}
        """
    )


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    done = subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def module(version: int) -> str:
    body = "".join(f"    step_{n} = compute({n}, {version})\n" for n in range(60))
    return f"def run(compute):\n{body}    return step_0\n"


def answer(body: dict[str, Any]) -> Any:
    """No findings; the usage reported is the prompt's size and a long answer (priced)."""
    tokens = len(prompt_text(body)) // 3
    return reply(json.dumps({"findings": []}), tokens_in=tokens, tokens_out=3_000)


@dataclass
class World:
    tmp: Path
    repo: Path
    github: FakeGitHub
    providers: FakeProviderServer
    heads: list[str]

    def push(self, n: int) -> dict[str, Any]:
        """Move the PR to push `n`; the event GitHub would send for it."""
        repo = self.github.repos[REPO]
        load_pull_from_git(self.github, REPO, NUMBER, self.repo, base="main", head=self.heads[n])
        return {
            "action": "synchronize",
            "number": NUMBER,
            "pull_request": self.github.pull_json(repo, repo.pulls[NUMBER]),
            "repository": {"full_name": REPO},
        }

    def run(self, event: str, payload: dict[str, Any]) -> tuple[int, str, int]:
        """`consensus action` for the event: exit code, stderr, model calls it made."""
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_TOKEN": "ghs_fake_token",
            "GITHUB_WORKSPACE": str(self.repo),
            "RUNNER_TEMP": str(self.tmp),
            "CONSENSUS_POST_INTERVAL": "0",
            "OLLAMA_HOST": "127.0.0.1:9",
            "FAKE_OPENAI_KEY": "sk-fake-openai-secret",
        }
        before = self.model_calls()
        done = run_consensus(["action"], cwd=self.repo, env=env)
        return done.returncode, done.stderr, self.model_calls() - before

    def model_calls(self) -> int:
        return sum(1 for r in self.providers.log.all() if r.path.endswith(CHAT))

    def summary(self) -> str:
        [body] = [
            str(c["body"])
            for c in self.github.repos[REPO].issue_comments
            if str(c["body"]).startswith(SUMMARY_MARKER)
        ]
        return body

    def comment(self, body: str) -> tuple[int, str, int]:
        made = self.github.add_issue_comment(REPO, NUMBER, body, human(MAINTAINER))
        issue = {
            "number": NUMBER,
            "title": "A change",
            "user": human("dev"),
            "pull_request": {"url": f"{self.github.url}/repos/{REPO}/pulls/{NUMBER}"},
        }
        payload = {
            "action": "created",
            "issue": issue,
            "comment": {k: v for k, v in made.items() if not k.startswith("_")},
            "repository": {"full_name": REPO},
            "sender": human(MAINTAINER),
        }
        return self.run("issue_comment", payload)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in ("gpt-3.5-turbo", "gpt-3.5-turbo-0125"):
        script.respond(model, answer)
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "src").mkdir()
        (repo / "src/app.py").write_text(module(0))
        (repo / ".consensus.yml").write_text(config(providers.url))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        git(repo, "checkout", "-q", "-b", "feature")
        heads = []
        for n in range(1, 11):
            (repo / "src/app.py").write_text(module(n))
            git(repo, "commit", "-q", "-am", f"push {n}")
            heads.append(git(repo, "rev-parse", "HEAD"))
        github.repo(REPO).permissions.update({MAINTAINER: "maintain"})
        yield World(tmp_path, repo, github, providers, heads)


def test_ten_pushes_are_reviewed_once_per_settled_head_within_the_pr_budget(
    world: World,
) -> None:
    # A burst: pushes 0-3 land before any run starts; runs 0-2 find their head superseded
    # and stop before the model phase, run 3 reviews the settled head.
    events = [world.push(n) for n in range(4)]
    for event in events[:3]:
        code, stderr, calls = world.run("pull_request", event)
        assert (code, calls) == (0, 0), stderr
        assert "superseded" in stderr
    code, stderr, calls = world.run("pull_request", events[3])
    assert code == 0, stderr
    assert calls == 2  # two providers, one persona, one chunk
    # The same head again (a re-run): its decisions are carried, no model is asked.
    code, stderr, calls = world.run("pull_request", events[3])
    assert (code, calls) == (0, 0), stderr

    # Then pushes that each settle before the next: each reviewed once, until the PR's
    # budget would be passed; from then on automatic runs stop and say so once.
    reviewed = 1
    for n in range(4, 10):
        code, stderr, calls = world.run("pull_request", world.push(n))
        assert code in (0, 3), stderr
        reviewed += calls > 0
    state = decode_state(world.summary())
    assert state is not None and state.spent is not None
    assert state.spent.cost_usd <= PER_PR
    assert 1 < reviewed < 7  # the cap stopped some
    notices = [c for c in world.github.repos[REPO].issue_comments if SPEND_MARKER in str(c["body"])]
    assert len(notices) == 1
    assert "automatic reviews of this pull request are stopped" in str(notices[0]["body"])
    assert f"${state.spent.cost_usd:.2f}" in world.summary()

    # A maintainer's `/consensus review` still runs.
    code, stderr, calls = world.comment("/consensus review")
    assert calls > 0, stderr
