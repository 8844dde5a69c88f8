"""End to end, in process: `consensus action` (click's CliRunner) against the loopback fake
GitHub and loopback fake providers, on a PR where four models paraphrase one real problem,
three of them agree on a wrong severe one, and one alone reports a real leak.

One problem, one comment: the paraphrased problem is one inline comment; the wrong claim,
consensus but not unanimous at high severity, is checked, refuted by the verifiers, and
never posted. Independent judges: counted from the fake providers' logs, no verifier call
judges a claim its own family made, even when the configured inspector and voters are the
reporters."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from consensus.cli.main import cli
from consensus.publish.state import decode_state
from consensus_sim.github_server import FakeGitHub, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script, Step, prompt_text, reply

REPO, NUMBER = "acme/hooks", 11
VERIFIER_PROMPT = "You are an independent verifier"
SAME_PROMPT = "describe the same defect?"
FAMILIES = {
    "gpt-test": "openai",
    "claude-test": "anthropic",
    "llama-test": "meta",
    "qwen-test": "qwen",
}

BEFORE = """\
import hashlib
import hmac


def rows_of(batch):
    return list(batch)
"""
AFTER = """\
import hashlib
import hmac


def verify(secret, body, provided):
    expected = hmac.new(secret, body, hashlib.sha256).hexdigest()
    if expected == provided:
        return True
    return False


def rows_of(batch):
    return [row for row in batch]


LIMIT = 100
RETRIES = 3


def load_key(path):
    handle = open(path)
    return handle.read()
