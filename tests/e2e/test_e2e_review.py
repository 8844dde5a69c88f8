"""End to end: the real `consensus review` CLI, a real git repository, and providers that
speak the OpenAI, Anthropic and Ollama APIs over real HTTP on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from consensus_sim.provider_server import (
    FakeProviderServer,
    Script,
    Step,
    error,
    prompt_text,
    reply,
)
from fakes.inprocess import run_consensus

ROOT = Path(__file__).resolve().parents[2]
PLANTED_AWS_KEY = "AKIAQ3EGRDXK7HNPW5ZB"

DB_BEFORE = """\
import sqlite3


def connect(path):
    return sqlite3.connect(path)


def get_user(conn, user_id):
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
    return cur.fetchone()
"""

DB_AFTER = """\
import sqlite3


def connect(path):
    return sqlite3.connect(path)


def get_user(conn, user_id):
    cur = conn.cursor()
    query = f"SELECT * FROM users WHERE id = {user_id}"
    cur.execute(query)
    return cur.fetchone()


def delete_users(conn, ids):
    for i in range(len(ids) + 1):
        conn.execute("DELETE FROM users WHERE id = ?", (ids[i],))
    conn.commit()
"""

SETTINGS_AFTER = f'''\
DEBUG = False
AWS_ACCESS_KEY_ID = "{PLANTED_AWS_KEY}"
REGION = "eu-west-1"
'''


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small service with a feature branch that adds an injection, a bug and a key."""
    repo = tmp_path / "service"
    (repo / "src" / "app").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "src" / "app" / "db.py").write_text(DB_BEFORE)
    (repo / "src" / "app" / "settings.py").write_text('DEBUG = False\nREGION = "eu-west-1"\n')
    (repo / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "checkout", "-q", "-b", "feature/users")
    (repo / "src" / "app" / "db.py").write_text(DB_AFTER)
    (repo / "src" / "app" / "settings.py").write_text(SETTINGS_AFTER)
    (repo / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {}}\n')
    git(repo, "commit", "-q", "-am", "Add delete_users and inline the user query")
    return repo


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


SQL_LINE = line_of(DB_AFTER, "query = f")
LOOP_LINE = line_of(DB_AFTER, "for i in range")


def finding(line: int, title: str, body: str, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "path": "src/app/db.py",
        "line": line,
        "severity": "high",
        "category": "security",
        "title": title,
        "body": body,
    }
    base.update(extra)
    return base


def answer(*findings: dict[str, object], fenced: bool = False) -> str:
    text = json.dumps({"findings": list(findings)})
    return f"Here is my review:\n```json\n{text}\n```\nHappy to help!" if fenced else text


# Four models describe the same injection in their own words, up to two lines apart.
SQL_BY = {
    "gpt-test": finding(
        SQL_LINE,
        "SQL query built with an f-string allows injection",
        "`user_id` is interpolated into the SQL string. Use a parameterized query.",
        evidence='query = f"SELECT * FROM users WHERE id = {user_id}"',
    ),
    "claude-test": finding(
        SQL_LINE + 1,
        "User input interpolated directly into SQL statement",
        "The query is built from user input with string formatting: SQL injection.",
    ),
    "llama-test": finding(
        SQL_LINE + 2,
        "Possible SQL injection: use parameterized queries",
        "Building the SQL query with an f-string lets an attacker inject SQL.",
    ),
    "qwen-test": finding(
        SQL_LINE,
        "Unsanitized user_id concatenated into the SQL query string",
        "SQL injection risk; pass user_id as a query parameter instead.",
    ),
}
OFF_BY_ONE = finding(
    LOOP_LINE,
    "Off-by-one: loop reads past the end of ids",
    "`range(len(ids) + 1)` makes `ids[i]` raise IndexError on the last iteration.",
    category="bug",
    evidence="for i in range(len(ids) + 1):",
)


@dataclass
class Run:
    code: int
    report: dict[str, object]
    stderr: str


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(Script()) as fake:
        yield fake


def write_config(repo: Path, url: str, *, extra_providers: str = "", extra: str = "") -> Path:
    config = repo.parent / "consensus.yml"
    config.write_text(
        textwrap.dedent(
            f"""\
            providers:
              - model: openai/gpt-test
                api_base: {url}/v1
                api_key_env: FAKE_OPENAI_KEY
              - model: anthropic/claude-test
                api_base: {url}
                api_key_env: FAKE_ANTHROPIC_KEY
              - model: openai/llama-test
                api_base: {url}/v1
                api_key_env: FAKE_OPENAI_KEY
              - model: ollama/qwen-test
                api_base: {url}
            """
        )
        + extra_providers
        + "personas: [correctness, security]\nbudget: {max_cost_usd: 1.0, max_tokens: 400000}\n"
        + extra
    )
    return config


