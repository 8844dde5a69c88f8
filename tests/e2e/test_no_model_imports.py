"""Slash commands that call no model never import litellm (seconds of start-up saved on
every `/consensus explain`). One fresh interpreter answers each of them in turn through
the real CLI entry point, against the loopback fake GitHub, then reports its modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus_sim.github_server import FakeGitHub, human
from consensus_sim.provider_server import FakeProviderServer, Script
from tests.e2e.test_action_e2e import NUMBER, REPO, ROOT, config, git
from tests.e2e.test_commands_e2e import MAINTAINER, World, seeded_state
from tests.e2e.test_e2e_review import repo, review, script_panel, write_config

__all__ = ["repo"]  # the fixture, imported for use here

NO_MODEL = (
    "/consensus help",
    "/consensus explain F1",
    "/consensus config",
    "/consensus personas",
    "/consensus queue",
    "/consensus pause",
    "/consensus resume",
    "/consensus dismiss F1 a false positive",
)

# Runs in the child: every event through `consensus action`, then what got imported.
CHILD = """
import json, os, sys
from consensus.cli.main import cli
codes = []
for path in sys.argv[1:]:
    os.environ["GITHUB_EVENT_PATH"] = path
    try:
        cli.main(["action"], prog_name="consensus", standalone_mode=False)
        codes.append(0)
    except SystemExit as exc:
        codes.append(exc.code)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "openai", "tiktoken"))
print(json.dumps({"codes": codes, "heavy": heavy}))
"""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeGitHub() as github, FakeProviderServer(Script()) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / ".consensus.yml").write_text(config(providers.url))
        (repo / "app.py").write_text("x = 1\n")
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=Dev", "-c", "user.email=d@example.com", "commit", "-qm", "b")
        git(repo, "checkout", "-q", "-b", "feature")
        (repo / "app.py").write_text("x = 2\n")
        git(repo, "-c", "user.name=Dev", "-c", "user.email=d@example.com", "commit", "-qam", "f")
        world = World(tmp_path, repo, github, providers)
        world.open_pr()
        yield world


def test_commands_that_call_no_model_never_import_litellm(world: World) -> None:
    world.seed_summary(seeded_state())
    events = []
    for n, body in enumerate(NO_MODEL):
        comment = world.github.add_issue_comment(REPO, NUMBER, body, human(MAINTAINER))
        payload = {
            "action": "created",
            "issue": {"number": NUMBER, "pull_request": {"url": "x"}, "user": human("dev")},
            "comment": {k: v for k, v in comment.items() if not k.startswith("_")},
            "repository": {"full_name": REPO},
            "sender": human(MAINTAINER),
        }
        path = world.tmp / f"event-{n}.json"
        path.write_text(json.dumps(payload))
        events.append(str(path))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(world.tmp),
        "PYTHONPATH": str(ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "issue_comment",
        "GITHUB_API_URL": world.github.url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_TOKEN": "ghs_fake_token",
        "GITHUB_WORKSPACE": str(world.repo),
        "CONSENSUS_POST_INTERVAL": "0",
        "FAKE_OPENAI_KEY": "sk-fake",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *events],
        cwd=world.repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["codes"] == [0] * len(NO_MODEL), done.stderr
    replies = world.replies()
    assert len(replies) == len(NO_MODEL), done.stderr
    for body, reply in zip(NO_MODEL, replies, strict=True):
        assert "Failed" not in reply and "Not run" not in reply, (body, reply)
    assert "Dismissed F1" in replies[-1] and "paused" in replies[-3]
    assert len(world.providers.log) == 0
    assert result["heavy"] == [], "a command that calls no model imported " + ", ".join(
        result["heavy"]
    )


# Runs in the child: each command line in turn through the real CLI, then what got imported.
COMMANDS_CHILD = """
import json, sys
from consensus.cli.main import cli
codes, heavy = [], []
for line in json.loads(sys.argv[1]):
    try:
        cli.main(line, prog_name="consensus", standalone_mode=False)
        codes.append(0)
    except SystemExit as exc:
        codes.append(exc.code)
    if "litellm" in sys.modules and not heavy:
        heavy.append(line[0])  # the first command that loaded it
print(json.dumps({"codes": codes, "heavy": heavy}))
"""


def test_local_commands_that_call_no_model_never_import_litellm(repo: Path, tmp_path: Path) -> None:
    """replay, report, runs, config, workflows, personas, doctor without keys and a dry
    run answer from the journal, the files and litellm's data, never from litellm."""
    # the review's journal is under its HOME, repo.parent (tests/test_e2e_review.py)
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "PYTHONPATH": str(ROOT)}
    with FakeProviderServer(Script()) as server:
        script_panel(server.script)
        config = write_config(repo, server.url)
        run = review(repo, config)
    assert run.code == 0, run.stderr
    run_id = str(run.report["run_id"])
    keyed = tmp_path / "keyed.yml"  # the providers that need a key (Ollama needs none)
    keyed.write_text(config.read_text().split("  - model: ollama/")[0])
    lines = [
        ["replay", run_id, "--format", "json"],
        ["report", run_id, "--html", str(tmp_path / "r.html")],
        ["runs"],
        ["config", "--config", str(config)],
        ["workflows"],
        ["personas"],
        ["doctor", "--config", str(keyed)],  # FAKE_*_KEY unset: every key is missing
        ["review", "--base", "main", "--dry-run", "--config", str(config)],
        # unknown models are refused from litellm's data, without litellm
        ["review", "--base", "main", "--dry-run", "--models", "gpt-9-imaginary"],
        ["doctor", "--models", "foobar/claude-nonexistent"],
    ]
    done = subprocess.run(
        [sys.executable, "-c", COMMANDS_CHILD, json.dumps(lines)],
        cwd=repo,
        env={**env, "FAKE_OPENAI_KEY": "", "FAKE_ANTHROPIC_KEY": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # doctor exits 3: no family answered (no key); so does the dry run, whose real run would
    # be advisory (only Ollama's family has what it needs); every other command succeeds
    assert result["codes"] == [0, 0, 0, 0, 0, 0, 3, 3, 2, 3], done.stderr
    assert "key missing: environment variable FAKE_OPENAI_KEY is not set" in done.stdout
    assert result["heavy"] == [], "this command imported litellm"
