"""End to end: no credential reaches a provider, and no untrusted text becomes a workflow
command in the Action's log.

The credential corpus (tests/credentials.py, 61 kinds built at test time) is added by a
branch and reviewed through the real CLI and the real `consensus action`, against the
loopback providers and GitHub: the providers' request log must hold none of them. Then a
PR whose title, a file name, a model's finding and a provider's error each carry a
workflow command is reviewed by the Action: its stdout and stderr, read by a parser of
workflow commands written from GitHub's documentation, hold no command but our masks.
"""

from __future__ import annotations

import io
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.action.log import ActionLog
from consensus.action.main import main
from consensus_sim.github_server import FakeGitHub, PullRequest
from consensus_sim.provider_server import FakeProviderServer, Script, error, reply
from fakes.inprocess import run_consensus
from tests.credentials import Credential, corpus, leaked
from tests.e2e.test_action_e2e import (
    DB_AFTER,
    DB_BEFORE,
    MODELS,
    ROOT,
    SQL,
    World,
    commit,
    config,
    finding,
    git,
    line_of,
)
from tests.workflow_commands import commands

NO_FINDINGS = json.dumps({"findings": []})


def _corpus_files(credentials: list[Credential]) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    for credential in credentials:
        files.setdefault(credential.path, []).extend(credential.lines)
    return {path: "\n".join(lines) + "\n" for path, lines in files.items()}


def _keys() -> dict[str, str]:
    """Provider keys as a runner holds them: random, in the vendors' formats."""
    return {
        "FAKE_OPENAI_KEY": "sk-proj-" + secrets.token_urlsafe(48),
        "FAKE_ANTHROPIC_KEY": "sk-ant-api03-" + secrets.token_urlsafe(70),
    }


@pytest.fixture
def credentials() -> list[Credential]:
    return corpus(seed=int.from_bytes(secrets.token_bytes(4), "big"))


@pytest.fixture
def world(tmp_path: Path, credentials: list[Credential]) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, lambda body: reply(NO_FINDINGS))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": config(providers.url)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        commit(repo, {"src/app/db.py": DB_AFTER, **_corpus_files(credentials)}, "settings")
        yield World(tmp_path, repo, github, providers)


def _reviewed_every_file(sent: str, credentials: list[Credential]) -> None:
    """The test can fail: the files holding the credentials did reach the providers."""
    assert all(c.path in sent for c in credentials)


def test_no_credential_reaches_a_provider_through_the_cli(
    world: World, credentials: list[Credential]
) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(world.tmp),
        "CONSENSUS_HOME": str(world.tmp / "home"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT),
        **_keys(),
    }
    done = run_consensus(["review", "--base", "main", "--format", "json"], cwd=world.repo, env=env)
    assert done.returncode == 0, done.stderr
    sent = world.providers.log.all_text()
    _reviewed_every_file(sent, credentials)
    assert leaked(credentials, sent) == []
    assert leaked(credentials, done.stdout + done.stderr) == []


def test_no_credential_reaches_a_provider_through_the_action(
    world: World, credentials: list[Credential]
) -> None:
    world.open_pr()
    run = world.run(keys=False, **_keys())
    assert run.code == 0, run.stderr
    sent = world.providers.log.all_text()
    _reviewed_every_file(sent, credentials)
    assert leaked(credentials, sent) == []
    posted = json.dumps(world.github.repos["acme/service"].issue_comments)
    assert leaked(credentials, posted + run.stdout + run.stderr) == []


# ---------------------------------------------------------------- the Actions log

