"""End to end: the real `consensus review` CLI runs real ruff on a real git repository's
change and reads a SARIF file CodeQL's own test data holds, beside models that speak the
OpenAI API over real HTTP on 127.0.0.1.

ruff's F821 on a planted undefined name and one model's finding at that line are one
finding that names both ("also reported by ruff F821"); a logic bug ruff cannot see is
posted on the models' agreement alone; an unused import the base already had is not the
change's. CodeQL's result on a line the change added is kept and, as CodeQL posts with a
model's agreement, listed unposted; its result on a file the change does not touch is
filtered out, and the report says so."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus.adapters.repository_analyzers import find_tool
from consensus_sim.provider_server import FakeProviderServer, Script
from fakes.inprocess import run_consensus
from tests.e2e.cart_typo import AFTER, BEFORE, CART, MODELS, SLIP, TYPO, git, responder

ROOT = Path(__file__).resolve().parents[2]
SARIF = ROOT / "tests" / "data" / "sarif" / "codeql-fingerprinting.sarif"
# codeql-action's src/testdata files, which the SARIF's results are on
TEST_FILE_1 = "var a = 0;\nvar b = 0;\nvar c = 0;\nvar d = 0;\n"
TEST_FILE_2 = "var foo = 0;\nvar bar = 0;\nvar baz = 0;\nvar qux = 0;\n"

pytestmark = pytest.mark.skipif(find_tool("ruff") is None, reason="ruff is a test dependency")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    script = Script()
    for model in MODELS:
        script.respond(model, responder(model))
    with FakeProviderServer(script) as fake:
        yield fake


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / CART).write_text(BEFORE)
    (repo / "testFile1.js").write_text(TEST_FILE_1)
    (repo / "testFile2.js").write_text(TEST_FILE_2)
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F"]\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / CART).write_text(AFTER)
    (repo / "testFile2.js").write_text(TEST_FILE_2.replace("var bar = 0;", "var bar = 1;"))
    git(repo, "commit", "-q", "-am", "count quantities, give discounts, start bar at 1")
    return repo


def review(repo: Path, url: str) -> dict[str, Any]:
    config = repo.parent / "consensus.yml"
    providers = "".join(
        f"  - model: openai/{m}\n    api_base: {url}/v1\n    api_key_env: FAKE_OPENAI_KEY\n"
        f"    family: {m[:-5]}\n"
        for m in MODELS
    )
    config.write_text(
        f"providers:\n{providers}personas: [correctness]\nanalyzers: [ruff]\n"
        "budget: {max_cost_usd: 1.0, max_tokens: 400000}\n"
    )
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.parent),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FAKE_OPENAI_KEY": "sk-fake-openai",
        "PYTHONPATH": str(ROOT),
    }
    args = ["review", "--base", "main", "--config", str(config), "--format", "json"]
    done = run_consensus([*args, "--sarif", str(SARIF)], cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_real_ruff_and_a_model_at_one_line_are_one_finding_naming_both(
    repo: Path, server: FakeProviderServer
) -> None:
    report = review(repo, server.url)
    at_typo = [f for f in report["findings"] if f["path"] == CART and f["line"] == TYPO]
    [typo] = at_typo  # ruff's result and the model's words: one finding
    assert typo["status"] == "consensus"
    assert "also reported by ruff F821" in typo["reason"]
    families = {m["family"]: m for m in typo["members"]}
    assert set(families) == {"gpt", "ruff"}
    assert families["ruff"]["source"] == "analyzer" and families["ruff"]["rule"] == "F821"
    [slip] = [f for f in report["findings"] if f["line"] == SLIP]  # the bug ruff cannot see
    assert slip["status"] == "consensus"
    assert all(m["family"] != "ruff" for m in slip["members"])
    # `import os` is unused on both sides: ruff's F401 is the base's, not the change's
    assert not [f for f in report["findings"] if "F401" in f["title"]]


def test_codeqls_sarif_is_read_and_filtered_to_the_diff(
    repo: Path, server: FakeProviderServer
) -> None:
    report = review(repo, server.url)
    [codeql] = [f for f in report["findings"] if f["path"] == "testFile2.js"]
    assert codeql["line"] == 2 and codeql["title"].startswith("js/unused-local-variable")
    assert codeql["status"] == "unverified"  # CodeQL alone: it posts with a model's agreement
    assert "reported by codeql only" in codeql["reason"]
    assert not [f for f in report["findings"] if f["path"] == "testFile1.js"]
    notes = " ".join(report["notes"])
    assert "codeql: 1 of 2 results kept (added): 1 outside the reviewed files" in notes
