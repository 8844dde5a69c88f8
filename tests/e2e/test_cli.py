"""The command line as a user meets it: help, errors with exit codes, personas, doctor."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from consensus.cli.main import cli
from consensus_sim.provider_server import FakeProviderServer, Script, error, reply
from fakes.inprocess import run_consensus

ROOT = Path(__file__).resolve().parents[2]
NO_KEYS = {
    key: ""
    for key in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "MISTRAL_API_KEY",
        "DEEPSEEK_API_KEY",
        "XAI_API_KEY",
        "OPENROUTER_API_KEY",
    )
}
NO_KEYS["OLLAMA_HOST"] = "127.0.0.1:9"  # nothing listens there: no local Ollama


def invoke(*args: str, cwd: Path, stdin: str | None = None) -> Result:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        return CliRunner().invoke(cli, list(args), input=stdin, env=NO_KEYS)


def test_help_lists_the_commands_and_does_not_import_litellm_pygithub_or_python_gitlab() -> None:
    probe = (
        "import sys; from consensus.cli.main import cli; "
        "from click.testing import CliRunner, Result; "
        "r = CliRunner().invoke(cli, ['--help']); print(r.output); "
        "print('litellm loaded' if 'litellm' in sys.modules else 'litellm not loaded'); "
        "print('github loaded' if 'github' in sys.modules else 'github not loaded'); "
        "print('gitlab loaded' if 'gitlab' in sys.modules else 'gitlab not loaded'); "
        "print('detector loaded' if 'detect_secrets' in sys.modules else 'detector not loaded')"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for command in ("review", "personas", "doctor", "action"):
        assert command in out
    assert "litellm not loaded" in out
    assert "github not loaded" in out
    assert "gitlab not loaded" in out  # python-gitlab: only when GitLab is reached
    assert "detector not loaded" in out  # detect-secrets loads on the first line redacted


def test_the_core_never_imports_litellm_or_pygithub() -> None:
    probe = (
        "import sys; import consensus.review.pipeline, consensus.render, consensus.decide.align, "
        "consensus.ingest.review_diff, consensus.publish.plan, consensus.publish.summary, "
        "consensus.action.main, consensus.app.talk.commands, consensus.ingest.pull_diff; "
        "outside = ('litellm', 'github', 'gitlab'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in outside))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_a_config_mistake_exits_2_naming_file_key_and_fix(tmp_path: Path) -> None:
    (tmp_path / ".consensus.yml").write_text("treshold: 0.5\n")
    result = invoke("review", "--diff", "-", cwd=tmp_path, stdin="")
    assert result.exit_code == 2
    assert ".consensus.yml: treshold: unknown key" in result.output
    assert "did you mean 'threshold'" in result.output


def test_an_empty_diff_says_so_and_exits_0(tmp_path: Path) -> None:
    result = invoke("review", "--diff", "-", cwd=tmp_path, stdin="")
    assert result.exit_code == 0
    assert "Nothing to review" in result.output


def test_a_diff_of_only_lockfiles_is_nothing_to_review(tmp_path: Path) -> None:
    diff = textwrap.dedent(
        """\
        diff --git a/poetry.lock b/poetry.lock
        index 1111111..2222222 100644
        --- a/poetry.lock
        +++ b/poetry.lock
        @@ -1,2 +1,2 @@
         [[package]]
        -name = "a"
        +name = "b"
        """
    )
    result = invoke("review", "--diff", "-", cwd=tmp_path, stdin=diff)
    assert result.exit_code == 0
    assert "Nothing to review" in result.output and "(1 skipped)" in result.output
    assert "poetry.lock: lockfile" in result.output  # the text report says what was skipped

    report = tmp_path / "report.json"
    args = ("--format", "json", "--output", str(report))
    result = invoke("review", "--diff", "-", *args, cwd=tmp_path, stdin=diff)
    assert result.exit_code == 0, result.output
    written = json.loads(report.read_text())
    assert written["findings"] == []
    assert written["skipped_files"] == [{"path": "poetry.lock", "reason": "lockfile"}]
    assert written["stats"]["calls"] == 0 and written["quorum"]["met"] is True


def test_no_provider_anywhere_exits_2_saying_what_to_set(tmp_path: Path) -> None:
    diff = (ROOT / "tests" / "data" / "small.diff").read_text()
    result = invoke("review", "--diff", "-", cwd=tmp_path, stdin=diff)
    assert result.exit_code == 2
    assert "OPENAI_API_KEY" in result.output and "ANTHROPIC_API_KEY" in result.output


def test_diff_and_base_together_are_a_usage_error(tmp_path: Path) -> None:
    result = invoke("review", "--diff", "x.diff", "--base", "main", cwd=tmp_path)
    assert result.exit_code == 2
    assert "--diff cannot be combined with --base/--head" in result.output


def test_a_missing_diff_file_is_named(tmp_path: Path) -> None:
    result = invoke("review", "--diff", "nope.diff", cwd=tmp_path)
    assert result.exit_code == 2
    assert "nope.diff: no such file" in result.output


def test_an_unknown_persona_flag_is_blamed_on_the_flag(tmp_path: Path) -> None:
    diff = (ROOT / "tests" / "data" / "small.diff").read_text()
    result = invoke(
        "review",
        "--diff",
        "-",
        "--models",
        "openai/gpt-4o,anthropic/claude-sonnet-4-5",
        "--personas",
        "securty",
        cwd=tmp_path,
        stdin=diff,
    )
    assert result.exit_code == 2
    assert "--personas" in result.output and "security" in result.output


def test_personas_lists_built_ins_and_repository_overrides(tmp_path: Path) -> None:
    own = tmp_path / ".consensus" / "personas"
    own.mkdir(parents=True)
    builtin = (ROOT / "personas" / "security.md").read_text()
    (own / "security.md").write_text(builtin.replace("title:", "title: Our", 1))
    result = invoke("personas", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "built-in" in line or ".md" in line]
    lines = {line[2:].split()[0]: line for line in rows}
    assert len(lines) == 8
    for pid in ("correctness", "performance", "concurrency", "testing", "api-compatibility"):
        assert "built-in" in lines[pid]
    assert ".consensus/personas/security.md" in lines["security"]
    assert lines["correctness"].startswith("*")  # used by default
    assert not lines["docs"].startswith("*")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    script = Script()
    script.add("gpt-test", then=reply("OK"))
    script.add("claude-test", then=error(401, "invalid x-api-key"))
    with FakeProviderServer(script) as fake:
        yield fake


def test_doctor_says_which_provider_answered_and_why_others_did_not(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    (tmp_path / ".consensus.yml").write_text(
        textwrap.dedent(
            f"""\
            providers:
              - model: openai/gpt-test
                api_base: {server.url}/v1
                api_key_env: FAKE_KEY
              - model: anthropic/claude-test
                api_base: {server.url}
                api_key_env: FAKE_KEY
              - model: openai/llama-test
                api_base: {server.url}/v1
                api_key_env: UNSET_KEY
            analyzers: [ruff]
            sarif:
              - path: ci/codeql.sarif
                name: codeql
            """
        )
    )
    env = {"PATH": "/usr/bin:/bin", "FAKE_KEY": "sk-x", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = run_consensus(["doctor"], cwd=tmp_path, env=env)
    out = done.stdout
    assert "config: " in out and ".consensus.yml" in out
    assert "ok   openai/gpt-test (family openai): answered in" in out
    assert "FAIL anthropic/claude-test (family anthropic): auth:" in out
    assert (
        "FAIL openai/llama-test (family meta): key missing: environment variable UNSET_KEY" in out
    )
    assert "1 family answered; reviews need 2." in out
    assert "ok   analyzer ruff: ruff " in out
    assert (
        "miss analyzer codeql: SARIF file ci/codeql.sarif: no such file "
        "(the step that writes it runs before consensus); reviews go on without it" in out
    )
    assert done.returncode == 3
    assert len(server.log.requests_for("llama-test")) == 0


@pytest.mark.parametrize(
    ("code", "status", "err"), [("3", 3, ""), ("None", 0, ""), ("'no journal'", 1, "no journal")]
)
def test_leaving_without_teardown_keeps_the_exit_status_and_flushes_the_output(
    code: str, status: int, err: str
) -> None:
    script = (
        "import atexit\nfrom consensus.cli.main import leave\n"
        "atexit.register(print, 'teardown ran')\n"  # the teardown a plain exit would run
        f"print('report line', end='')\nleave({code})"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr.strip()) == (status, "report line", err)


def test_with_another_thread_running_the_ordinary_exit_waits_for_it() -> None:
    script = (
        "import atexit, threading, time\nfrom consensus.cli.main import leave\n"
        "atexit.register(print, 'teardown ran')\n"
        "threading.Thread(target=time.sleep, args=(0.2,)).start()\nleave(3)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout.strip()) == (3, "teardown ran")
