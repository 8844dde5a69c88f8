"""End to end: the journal under a real CLI: SIGKILL and resume, replay with no keys,
budget pause and continue, events."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus_sim.provider_server import FakeProviderServer, Script
from fakes.inprocess import run_consensus
from tests.e2e.test_e2e_review import ROOT, repo, script_panel, write_config

__all__ = ["repo"]  # the fixture, imported for use here

TIMING = {"wall_s", "latency_s"}


def strip_timing(value: object) -> object:
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def command(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "consensus", "review", "--base", "main", "--config", str(config)]


def env_for(home: Path, *, keys: bool = True) -> dict[str, str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CONSENSUS_HOME": str(home / "consensus"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT),
    }
    if keys:
        env.update(FAKE_OPENAI_KEY="sk-fake-openai", FAKE_ANTHROPIC_KEY="sk-ant-fake")
    return env


def run_cli(repo: Path, args: list[str], env: dict[str, str]) -> tuple[int, dict[str, object], str]:
    """`consensus` in-process; `args` as `command()` builds them for a subprocess."""
    done = run_consensus([*args[3:], "--format", "json"], cwd=repo, env=env)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"no JSON (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.returncode, report, done.stderr


def model_calls(server: FakeProviderServer) -> int:
    """Requests that ask a model something (not litellm's Ollama /api/show look-ups)."""
    chat = ("/chat/completions", "/v1/messages", "/api/chat")
    return sum(1 for r in server.log.all() if r.path.endswith(chat))


def ok_calls(home: Path) -> int:
    path = home / "consensus" / "journal.db"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM calls WHERE ok = 1").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # the tables are not there yet


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(Script()) as fake:
        script_panel(fake.script)
        yield fake


def test_a_killed_run_resumes_without_paying_again_and_ends_as_if_never_killed(
    repo: Path, server: FakeProviderServer, tmp_path: Path
) -> None:
    config = write_config(repo, server.url)
    config.write_text(config.read_text() + "concurrency: 2\n")

    # The reference: the same review, never interrupted, in a journal of its own.
    reference_home = tmp_path / "reference"
    code, reference, _ = run_cli(repo, command(config), env_for(reference_home))
    assert code == 0
    needed = model_calls(server)

    home = tmp_path / "killed"
    server.latency_s = 0.4  # slow enough for the kill to land mid-run
    victim = subprocess.Popen(
        [*command(config), "--format", "json"],
        cwd=repo,
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while ok_calls(home) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    server.latency_s = 0.0
    answered = ok_calls(home)
    assert 3 <= answered < needed, "the kill must land mid-run"
    sent_before = model_calls(server)

    code, resumed, stderr = run_cli(repo, command(config), env_for(home))
    assert code == 0, stderr
    assert f"{answered} calls already answered are not paid again" in stderr
    sent_after = model_calls(server) - sent_before
    assert sent_after + answered == needed  # every answered call was served, none re-sent
    assert strip_timing(resumed) == strip_timing(reference)


def test_replay_rebuilds_the_report_with_no_keys_and_no_server(
    repo: Path, server: FakeProviderServer, tmp_path: Path
) -> None:
    config = write_config(repo, server.url)
    home = tmp_path / "home"
    code, original, _ = run_cli(repo, command(config), env_for(home))
    assert code == 0
    server.stop()  # nobody answers from now on

    replay = [sys.executable, "-m", "consensus", "replay", str(original["run_id"])]
    code, replayed, stderr = run_cli(repo, replay, env_for(home, keys=False))
    assert code == 0, stderr
    assert strip_timing(replayed) == strip_timing(original)


def test_the_budget_pauses_a_run_and_a_higher_budget_continues_it(
    repo: Path, server: FakeProviderServer, tmp_path: Path
) -> None:
    config = write_config(repo, server.url)
    # Each call reserves its worst case (its prompt and a 4,096-token answer): 8,000
    # tokens let a couple of the 8 review calls through.
    text = config.read_text().replace("max_tokens: 400000", "max_tokens: 8000")
    config.write_text(text + "concurrency: 1\n")
    home = tmp_path / "home"
    code, paused, stderr = run_cli(repo, command(config), env_for(home))
    assert code == 3
    assert paused["budget_exhausted"] is True
    assert "Incomplete: " in stderr and "Stopped by the token cap" in stderr
    answered = ok_calls(home)
    assert 0 < answered < 8

    # The stop message's value, followed literally, finishes the run.
    [advised] = re.findall(r"--max-tokens (\d+)", stderr)
    sent_before = model_calls(server)
    config.write_text(
        text.replace("max_tokens: 8000", f"max_tokens: {advised}") + "concurrency: 1\n"
    )
    code, finished, stderr = run_cli(repo, command(config), env_for(home))
    assert code == 0, stderr
    assert finished["run_id"] == paused["run_id"]
    assert finished["budget_exhausted"] is False
    assert finished["findings"][0]["status"] == "consensus"  # type: ignore[index]
    resent = model_calls(server) - sent_before
    votes = sum(len(f["verification"]["votes"]) for f in finished["findings"] if f["verification"])
    assert resent == 8 + votes - answered  # 8 reviews and the votes in all: none paid twice


def test_events_tell_the_story_of_a_run(
    repo: Path, server: FakeProviderServer, tmp_path: Path
) -> None:
    config = write_config(repo, server.url)
    events_path = tmp_path / "events.jsonl"
    code, report, _ = run_cli(
        repo, [*command(config), "--events", str(events_path)], env_for(tmp_path / "home")
    )
    assert code == 0
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run.created" and kinds[-1] == "run.ended"
    assert kinds.count("call.finished") == 8
    started = [e["phase"] for e in events if e["event"] == "phase.started"]
    assert started == ["fan-out", "align and score", "verify"]
    assert kinds.count("phase.ended") == 3
    call = next(e for e in events if e["event"] == "call.finished")
    assert set(call) >= {"provider", "persona", "chunk", "status", "tokens", "cost_usd"}
    assert call["from_journal"] is False
    assert events[-1]["run_id"] == report["run_id"]


def test_runs_lists_the_review(repo: Path, server: FakeProviderServer, tmp_path: Path) -> None:
    config = write_config(repo, server.url)
    home = tmp_path / "home"
    _, report, _ = run_cli(repo, command(config), env_for(home))
    done = run_consensus(["runs"], cwd=repo, env=env_for(home))
    assert done.returncode == 0
    [row] = [line for line in done.stdout.splitlines() if line.startswith(str(report["run_id"]))]
    assert "done" in row and "service: main...working tree" in row
