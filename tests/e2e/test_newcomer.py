"""What a newcomer meets on a fresh machine, command by command, as the README gives them:
the dry run with one key, unknown models, `consensus config` saved as `.consensus.yml`,
`consensus runs` after the demo. Each test names what the first user tripped over."""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from consensus.app.demo.demo import write_repository
from consensus_sim.provider_server import FakeProviderServer, Script
from fakes.inprocess import Ran, run_consensus

PASSWORD = "s3cr3t-pa55word"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The demo's sample repository: `main`, and a feature branch checked out on top."""
    repo = tmp_path / "shop"
    repo.mkdir()
    write_repository(repo)
    return repo


def consensus(repo: Path, *args: str, **env: str) -> Ran:
    home = repo.parent / "home"
    return run_consensus(
        list(args),
        cwd=repo,
        env={"PATH": os.environ["PATH"], "HOME": str(home), "CONSENSUS_HOME": str(home), **env},
    )


# --------------------------------------------------------------------------- the dry run


@pytest.mark.parametrize(
    "models", [None, "openai/gpt-5.1,openai/gpt-4o"], ids=["one key", "two openai models"]
)
def test_a_dry_run_of_one_family_says_the_run_is_advisory_and_exits_3(
    shop: Path, models: str | None
) -> None:
    flags = ["--models", models] if models else []
    done = consensus(shop, "review", "--dry-run", *flags, OPENAI_API_KEY="sk-x")
    assert done.returncode == 3, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("ADVISORY: 1 family would review (openai)")
    assert "needs 2 (min_providers)" in first and "exit 3" in first


def test_a_dry_run_of_two_families_that_fits_exits_0(shop: Path) -> None:
    done = consensus(shop, "review", "--dry-run", OPENAI_API_KEY="x", ANTHROPIC_API_KEY="y")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ADVISORY" not in done.stdout


def test_a_dry_run_gives_one_cost_ceiling_and_says_verification_is_a_share(shop: Path) -> None:
    done = consensus(shop, "review", "--dry-run", OPENAI_API_KEY="x", ANTHROPIC_API_KEY="y")
    ceilings = set(re.findall(r"at most \$([0-9.]+)", done.stdout))
    cap = re.search(r"caps: [0-9,]+ tokens \(auto\), \$([0-9.]+) \(auto\)", done.stdout)
    assert cap is not None and ceilings == {cap.group(1)}, done.stdout
    assert "verification included" not in done.stdout
    assert "a share for verification" in done.stdout


