"""What a newcomer trips over in the first ten minutes, each fixed: the run id where replay
and report need it, provider errors in words with a fix, GitHub commands that fail at once
without a token or outside Actions, report and replay that say what to do, config that
shows who votes, and --models that picks configured providers."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from consensus_sim.github_server import FakeGitHub
from consensus_sim.provider_server import FakeProviderServer, Script, hang, reply
from fakes.inprocess import run_consensus
from tests.e2e.test_e2e_review import repo, review, script_panel, server, write_config

__all__ = ["repo", "server"]  # fixtures, imported for use here

LITELLM_WORDS = ("litellm", "InternalServerError", "APIConnectionError", "SSLContext")


def bare_env(tmp: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(tmp), **extra}


# --------------------------------------------------------------------------- run id


def test_review_names_its_run_on_stderr_at_the_start_and_in_the_last_line(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    run_id = str(run.report["run_id"])
    lines = run.stderr.splitlines()
    started = next(i for i, line in enumerate(lines) if line.startswith(f"consensus: run {run_id}"))
    fanout = next(i for i, line in enumerate(lines) if "fan-out" in line)
    assert started < fanout
    assert f"consensus replay {run_id}" in lines[-1] and f"consensus report {run_id}" in lines[-1]


# --------------------------------------------------------------------------- provider errors


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def doctor(tmp: Path, model: str, api_base: str, *, timeout_s: float = 30) -> str:
    config = tmp / "c.yml"
    config.write_text(
        f"providers:\n  - model: {model}\n    api_base: {api_base}\n"
        f"    api_key_env: SOME_KEY\n    timeout_s: {timeout_s}\n"
    )
    done = run_consensus(
        ["doctor", "--config", str(config)], cwd=tmp, env=bare_env(tmp, SOME_KEY="sk-x")
    )
    assert done.returncode == 3, done.stdout + done.stderr
    return done.stdout


def test_a_refused_connection_is_named_with_its_url_and_a_fix(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = doctor(tmp_path, "openai/gpt-test", url)
    assert f"connection: connection refused at {url}" in out
    assert "fix: start the server, or correct the port in api_base" in out
    assert not any(word in out for word in LITELLM_WORDS), out


def test_a_host_that_does_not_resolve_is_named(tmp_path: Path) -> None:
    out = doctor(tmp_path, "anthropic/claude-test", "http://models.example.invalid")
    assert "connection: cannot resolve models.example.invalid" in out
    assert "fix: check the host name in api_base" in out
    assert not any(word in out for word in LITELLM_WORDS), out


def test_https_to_a_plain_http_server_is_a_tls_error(tmp_path: Path) -> None:
    with FakeProviderServer(Script(reply("OK"))) as plain:
        url = f"https://127.0.0.1:{plain.port}/v1"
        out = doctor(tmp_path, "openai/gpt-test", url)
    assert f"connection: TLS error talking to {url}" in out
    assert "fix: use http:// for a server without TLS" in out
    assert not any(word in out for word in LITELLM_WORDS), out


def test_a_provider_that_does_not_answer_timed_out_after_its_timeout(tmp_path: Path) -> None:
    with FakeProviderServer(Script(hang(20))) as slow:
        out = doctor(tmp_path, "openai/gpt-test", f"{slow.url}/v1", timeout_s=1)
    assert "timeout: timed out after 1 s" in out and "fix: raise timeout_s" in out
    assert not any(word in out for word in LITELLM_WORDS), out


# --------------------------------------------------------------------------- GitHub faces


def test_queue_without_a_token_says_so_before_any_request(tmp_path: Path) -> None:
    with FakeGitHub() as github:
        done = run_consensus(
            ["queue", "--repo", "acme/x"],
            cwd=tmp_path,
            env=bare_env(tmp_path, GITHUB_API_URL=github.url),
        )
        assert github.requests == []
    assert done.returncode == 2
    assert "GITHUB_TOKEN is not set" in done.stderr and "fix: export GITHUB_TOKEN" in done.stderr


def test_action_outside_github_actions_is_a_usage_error(tmp_path: Path) -> None:
    done = run_consensus(["action"], cwd=tmp_path, env=bare_env(tmp_path))
    assert done.returncode == 2
    assert "not running in a GitHub Actions step" in done.stderr and "fix:" in done.stderr


# --------------------------------------------------------------------------- journal commands


def test_report_writes_a_named_html_file_without_being_told_where(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url))
    run_id = str(run.report["run_id"])
    done = run_consensus(["report", run_id], cwd=repo, env=bare_env(repo.parent))
    assert done.returncode == 0, done.stderr
    # beside the journal (under HOME here), not in the work tree a review would read
    page = repo.parent / ".cache" / "consensus" / "reports" / f"{run_id}.html"
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert f"written to {page}" in done.stderr
    assert not list(repo.glob("*.html"))


def test_replay_of_an_unknown_run_says_how_to_find_one(tmp_path: Path) -> None:
    done = run_consensus(["replay", "nosuchrun"], cwd=tmp_path, env=bare_env(tmp_path))
    assert done.returncode == 2
    assert "no run nosuchrun in the journal" in done.stderr
    assert "fix: `consensus runs` lists the runs it holds" in done.stderr


# --------------------------------------------------------------------------- settings


def test_config_shows_each_providers_family_inferred_or_given(tmp_path: Path) -> None:
    config = tmp_path / "c.yml"
    config.write_text(
        "providers:\n  - model: anthropic/claude-sonnet-4-5\n"
        "  - model: openai/qwen2.5-coder-32b\n    api_base: https://llm.internal/v1\n"
        "  - model: openai/my-model\n    api_base: https://llm.internal/v1\n    family: llama\n"
    )
    done = run_consensus(["config", "--config", str(config)], cwd=tmp_path, env=bare_env(tmp_path))
    assert done.returncode == 0, done.stderr
    families = re.findall(r"family: (.*)", done.stdout)
    inferred = "  # inferred from the model's name"
    assert families == [f"anthropic{inferred}", f"qwen{inferred}", "llama"]
    assert "family: null" not in done.stdout


@pytest.mark.parametrize("names", ["gpt-test,claude-test", "openai/gpt-test,anthropic/claude-test"])
def test_models_picks_configured_providers_with_their_endpoint_and_key(
    names: str, repo: Path, server: FakeProviderServer
) -> None:
    """Configured ones keep api_base and api_key_env: they answer on the loopback server."""
    server.script.default = reply("OK")
    config = write_config(repo, server.url)
    env = bare_env(repo.parent, FAKE_OPENAI_KEY="sk-fake", FAKE_ANTHROPIC_KEY="sk-ant-fake")
    done = run_consensus(["doctor", "--config", str(config), "--models", names], cwd=repo, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.findall(r"^(ok  |FAIL) (\S+)", done.stdout, re.M) == [
        ("ok  ", "openai/gpt-test"),
        ("ok  ", "anthropic/claude-test"),
    ]


def test_a_review_without_any_provider_points_a_newcomer_to_the_demo(tmp_path: Path) -> None:
    done = run_consensus(["doctor"], cwd=tmp_path, env=bare_env(tmp_path))
    assert done.returncode == 2
    assert "no provider configured and no API key" in done.stderr
    assert "`consensus demo` needs none of these" in done.stderr
