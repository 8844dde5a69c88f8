"""End to end: the real `consensus bench` CLI against the loopback GitHub (the benchmark's
files at the pinned commit, and two PRs) and loopback providers (two reviewers, a judge)."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import sqlite3
import string
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.app.bench.judge_rates import read_labels
from consensus_sim.github_server import FakeGitHub
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text
from fakes.inprocess import Ran, run_consensus
from tests.e2e.bench_fixtures import (
    CLEAN_DIFF,
    GOLDENS,
    JUDGE_PROMPT,
    VERIFIER_PROMPT,
    script_leaky_world,
    script_world,
    serve_world,
    shop_repository,
    suite_lines,
    write_config,
)

ROOT = Path(__file__).resolve().parents[2]
# litellm ships tiktoken's encodings and points TIKTOKEN_CACHE_DIR at them when imported;
# a run with exactly the environment given must be told, or tiktoken would download them.
_LITELLM = importlib.util.find_spec("litellm")
assert _LITELLM is not None and _LITELLM.submodule_search_locations
TOKENIZERS = str(Path(_LITELLM.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers")
JUDGE = ["--judge", "openai/gpt-5.2", "--judge-key-env", "FAKE_OPENAI_KEY"]


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        serve_world(server, tmp_path)
        yield server


def provider(latency_s: float = 0.0) -> FakeProviderServer:
    server = FakeProviderServer(Script(), latency_s=latency_s)
    script_world(server.script)
    return server


@pytest.fixture
def models() -> Iterator[FakeProviderServer]:
    with provider() as server:
        yield server


def env_for(home: Path, github: FakeGitHub) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CONSENSUS_HOME": str(home / "consensus"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT),
        "TIKTOKEN_CACHE_DIR": TOKENIZERS,
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "ghp_test",
        "FAKE_OPENAI_KEY": "sk-fake-openai",
        "FAKE_ANTHROPIC_KEY": "sk-ant-fake",
    }


def bench_args(config: Path, out: Path, server: FakeProviderServer, *extra: str) -> list[str]:
    judge = [*JUDGE, "--judge-api-base", f"{server.url}/v1"]
    return ["bench", "--suite", "martian-offline", *judge, "--config", str(config),
            "--output", str(out), *extra]  # fmt: skip


def model_calls(server: FakeProviderServer) -> int:
    return sum(1 for r in server.log.all() if r.path.endswith(("/chat/completions", "/messages")))


def judge_calls(server: FakeProviderServer) -> int:
    return sum(1 for r in server.log.all() if r.body and JUDGE_PROMPT in r.raw)


def bench(tmp_path: Path, github: FakeGitHub, server: FakeProviderServer, home: Path) -> Ran:
    config = write_config(tmp_path, server.url)
    done = run_consensus(
        bench_args(config, tmp_path / "out", server), cwd=tmp_path, env=env_for(home, github)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def figures(out: Path) -> dict[str, dict[str, object]]:
    data = json.loads((out / "bench.json").read_text())
    return {v["name"]: v["overall"] for v in data["variants"]}


def test_the_martian_suite_is_reviewed_judged_and_scored_against_the_published_tools(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    done = bench(tmp_path, github, models, tmp_path / "home")
    assert "Copyright (c) 2025 A test fixture" in done.stderr  # the licence, printed
    assert "github.com/withmartian/code-review-benchmark at 012d68202e56" in done.stderr
    assert "GITHUB_TOKEN" in done.stderr  # said up front: a token is needed for rate limits
    # the 1 MB rule: files came through the blob API
    assert any("/git/blobs/" in r.path for r in github.requests)

    got = figures(tmp_path / "out")
    # consensus: off-by-one (agreed) and divide-by-zero (verified) on #7, password on #9
    assert (got["consensus"]["tp"], got["consensus"]["fp"], got["consensus"]["fn"]) == (3, 0, 1)
    assert got["consensus"]["precision"] == 1.0 and got["consensus"]["recall"] == 0.75
    lo, hi = got["consensus"]["recall_ci"]  # type: ignore[misc]
    assert 0.0 < lo < 0.75 < hi <= 1.0
    # without verification the divide-by-zero (one family) is not posted
    no_verify = got["consensus-no-verify"]
    assert (no_verify["tp"], no_verify["fp"], no_verify["fn"]) == (2, 0, 2)
    # each model alone posts everything it said
    gpt, claude = got["solo:openai/gpt-test"], got["solo:anthropic/claude-test"]
    assert (gpt["tp"], gpt["fp"], gpt["fn"]) == (3, 1, 1)
    assert (claude["tp"], claude["fp"], claude["fn"]) == (3, 0, 1)

    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert data["published_judge"] == "openai_gpt-5.2"
    tools = {p["tool"]: (p["tp"], p["fp"], p["fn"], p["prs"]) for p in data["published"]}
    assert tools == {"tool-a": (2, 4, 2, 2), "tool-b": (2, 8, 2, 2)}  # tool-c was skipped
    # every distinct finding of either PR is judged once, with the judge's reason
    verdicts = {(j["pr"], j["finding"]["title"]): j for j in data["judgements"]}
    assert len(verdicts) == len(data["judgements"]) == 7 == judge_calls(models)
    zero = verdicts[("acme/shop#7", "Division by zero for an empty cart")]
    assert zero["verdict"] == "match" and zero["golden"] == 2
    assert zero["golden_comment"].startswith("average() divides by zero")
    assert zero["reason"] == "Both name the division by zero defect."
    assert zero["posted_by"] == ["consensus", "solo:openai/gpt-test"]
    nit = verdicts[("acme/shop#7", "Use a list comprehension")]
    assert nit["verdict"] == "no_match" and nit["golden"] is None

    markdown = (tmp_path / "out" / "bench.md").read_text()
    assert "| consensus (with verification) | 100.0% " in markdown
    assert "| tool-a | 33.3% | 50.0% | 40.0% | 2 / 4 / 2 |" in markdown
    assert markdown.strip() in done.stdout
    page = (tmp_path / "out" / "bench.html").read_text()
    assert "<svg class='chart'" in page and "tool-b" in page and "<script" not in page


def test_labels_hold_each_judged_finding_and_the_votes_cast_on_it(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    bench(tmp_path, github, models, tmp_path / "home")
    text = (tmp_path / "out" / "labels.jsonl").read_text()
    claims = [json.loads(x) for x in text.splitlines()]
    # exactly what `consensus calibrate --labels` reads
    assert [c.id for c in read_labels(text, source="labels.jsonl")] == [c["id"] for c in claims]
    by_title = {c["title"]: c for c in claims}
    zero = by_title["Division by zero for an empty cart"]
    assert set(zero) == {"id", "diff", "path", "line", "title", "body", "real", "severity",
                         "category", "origin"}  # fmt: skip
    assert zero["real"] is True and zero["severity"] == "medium" and zero["path"] == "app/cart.py"
    assert zero["origin"] == "martian-offline:acme/shop#7"
    assert zero["diff"].startswith("diff --git a/app/cart.py b/app/cart.py")
    assert by_title["Use a list comprehension"]["real"] is False
    assert [c["id"] for c in claims] == [f"L{n}" for n in range(1, len(claims) + 1)]
    votes = [json.loads(x) for x in (tmp_path / "out" / "votes.jsonl").read_text().splitlines()]
    on_zero = [v for v in votes if v["claim"] == zero["id"]]
    assert on_zero and all(v["verdict"] == "confirmed" for v in on_zero)
    assert {v["role"] for v in on_zero} == {"inspector"}  # its one judge: claude, asked once


def test_a_finished_bench_re_scores_from_the_journal_without_any_model_or_github_call(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    home = tmp_path / "home"
    bench(tmp_path, github, models, home)
    first = json.loads((tmp_path / "out" / "bench.json").read_text())
    sent, asked = model_calls(models), len(github.requests)
    bench(tmp_path, github, models, home)
    assert model_calls(models) == sent
    assert len(github.requests) == asked  # the benchmark and the diffs are cached
    again = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert again["variants"] == first["variants"] and again["judgements"] == first["judgements"]


def test_our_own_jsonl_suite_mixes_a_pr_read_from_github_and_an_inline_diff(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    shop = shop_repository(tmp_path / "local")
    diff = subprocess.run(
        ["git", "diff", "main...pr9"], cwd=shop, check=True, capture_output=True, text=True
    ).stdout
    suite = tmp_path / "mine.jsonl"
    suite.write_text(suite_lines(diff))
    config = write_config(tmp_path, models.url)
    args = bench_args(config, tmp_path / "out", models)
    args[2] = str(suite)
    done = run_consensus(args, cwd=tmp_path, env=env_for(tmp_path / "home", github))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert [r["pr"] for r in data["runs"]] == ["acme/shop#7", "local-login"]
    assert data["published"] == []  # our suite has no published figures
    consensus = next(v for v in data["variants"] if v["name"] == "consensus")
    assert set(consensus["by_repository"]) == {"acme/shop", "local"}
    assert consensus["overall"]["tp"] == 3


PATTERN = "acme-internal-[a-z0-9]{8}"


def test_a_clean_pr_counts_what_was_posted_on_it_and_no_prompt_carries_a_planted_key(
    tmp_path: Path, github: FakeGitHub
) -> None:
    """Our suite: #7 from GitHub and a clean PR (goldens: []). gpt-test quotes an AWS key id
    and a value of the repository's `redact:` pattern in a finding of each."""
    aws = "AKIA" + "".join(random.choice(string.ascii_uppercase) for _ in range(16))
    own = "acme-internal-" + "".join(random.choice(string.ascii_lowercase) for _ in range(8))
    suite = tmp_path / "mine.jsonl"
    suite.write_text(
        json.dumps({"repo": "acme/shop", "number": 7, "goldens": GOLDENS[7]}) + "\n"
        + json.dumps({"id": "format-only", "diff": CLEAN_DIFF, "goldens": []}) + "\n"
    )  # fmt: skip
    with FakeProviderServer(Script()) as server:
        script_leaky_world(server.script, (aws, own))
        config = write_config(tmp_path, server.url)
        config.write_text(config.read_text() + f"redact: ['{PATTERN}']\n")
        args = bench_args(config, tmp_path / "out", server)
        args[2] = str(suite)
        planned = run_consensus([*args, "--dry-run"], cwd=tmp_path,
                                env=env_for(tmp_path / "home", github))  # fmt: skip
        assert "judge calls:  12 with openai/gpt-5.2" in planned.stdout  # #7's alone
        assert "1 clean PR is not judged" in planned.stdout
        done = run_consensus(args, cwd=tmp_path, env=env_for(tmp_path / "home", github))
        assert done.returncode == 0, done.stderr
        prompts = [prompt_text(r.body) for r in server.log.all() if r.body]
    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert (data["prs"], data["clean_prs"], data["goldens"]) == (2, 1, 2)
    by_name = {v["name"]: v for v in data["variants"]}
    gpt = by_name["solo:openai/gpt-test"]
    # its nit on the clean PR is a false positive; recall is #7's alone
    assert (gpt["overall"]["tp"], gpt["overall"]["fp"], gpt["overall"]["fn"]) == (2, 2, 0)
    assert (gpt["overall"]["clean_prs"], gpt["overall"]["posted_on_clean"]) == (1, 1)
    clean_row = next(r for r in gpt["per_pr"] if r["pr"] == "format-only")
    assert clean_row["clean"] and (clean_row["fp"], clean_row["fn"]) == (1, 0)
    nit = next(j for j in data["judgements"] if j["pr"] == "format-only")
    assert (nit["verdict"], nit["judge"]) == ("no_match", "")  # no judge was asked
    judged = [p for p in prompts if JUDGE_PROMPT in p]
    assert judged and not any("app/format.py" in p for p in judged)
    assert len(judged) == sum(1 for j in data["judgements"] if j["pr"] == "acme/shop#7")
    markdown = (tmp_path / "out" / "bench.md").read_text()
    assert "- 2 pull requests (1 of them clean), 2 golden comments" in markdown
    assert "| posted on clean PRs |" in markdown and "| format-only (clean) |" in markdown
    page = (tmp_path / "out" / "bench.html").read_text()
    assert "<th>posted on clean PRs</th>" in page and "format-only</code> (clean)" in page
    labels = (tmp_path / "out" / "labels.jsonl").read_text()
    by_origin = {c.origin: c for c in read_labels(labels, source="labels.jsonl")}
    assert by_origin["mine.jsonl:format-only"].real is False  # calibrate reads it: not real
    # no prompt of any kind carried either value; the judge's and verifiers' had them replaced
    assert not any(aws in p or own in p for p in prompts)
    assert any("«redacted:aws-access-key»" in p and "«redacted:custom»" in p for p in judged)
    assert any(VERIFIER_PROMPT in p and "«redacted:custom»" in p for p in prompts)