"""
COMPARE = next(n for n, line in enumerate(AFTER.splitlines(), 1) if "expected == provided" in line)
ROWS = next(n for n, line in enumerate(AFTER.splitlines(), 1) if "for row in batch" in line)
LEAK = next(n for n, line in enumerate(AFTER.splitlines(), 1) if "handle = open" in line)
WRONG = "Off-by-one: the comprehension drops the last row"


def found(
    line: int, title: str, body: str, category: str, end: int | None = None
) -> dict[str, object]:
    return {"path": "hooks.py", "line": line, "end_line": end or line, "severity": "high",
            "category": category, "title": title, "body": body}  # fmt: skip


TIMING = found(
    COMPARE - 1, "Signature compared with ==, which leaks timing",
    "`expected == provided` returns at the first differing byte; an attacker can forge a "
    "valid webhook signature byte by byte.", "security", COMPARE + 1,
)  # fmt: skip
COMPARE_DIGEST = found(
    COMPARE, "Use hmac.compare_digest for the MAC check",
    "Replace the equality check with `hmac.compare_digest(expected, provided)`.", "bug",
)  # fmt: skip
ROW_CLAIM = found(
    ROWS, WRONG, "`[row for row in batch]` stops before the final element of `batch`.", "bug"
)  # fmt: skip

LEAK_CLAIM = found(
    LEAK, "File handle is never closed", "`open(path)` is not closed; use `with open(...)`.", "bug"
) | {"severity": "medium"}  # fmt: skip

REVIEWS = {  # one paraphrased real problem; a wrong severe claim by three of four families
    "gpt-test": [TIMING, ROW_CLAIM],
    "claude-test": [COMPARE_DIGEST, ROW_CLAIM],
    "llama-test": [COMPARE_DIGEST, ROW_CLAIM],
    "qwen-test": [COMPARE_DIGEST, LEAK_CLAIM],
}


def responder(model: str) -> Callable[[dict[str, object]], Step]:
    def answer(body: dict[str, object]) -> Step:
        prompt = prompt_text(body)
        if VERIFIER_PROMPT in prompt:
            wrong = WRONG in prompt
            verdict = "refuted" if wrong else "confirmed"
            return reply(json.dumps({"verdict": verdict, "reason": "Read against the code."}))
        if SAME_PROMPT in prompt:
            return reply(json.dumps({"verdict": "same", "reason": "One defect."}))
        return reply(json.dumps({"findings": REVIEWS[model]}))

    return answer


def git(repo: Path, *args: str) -> None:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    subprocess.run(command, cwd=repo, check=True, capture_output=True)


# The issue's configuration: an inspector and voters that are the very models reporting the
# wrong claim (openai, anthropic and meta report it; only qwen did not).
INSPECTOR_OF_REPORTERS = textwrap.dedent(
    """\
    inspector:
      model: anthropic/claude-test
      voters: [openai/gpt-test, openai/llama-test]
    """
)


# The judges as a calibration measured them (right 0.95 / 0.90): what this PR's few claims
# could not show. What a first run without one verifies: tests/e2e/test_judges_e2e.py.
CALIBRATION = (
    "calibration: {families: {"
    + ", ".join(
        f"{family}: {{judge: {{confirmed_real: 95, missed_real: 5, refuted_false: 90, "
        "confirmed_false: 10}}"
        for family in FAMILIES.values()
    )
    + "}}\n"
)


@dataclass
class World:
    tmp: Path
    repo: Path
    github: FakeGitHub
    providers: FakeProviderServer


@pytest.fixture(params=["", INSPECTOR_OF_REPORTERS], ids=["default-judges", "reporters-configured"])
def world(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[World]:
    script = Script()
    for model in FAMILIES:
        script.respond(model, responder(model))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "hooks"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        config = (
            textwrap.dedent(
                f"""\
            providers:
              - model: openai/gpt-test
                api_base: {providers.url}/v1
                api_key_env: FAKE_OPENAI_KEY
              - model: anthropic/claude-test
                api_base: {providers.url}
                api_key_env: FAKE_ANTHROPIC_KEY
              - model: openai/llama-test
                api_base: {providers.url}/v1
                api_key_env: FAKE_OPENAI_KEY
              - model: openai/qwen-test
                api_base: {providers.url}/v1
                api_key_env: FAKE_OPENAI_KEY
            personas: [correctness]
            budget: {{max_cost_usd: 1.0, max_tokens: 400000}}
            """
            )
            + CALIBRATION
            + str(request.param)
        )
        (repo / "hooks.py").write_text(BEFORE)
        (repo / ".consensus.yml").write_text(config)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        git(repo, "checkout", "-q", "-b", "feature")
        (repo / "hooks.py").write_text(AFTER)
        git(repo, "commit", "-q", "-am", "verify webhook signatures")
        load_pull_from_git(github, REPO, NUMBER, repo, base="main", head="feature")
        yield World(tmp_path, repo, github, providers)


def run_action(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    pull = world.github.repos[REPO].pulls[NUMBER]
    event = world.tmp / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "opened",
                "number": NUMBER,
                "pull_request": world.github.pull_json(world.github.repos[REPO], pull),
                "repository": {"full_name": REPO},
                "sender": {"login": "dev", "type": "User"},
            }
        )
    )
    for name in ("summary.md", "output.txt"):
        (world.tmp / name).write_text("")
    env = {
        "HOME": str(world.tmp),
        "CONSENSUS_HOME": str(world.tmp / "consensus-home"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": world.github.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_TOKEN": "ghs_fake_token",
        "GITHUB_WORKSPACE": str(world.repo),
        "GITHUB_STEP_SUMMARY": str(world.tmp / "summary.md"),
        "GITHUB_OUTPUT": str(world.tmp / "output.txt"),
        "RUNNER_TEMP": str(world.tmp),
        "CONSENSUS_POST_INTERVAL": "0",
        "CONSENSUS_ACTION_REPOSITORY": "acme/consensus",
        "OLLAMA_HOST": "127.0.0.1:9",
        "FAKE_OPENAI_KEY": "sk-fake",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
        **{key: "" for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")},
    }
    monkeypatch.chdir(world.repo)
    result = CliRunner().invoke(cli, ["action"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_one_comment_for_a_paraphrased_problem_none_for_a_refuted_severe_consensus(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_action(world, monkeypatch)
    repo = world.github.repos[REPO]
    [review] = repo.reviews
    at_compare = [c for c in repo.review_comments if COMPARE - 1 <= c["line"] <= COMPARE + 1]
    [comment] = at_compare  # the four paraphrases: one comment
    assert "compare" in comment["body"].lower() or "timing" in comment["body"].lower()
    assert WRONG not in json.dumps(repo.review_comments)
    assert {c["line"] for c in repo.review_comments} == {comment["line"], LEAK}
    assert review["state"] == "COMMENTED"

    # The wrong claim was checked: the verifiers refuted it, it is kept for audit only.
    asked = verification_prompts(world)
    assert any(WRONG in p for p in asked)
    assert not any("compare_digest" in p for p in asked)  # the unanimous one: not checked
    [summary] = [c for c in repo.issue_comments if str(c["body"]).startswith("<!--")]
    state = decode_state(str(summary["body"]))
    assert state is not None
    statuses = {r.title: r.status.value for r in state.records}
    assert statuses[WRONG] == "rejected"
    assert "Not posted: " in str(summary["body"])
    assert os.environ.get("GITHUB_TOKEN") != "ghs_fake_token"  # CliRunner restored the env


def verification_prompts(world: World) -> list[str]:
    return [
        prompt_text(r.body)
        for r in world.providers.log.all()
        if r.body and VERIFIER_PROMPT in prompt_text(r.body)
    ]


def test_no_verifier_judges_its_own_familys_claim(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_action(world, monkeypatch)
    reporters = {
        claim["title"]: {FAMILIES[m] for m, claims in REVIEWS.items() if claim in claims}
        for claim in (ROW_CLAIM, LEAK_CLAIM)
    }
    judged: dict[str, list[str]] = {title: [] for title in reporters}
    for request in world.providers.log.all():
        text = prompt_text(request.body) if request.body else ""
        if VERIFIER_PROMPT not in text:
            continue
        model = str(request.body["model"]) if request.body else ""
        [title] = [t for t in reporters if f'Is the finding "{t}" real?' in text]
        judged[title].append(FAMILIES[model.split("/")[-1]])
    assert judged[WRONG] and judged[LEAK_CLAIM["title"]]
    for title, families in judged.items():
        assert not set(families) & reporters[title], (title, families)
    assert set(judged[WRONG]) == {"qwen"}  # the one family that did not report it
    assert "qwen" not in judged[LEAK_CLAIM["title"]]

    # The leak's comment says in one line how it was established.
    [leak] = [c for c in world.github.repos[REPO].review_comments if c["line"] == LEAK]
    [footer] = [line for line in str(leak["body"]).splitlines() if line.startswith("<sub>")]
    assert footer.startswith("<sub>Verified · reported by 1 of 4 families (`openai/qwen-test`) · ")
    assert "· confirmed by " in footer and "refuted" not in footer
    assert all(family in footer for family in ("openai", "anthropic", "meta"))