def review(repo: Path, config: Path, *args: str) -> Run:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.parent),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FAKE_OPENAI_KEY": "sk-fake-openai",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
        "PYTHONPATH": str(ROOT),
    }
    command = ["review", "--base", "main", "--config"]
    done = run_consensus([*command, str(config), "--format", "json", *args], cwd=repo, env=env)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"no JSON report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return Run(done.returncode, report, done.stderr)


VERIFIER_PROMPT = "You are an independent verifier"
REVIEWS = {
    "gpt-test": answer(SQL_BY["gpt-test"], OFF_BY_ONE),
    "claude-test": answer(SQL_BY["claude-test"], OFF_BY_ONE),
    "llama-test": answer(SQL_BY["llama-test"], fenced=True),
    "qwen-test": answer(SQL_BY["qwen-test"]),
}


def script_panel(script: Script, *, verdict: str = "confirmed", dead: tuple[str, ...] = ()) -> None:
    """Each model reviews with its own findings and answers verification with `verdict`."""
    said = json.dumps({"verdict": verdict, "reason": "Checked against the code shown."})

    def responder(review: str) -> Callable[[dict[str, object]], Step]:
        return lambda body: reply(said if VERIFIER_PROMPT in prompt_text(body) else review)

    for model, review in REVIEWS.items():
        if model in dead:
            script.add(model, then=error(401, "invalid api key"))
        else:
            script.respond(model, responder(review))


def findings_by_title(run: Run) -> dict[str, dict[str, object]]:
    return {str(f["title"]): f for f in run.report["findings"]}  # type: ignore[union-attr]


def test_four_providers_agree_on_the_injection_and_dispute_the_off_by_one(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url, extra=IMPARTIAL_JUDGES))
    assert run.code == 0, run.stderr
    report = run.report
    assert set(report) >= {"version", "run_id", "findings", "providers", "stats"}
    assert report["version"] == 1

    findings = report["findings"]
    assert isinstance(findings, list) and len(findings) == 3
    sql, loop, credential = findings
    assert sql["id"] == "F1" and loop["id"] == "F2"
    assert sql["status"] == "consensus"
    assert sql["path"] == "src/app/db.py"
    assert SQL_LINE <= sql["line"] <= SQL_LINE + 2
    assert sql["severity"] == "high" and sql["category"] == "security"
    assert sql["agreement"] == 1.0
    assert sql["votes"] == {"for": 4, "of": 4}
    assert sql["providers"] == sorted(
        ["openai/gpt-test", "anthropic/claude-test", "openai/llama-test", "ollama/qwen-test"]
    )
    assert sql["personas"] == ["correctness", "security"]
    assert len(str(sql["fingerprint"])) >= 16

    assert loop["status"] == "verified"
    assert loop["line"] == LOOP_LINE
    record = loop["verification"]
    assert (record["confirmed"], record["refuted"], record["uncertain"]) == (2, 0, 0)
    assert record["belief"] >= 0.9  # two confirmations of judges calibrated 0.85/0.85
    inspector, voter = record["votes"]
    # the inspector is of a family that did not report the finding; identities stay hidden
    assert inspector["role"] == "inspector" and inspector["family"] not in ("openai", "anthropic")
    assert voter["role"] == "voter" and voter["verdict"] == "confirmed"
    verify_prompts = [
        prompt_text(r.body) for r in server.log.all() if r.body and VERIFIER_PROMPT in r.raw
    ]
    assert len(verify_prompts) == 2
    assert all("Off-by-one: loop reads past the end of ids" in p for p in verify_prompts)
    assert all("gpt-test" not in p and "claude-test" not in p for p in verify_prompts)
    assert loop["votes"] == {"for": 2, "of": 4}
    assert loop["agreement"] == 0.5
    assert loop["providers"] == ["anthropic/claude-test", "openai/gpt-test"]

    providers = {p["model"]: p for p in report["providers"]}  # type: ignore[union-attr]
    assert set(providers) == set(SQL_BY_MODEL)
    for provider in providers.values():
        assert provider["status"] == "ok"
        assert provider["error"] is None
        assert provider["calls"] in (2, 3)  # one chunk × two personas (+ a verification vote)
        assert provider["files_seen"] == ["src/app/db.py", "src/app/settings.py"]
        assert provider["tokens_in"] > 0

    stats = report["stats"]
    assert isinstance(stats, dict)
    assert stats["calls"] == 10  # 8 reviews, the inspector and one vote
    assert stats["clusters"] == 3 and stats["consensus"] == 2

    # The planted key is a finding of its own, found without a model, named not quoted.
    assert credential["status"] == "consensus"
    assert (credential["path"], credential["line"]) == ("src/app/settings.py", 2)
    assert credential["providers"] == ["consensus"]
    assert "aws-access-key" in credential["title"] and PLANTED_AWS_KEY not in str(credential)
    assert credential["reason"].startswith("found by consensus's own scan")
    assert report["quorum"] == {"families_answered": 4, "min_providers": 2, "met": True}
    skipped = {s["path"]: s["reason"] for s in report["skipped_files"]}  # type: ignore[union-attr]
    assert skipped == {"package-lock.json": "lockfile"}