def test_dry_run_prints_calls_and_cost_and_calls_no_model(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    config = write_config(tmp_path, models.url)
    args = bench_args(config, tmp_path / "out", models, "--dry-run")
    done = run_consensus(args, cwd=tmp_path, env=env_for(tmp_path / "home", github))
    assert done.returncode == 0, done.stderr
    assert "review calls: 4 " in done.stdout  # 2 PRs × 2 providers × 1 persona, one chunk
    assert "judge calls:  24 with openai/gpt-5.2" in done.stdout
    assert "estimated cost:" in done.stdout
    assert "not at hand" not in done.stdout  # both diffs were read from GitHub
    assert model_calls(models) == 0 and not (tmp_path / "out").exists()
    done = run_consensus(
        [*args, "--limit", "1"], cwd=tmp_path, env=env_for(tmp_path / "home", github)
    )
    assert "bench martian-offline: 1 pull request (dry run" in done.stdout
    assert "review calls: 2 " in done.stdout


def test_dry_run_of_the_default_panel_prices_every_call_before_any_key_is_used(
    tmp_path: Path, github: FakeGitHub
) -> None:
    """No providers configured: one per API key found (gpt-5.1, claude-sonnet-4-5,
    gemini-2.5-pro), four personas, priced from litellm's map; the keys are never used."""
    (tmp_path / "empty.yml").write_text("{}\n")
    env = env_for(tmp_path / "home", github)
    env.update(OPENAI_API_KEY="sk-unused", ANTHROPIC_API_KEY="sk-ant-unused",
               GEMINI_API_KEY="unused", OLLAMA_HOST="127.0.0.1:9")  # fmt: skip
    args = ["bench", "--suite", "martian-offline", "--judge", "openai/gpt-5.2", "--dry-run",
            "--config", str(tmp_path / "empty.yml")]  # fmt: skip
    done = run_consensus(args, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert (
        "panel: openai/gpt-5.1, anthropic/claude-sonnet-4-5, gemini/gemini-2.5-pro" in done.stdout
    )
    assert "review calls: 24 " in done.stdout  # 2 PRs × 3 providers × 4 personas
    assert "estimated cost: $" in done.stdout and "unknown" not in done.stdout


def test_a_broken_suite_line_is_named_with_its_key(
    tmp_path: Path, github: FakeGitHub, models: FakeProviderServer
) -> None:
    suite = tmp_path / "bad.jsonl"
    suite.write_text('{"repo": "acme/shop", "number": 7, "goldens": [{"comment": "x"}]}\n')
    args = bench_args(write_config(tmp_path, models.url), tmp_path / "out", models)
    args[2] = str(suite)
    done = run_consensus(args, cwd=tmp_path, env=env_for(tmp_path / "home", github))
    assert done.returncode == 2
    assert f"{suite}:1: goldens.0.severity: Field required" in done.stderr


# --------------------------------------------------------------------------- SIGKILL


def ok_calls(home: Path) -> int:
    path = home / "consensus" / "journal.db"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM calls WHERE ok = 1").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_a_killed_bench_resumes_without_paying_again_for_any_answered_call(
    tmp_path: Path, github: FakeGitHub
) -> None:
    with provider() as slow:
        config = write_config(tmp_path, slow.url)
        reference = tmp_path / "reference"
        run_consensus(bench_args(config, reference / "out", slow), cwd=tmp_path,
                      env=env_for(reference, github))  # fmt: skip
        needed = model_calls(slow)

        home = tmp_path / "killed"
        slow.latency_s = 0.3  # slow enough for the kill to land mid-bench
        victim = subprocess.Popen(
            [sys.executable, "-m", "consensus", *bench_args(config, home / "out", slow)],
            cwd=tmp_path,
            env=env_for(home, github),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while ok_calls(home) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)
        slow.latency_s = 0.0
        answered = ok_calls(home)
        assert 5 <= answered < needed, "the kill must land mid-bench"
        before = model_calls(slow)

        done = run_consensus(bench_args(config, home / "out", slow), cwd=tmp_path,
                             env=env_for(home, github))  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert model_calls(slow) - before + answered == needed  # none asked twice
    assert figures(home / "out") == figures(reference / "out")
