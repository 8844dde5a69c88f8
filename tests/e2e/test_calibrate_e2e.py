"""End to end: `consensus calibrate` on the shipped labelled claims, against loopback
providers that judge as LLM judges do (one agreeable, one impartial)."""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from consensus.model.calibration import Calibration
from consensus.settings.calibration_file import with_local_calibration
from consensus.settings.config import load_config
from consensus_sim.provider_server import FakeProviderServer, Script, judge
from fakes.inprocess import Ran, run_consensus

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "examples" / "calibration" / "labels.jsonl"
TRUTH = {
    (claim := json.loads(line))["title"]: claim["real"]
    for line in LABELS.read_text().splitlines()
    if line.strip()
}
REAL, FALSE = sum(TRUTH.values()), len(TRUTH) - sum(TRUTH.values())


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    script = Script()
    script.respond("gpt-judge", judge(TRUTH, tpr=0.96, tnr=0.2, seed="agreeable"))
    script.respond("claude-judge", judge(TRUTH, tpr=0.85, tnr=0.85, seed="impartial"))
    with FakeProviderServer(script) as fake:
        yield fake


@pytest.fixture
def repo(tmp_path: Path, server: FakeProviderServer) -> Path:
    repo = tmp_path / "service"
    repo.mkdir()
    (repo / ".consensus.yml").write_text(
        textwrap.dedent(
            f"""\
            providers:
              - model: openai/gpt-judge
                api_base: {server.url}/v1
                api_key_env: FAKE_OPENAI_KEY
              - model: anthropic/claude-judge
                api_base: {server.url}
                api_key_env: FAKE_ANTHROPIC_KEY
            budget: {{max_cost_usd: 1.0, max_tokens: 400000}}
            """
        )
    )
    return repo


def calibrate(repo: Path, *args: str) -> Ran:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.parent),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FAKE_OPENAI_KEY": "sk-fake-openai",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
        "CONSENSUS_HOME": str(repo.parent / "home"),
    }
    return run_consensus(["calibrate", "--labels", str(LABELS), *args], cwd=repo, env=env)


def test_calibrate_measures_an_agreeable_and_an_impartial_judge(
    repo: Path, server: FakeProviderServer
) -> None:
    done = calibrate(repo)
    assert done.returncode == 0, done.stderr
    assert len(server.log) == 2 * len(TRUTH)  # every provider judged every claim once
    written = repo / ".consensus" / "calibration.yml"
    calibration = Calibration.model_validate(yaml.safe_load(written.read_text()))
    agreeable = calibration.families["openai"].judge
    impartial = calibration.families["anthropic"].judge
    assert agreeable is not None and impartial is not None
    for counts in (agreeable, impartial):
        assert counts.confirmed_real + counts.missed_real == REAL
        assert counts.refuted_false + counts.confirmed_false == FALSE
    assert agreeable.tnr.value < impartial.tnr.value  # it confirmed false claims too
    assert agreeable.tpr.value >= 0.75
    # Each provider's rates with their 95% intervals and the calls they cost.
    assert f"openai/gpt-judge (family openai): TPR {agreeable.tpr} · TNR {agreeable.tnr}" in (
        done.stdout
    )
    assert f"{len(TRUTH)} calls" in done.stdout
    # The file is read with the configuration: every run's estimate of its judges starts
    # from these labels.
    config = repo / ".consensus.yml"
    config.write_text(config.read_text() + "calibration: .consensus/calibration.yml\n")
    settings = with_local_calibration(load_config(config, root=repo), repo).settings
    assert settings.judged_by().families["anthropic"].judge == impartial


def test_a_run_the_budget_stopped_resumes_without_paying_twice(
    repo: Path, server: FakeProviderServer
) -> None:
    config = repo / ".consensus.yml"
    roomy = config.read_text()
    config.write_text(roomy.replace("max_tokens: 400000", "max_tokens: 3000"))
    done = calibrate(repo)
    assert done.returncode == 3
    assert "incomplete: verification stopped: token budget reached" in done.stdout
    asked = len(server.log)
    assert 0 < asked < 2 * len(TRUTH)
    config.write_text(roomy)
    again = calibrate(repo)
    assert again.returncode == 0, again.stderr
    assert len(server.log) == 2 * len(TRUTH)  # the answered calls came from the journal
    written = Calibration.model_validate(
        yaml.safe_load((repo / ".consensus" / "calibration.yml").read_text())
    )
    assert sum(c.judge.tpr.n + c.judge.tnr.n for c in written.families.values() if c.judge) == (
        2 * len(TRUTH)
    )


def test_the_dry_run_prints_the_plan_and_calls_nobody(
    repo: Path, server: FakeProviderServer
) -> None:
    done = calibrate(repo, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"{len(TRUTH)} labelled claims ({REAL} real, {FALSE} false) × 2 providers = "
        f"{2 * len(TRUTH)} calls"
    )
    assert len(server.log) == 0
    assert not (repo / ".consensus" / "calibration.yml").exists()


def test_a_bad_label_line_is_an_error_naming_it(repo: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    good = LABELS.read_text().splitlines()[0]
    labels.write_text(good + "\n" + json.dumps({"id": "L9", "title": "no diff", "real": True}))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    done = run_consensus(["calibrate", "--labels", str(labels), "--dry-run"], cwd=repo, env=env)
    assert done.returncode == 2
    assert f"{labels}: line 2: diff: Field required" in done.stderr
