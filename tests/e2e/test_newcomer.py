"""What a newcomer meets on a fresh machine, command by command, as the README gives them:
the dry run with one key, unknown models, `consensus config` saved as `.consensus.yml`,
`consensus runs` after the demo. Each test names what the first user tripped over."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from consensus.app.demo import write_repository
from fakes.inprocess import Ran, run_consensus


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
    assert first.startswith("ADVISORY: 1 provider family would review (openai)")
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