# The judges of the off-by-one (the families that did not report it), calibrated as right
# 85% of the time either way: two confirmations verify a claim two families made.
IMPARTIAL_JUDGES = """\
calibration:
  families:
    meta: {judge: {confirmed_real: 85, missed_real: 15, refuted_false: 85, confirmed_false: 15}}
    qwen: {judge: {confirmed_real: 85, missed_real: 15, refuted_false: 85, confirmed_false: 15}}
"""


def test_judges_the_run_cannot_read_leave_a_claim_two_families_made_undecided(
    repo: Path, server: FakeProviderServer
) -> None:
    # No calibration, and one claim judged: nothing shows whether these judges confirm
    # everything. Each family is asked once; two confirmations are not enough.
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    loop = next(f for f in run.report["findings"] if f["title"].startswith("Off-by-one"))
    assert loop["status"] == "undecided"
    assert loop["verification"]["confirmed"] == 2  # one judge per family, never a repeat
    assert loop["reason"].startswith(
        "undecided: no family left to ask; reported by 2 of 4 families · confirmed by "
    )
    assert loop["verification"]["belief"] < 0.9
    judges = {f["family"]: f for f in run.report["panel"]["families"]}
    assert judges["meta"]["judged"] == 1  # the report shows what each estimate rests on


SQL_BY_MODEL = ["openai/gpt-test", "anthropic/claude-test", "openai/llama-test", "ollama/qwen-test"]


def test_a_planted_aws_key_never_reaches_a_provider(repo: Path, server: FakeProviderServer) -> None:
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    sent = server.log.all_text()
    assert "AWS_ACCESS_KEY_ID" in sent  # the line was reviewed …
    assert PLANTED_AWS_KEY not in sent  # … without its value
    assert PLANTED_AWS_KEY not in json.dumps(run.report) + run.stderr
    [redaction] = run.report["redactions"]  # type: ignore[misc]
    assert redaction["path"] == "src/app/settings.py"
    assert redaction["line"] == 2


def test_a_429_with_retry_after_is_waited_out_then_succeeds(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script)
    server.script.add("claude-test", error(429, headers={"Retry-After": "1"}))
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    claude = [r for r in server.log.requests_for("claude-test") if "/messages" in r.path]
    reviews = [r for r in claude if VERIFIER_PROMPT not in r.raw]
    assert len(reviews) == 3  # the 429, its retry, the other persona
    times = sorted(r.time for r in reviews)
    assert any(later - earlier >= 0.95 for earlier, later in itertools.pairwise(times))
    providers = {p["model"]: p for p in run.report["providers"]}  # type: ignore[union-attr]
    assert providers["anthropic/claude-test"]["status"] == "ok"
    assert run.report["findings"][0]["votes"] == {"for": 4, "of": 4}  # type: ignore[index]


def test_a_dead_provider_abstains_and_is_named(repo: Path, server: FakeProviderServer) -> None:
    script_panel(server.script, dead=("qwen-test",))
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    providers = {p["model"]: p for p in run.report["providers"]}  # type: ignore[union-attr]
    dead = providers["ollama/qwen-test"]
    assert dead["status"] == "failed"
    assert "auth" in str(dead["error"])
    assert dead["files_seen"] == []
    sql = run.report["findings"][0]  # type: ignore[index]
    assert sql["status"] == "consensus"
    assert sql["votes"] == {"for": 3, "of": 3}  # the dead provider is not in the denominator
    assert "ollama/qwen-test" not in sql["providers"]


def test_a_malformed_reply_is_repaired_once(repo: Path, server: FakeProviderServer) -> None:
    script_panel(server.script)
    truncated = answer(SQL_BY["llama-test"])[:90]
    server.script.add("llama-test", reply(truncated))
    run = review(repo, write_config(repo, server.url))
    assert run.code == 0, run.stderr
    llama = [r for r in server.log.requests_for("llama-test") if VERIFIER_PROMPT not in r.raw]
    assert len(llama) == 3
    repair = [r for r in llama if "Your reply was not valid" in r.raw]
    assert len(repair) == 1 and "truncated" in repair[0].raw
    assert run.report["findings"][0]["votes"] == {"for": 4, "of": 4}  # type: ignore[index]


def test_one_answering_family_is_advisory_and_exits_3(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script, dead=("claude-test", "llama-test", "qwen-test"))
    run = review(repo, write_config(repo, server.url))
    assert run.code == 3
    assert run.report["quorum"] == {"families_answered": 1, "min_providers": 2, "met": False}


def test_fail_on_high_exits_1_when_a_high_finding_reaches_consensus(
    repo: Path, server: FakeProviderServer
) -> None:
    script_panel(server.script)
    run = review(repo, write_config(repo, server.url), "--fail-on", "high")
    assert run.code == 1
    assert run.report["findings"][0]["severity"] == "high"  # type: ignore[index]