FORGED = "::error file=app.py,line=1::Your session expired, re-authenticate at evil.example"
HOSTILE_PATH = "src/::warning file=ci.yml::forged path.py"


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[World]:
    def forged_finding(model: str) -> object:
        def answer(body: dict[str, object]) -> object:
            title = f"::warning::{model} forged title\n::error::second line"
            line = line_of(DB_AFTER, SQL)
            return reply(json.dumps({"findings": [finding("src/app/db.py", line, title)]}))

        return answer

    script = Script()
    for model in ("gpt-test", "llama-test", "claude-test"):
        script.respond(model, forged_finding(model))  # type: ignore[arg-type]
    # The OpenAI client takes the error's message as it is; the runner would act on the
    # legacy `##[…]` form even in the middle of our line.
    provider_error = f"Bad request\n{FORGED}\n  ::add-mask::x\r::stop-commands::t ##[add-mask]y"
    script.respond("qwen-test", lambda body: error(400, provider_error))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": config(providers.url)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        commit(repo, {"src/app/db.py": DB_AFTER, HOSTILE_PATH: "x = 1\n"}, FORGED)
        yield World(tmp_path, repo, github, providers)


def test_untrusted_text_never_becomes_a_workflow_command_and_keys_are_masked(
    hostile: World,
) -> None:
    hostile.open_pr(title=FORGED, body=f"{FORGED}\n##[add-mask]legacy")
    keys = _keys()
    run = hostile.run(keys=False, **keys)
    assert run.code == 0, run.stderr
    # The hostile text did reach the log (the provider's error is reported)…
    assert "Your session expired" in run.stderr
    # …and the runner would act on nothing in it: our masks are the only commands.
    found = commands(run.stdout + "\n" + run.stderr)
    assert {c.name for c in found} == {"add-mask"}, found
    masked = {c.data for c in found}
    assert masked == {*keys.values(), "ghs_fake_token"}
    # The review went on: the forged finding title was posted as text, not as a command.
    assert hostile.github.repos["acme/service"].reviews or hostile.summaries()


@pytest.fixture
def renamed(tmp_path: Path) -> Iterator[World]:
    """The base branch names its keys after no keyword; the PR's head names none."""
    script = Script()
    for model in MODELS:
        script.respond(model, lambda body: reply(NO_FINDINGS))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        base = config(providers.url).replace("FAKE_OPENAI_KEY", "OPENAI_PROD")
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": base}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        head = config(providers.url, evil=True)
        commit(repo, {"src/app/db.py": DB_AFTER, ".consensus.yml": head}, "feature")
        yield World(tmp_path, repo, github, providers)


def test_a_key_named_only_by_the_base_branchs_config_is_masked(renamed: World) -> None:
    renamed.open_pr()
    # Neither its name nor its value says it is a key: only the configuration does.
    prod = "sk-fake-openai-production"
    run = renamed.run(keys=False, OPENAI_PROD=prod, FAKE_ANTHROPIC_KEY="sk-ant-fake")
    assert run.code == 0, run.stderr
    assert renamed.providers.log.requests_for("gpt-test")  # the key was used
    masked = [c.data for c in commands(run.stdout) if c.name == "add-mask"]
    assert prod in masked


def test_a_slash_command_carrying_commands_puts_none_in_the_log(tmp_path: Path) -> None:
    with FakeGitHub() as github:
        github.repo("acme/service").pulls[3] = PullRequest(
            number=3, head_sha="h" * 40, base_sha="b" * 40, files=[]
        )
        body = "/consensus explain ::error file=x.py::forged\n::add-mask::y ##[warning]z"
        event = tmp_path / "event.json"
        event.write_text(
            json.dumps(
                {
                    "action": "created",
                    "issue": {"number": 3, "pull_request": {"url": "…"}},
                    "comment": {"id": 11, "body": body, "user": {"login": "al", "type": "User"}},
                }
            )
        )
        env = {
            "GITHUB_EVENT_NAME": "issue_comment",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "acme/service",
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": "ghs_" + secrets.token_hex(18),
            "GITHUB_WORKSPACE": str(tmp_path),
            "CONSENSUS_POST_INTERVAL": "0",
        }
        out, err = io.StringIO(), io.StringIO()
        main(env, ActionLog(out, err))
        answered = github.repos["acme/service"].issue_comments
    assert answered, err.getvalue()  # the command was answered (and its words not run)
    found = commands(out.getvalue() + err.getvalue())
    assert [(c.name, c.data) for c in found] == [("add-mask", env["GITHUB_TOKEN"])]