def test_a_dry_run_with_nothing_to_send_names_no_empty_price_list(
    shop: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.diff"
    empty.write_text("")
    done = consensus(
        shop, "review", "--dry-run", "--diff", str(empty), OPENAI_API_KEY="x", ANTHROPIC_API_KEY="y"
    )
    assert "no known price for )" not in done.stdout
    assert "budget: no review call would be sent" in done.stdout


# --------------------------------------------------------------------------- credentials


def test_a_password_in_an_api_base_is_kept_nowhere(shop: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: the call is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = shop.parent / "gateway.yml"
    config.write_text(
        "providers:\n"
        f"  - {{model: openai/gpt-test, api_base: 'http://gw-user:{PASSWORD}@127.0.0.1:{port}/v1',"
        " api_key_env: GW_KEY}\n"
        f"  - {{model: anthropic/claude-test, api_base: 'http://gw-user:{PASSWORD}@127.0.0.1:{port}',"
        " api_key_env: GW_KEY}\n"
        "personas: [correctness]\n"
    )
    done = consensus(
        shop,
        "review",
        "--base",
        "main",
        "--config",
        str(config),
        "--format",
        "json",
        GW_KEY="sk-gateway",
    )
    assert done.returncode == 3, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    page = shop.parent / "run.html"
    consensus(shop, "report", run_id, "--html", str(page))
    shown = consensus(shop, "replay", run_id, "--format", "markdown")
    journal = (shop.parent / "home" / "journal.db").read_bytes()
    everything = [done.stdout, done.stderr, shown.stdout, shown.stderr, page.read_text()]
    assert PASSWORD.encode() not in journal
    assert not [text for text in everything if PASSWORD in text]


# --------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    "config",
    [
        "",
        "providers:\n  - model: anthropic/claude-sonnet-4-5\n"
        "  - {model: openai/qwen2.5-coder, api_base: 'https://llm.internal/v1', family: qwen}\n"
        "redact: ['(?i)internal-token-[a-z0-9]+']\n"
        "budget: {max_cost_usd: 2.0}\n",
    ],
    ids=["defaults", "providers and redact"],
)
def test_config_saved_as_consensus_yml_reads_back_as_the_same_settings(
    shop: Path, config: str
) -> None:
    if config:
        (shop / ".consensus.yml").write_text(config)
    first = consensus(shop, "config")
    assert first.returncode == 0, first.stderr
    (shop / ".consensus.yml").write_text(first.stdout)
    again = consensus(shop, "config")
    assert again.returncode == 0, again.stderr
    settings = [line for line in again.stdout.splitlines() if not line.startswith("#")]
    assert settings == [
        line.split("  # inferred")[0]
        for line in first.stdout.splitlines()
        if not line.startswith("#")
    ]


# --------------------------------------------------------------------------- the demo


def test_runs_after_the_demo_lists_the_demo_run_and_replay_finds_it(tmp_path: Path) -> None:
    shell = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}  # no CONSENSUS_HOME
    demo = run_consensus(["demo", "--into", str(tmp_path / "tour")], cwd=tmp_path, env=shell)
    assert demo.returncode == 0, demo.stderr
    assert "CONSENSUS_HOME=" not in demo.stderr  # nothing to copy
    runs = run_consensus(["runs"], cwd=tmp_path, env=shell)
    listed = [line for line in runs.stdout.splitlines() if "consensus demo" in line]
    assert len(listed) == 1 and " done " in listed[0], runs.stdout
    run_id = listed[0].split()[0]
    replay = run_consensus(["replay", run_id], cwd=tmp_path, env=shell)
    assert replay.returncode == 0, replay.stderr
    assert "SQL injection" in replay.stdout


# --------------------------------------------------------------------------- unknown models


def test_unknown_models_are_refused_while_planning(shop: Path) -> None:
    models = "gpt-9-imaginary,foobar/claude-nonexistent"
    done = consensus(shop, "review", "--dry-run", "--models", models, OPENAI_API_KEY="x")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unknown models: gpt-9-imaginary: litellm does not know the model" in done.stderr
    assert "foobar/claude-nonexistent: 'foobar' is not a provider litellm knows" in done.stderr
    assert "fix: write the model as PROVIDER/NAME" in done.stderr
    assert done.stdout == ""  # nothing planned


def test_doctor_names_an_unknown_model_with_a_fix_and_no_family(shop: Path) -> None:
    models = "gpt-9-imaginary,foobar/claude-nonexistent"
    done = consensus(shop, "doctor", "--models", models, OPENAI_API_KEY="x")
    assert done.returncode == 3
    assert "FAIL foobar/claude-nonexistent: unknown model: 'foobar' is not a provider" in (
        done.stdout
    )
    assert "family anthropic" not in done.stdout
    assert done.stdout.count("fix: write the model as PROVIDER/NAME") == 2
    assert "Huggingface" not in done.stdout and "LLM Provider NOT provided" not in done.stdout


def test_a_model_the_server_does_not_have_fails_once_with_advice_to_correct_it(
    shop: Path,
) -> None:
    with FakeProviderServer(Script()) as server:  # it serves no model at all: 404 for each
        config = shop.parent / "c.yml"
        config.write_text(
            "providers:\n"
            "  - model: openai/gpt-nonexistent\n"
            f"    api_base: '{server.url}/v1'\n    api_key_env: K\n    max_concurrency: 1\n"
            "  - model: anthropic/claude-nonexistent\n"
            f"    api_base: '{server.url}'\n    api_key_env: K\n    max_concurrency: 1\n"
        )
        done = consensus(shop, "review", "--base", "main", "--config", str(config), K="sk-x")
        sent = {
            m: len(server.log.requests_for(m)) for m in ("gpt-nonexistent", "claude-nonexistent")
        }
    assert done.returncode == 3
    assert "the server has no model 'gpt-nonexistent'" in done.stdout
    assert "Run again when the providers answer" not in done.stdout + done.stderr
    assert "Running again as it is fails the same way" in done.stdout
    # one call each, one at a time: the first answer says no later call can succeed
    assert sent == {"gpt-nonexistent": 1, "claude-nonexistent": 1}


# --------------------------------------------------------------------------- nothing answered


@pytest.fixture
def unanswered(shop: Path) -> tuple[Path, Ran]:
    """A review where no provider answers (the server has none of the models)."""
    with FakeProviderServer(Script()) as server:
        config = shop.parent / "c.yml"
        config.write_text(
            "providers:\n"
            f"  - {{model: openai/gpt-gone, api_base: '{server.url}/v1', api_key_env: K}}\n"
            f"  - {{model: anthropic/claude-gone, api_base: '{server.url}', api_key_env: K}}\n"
            "personas: [correctness]\n"
        )
        done = consensus(shop, "review", "--base", "main", "--config", str(config), K="sk-x")
    return shop, done


def test_a_review_where_nothing_answered_says_each_thing_once(
    unanswered: tuple[Path, Ran],
) -> None:
    _, done = unanswered
    said = done.stdout + done.stderr
    assert done.returncode == 3
    assert said.count("ADVISORY ONLY") == 1, said
    assert said.count("Incomplete: ") == 1, said


def test_runs_lists_a_run_where_nothing_answered_as_incomplete(
    unanswered: tuple[Path, Ran],
) -> None:
    shop, _ = unanswered
    runs = consensus(shop, "runs")
    [row] = [line for line in runs.stdout.splitlines() if "shop:" in line]
    assert " incomplete " in row and " done " not in row
    assert row.endswith("shop: main...working tree")  # the base named, not "default base"
    header = runs.stdout.splitlines()[0]
    assert row.index("$") == header.index("COST") + len("COST") - len("$0.0000")  # aligned


def test_the_html_report_counts_calls_as_its_table_does(unanswered: tuple[Path, Ran]) -> None:
    shop, done = unanswered
    run_id = re.search(r"run (\w+) \(journal", done.stderr).group(1)  # type: ignore[union-attr]
    page = shop.parent / "run.html"
    consensus(shop, "report", run_id, "--html", str(page))
    html = page.read_text()
    sent = re.search(r"(\d+) sent \((\d+) failed\)", html)
    assert sent is not None
    rows = re.findall(r"<td class='num'>(\d+)</td><td class='num'>(\d+)</td>", html)
    assert sum(int(calls) for calls, _ in rows) == int(sent.group(1))
    assert sum(int(failed) for _, failed in rows) == int(sent.group(2))
    assert "no model answered the review, so there was nothing to verify" in html


# --------------------------------------------------------------------------- words

RETIRED = [
    "in summary ·",  # the count of findings listed, not posted: "summary only"
    "in this summary only",
    "kept out of the review",
    "rejected by verification)",
    "not a clean bill",
    " of 4 providers (",  # agreement counts families
    "(no answer)",
]


def test_the_cli_and_the_pr_say_the_same_things_with_the_glossarys_words(
    tmp_path: Path,
) -> None:
    shell = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    into = tmp_path / "tour"
    done = run_consensus(["demo", "--github", "--into", str(into)], cwd=tmp_path, env=shell)
    assert done.returncode == 0, done.stderr
    page = (into / "github" / "pull-request.html").read_text()
    step = (into / "github" / "step-summary.md").read_text()
    for text in (done.stdout, page, step):
        assert [word for word in RETIRED if word in text] == []
    counted = "1 summary only"
    assert counted in done.stdout and counted in page and counted in step
    glossary = (ROOT / "docs" / "glossary.md").read_text()
    for word in ("provider", "family", "judge", "summary only", "rejected", "carried", "advisory"):
        assert f"**{word}**" in glossary
