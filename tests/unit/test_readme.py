"""The README is a first screen and a map: what consensus is, two commands that work on a
fresh machine, one example of each face, and links that land in the documentation."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from consensus.cli.main import cli
from consensus.cli.options import SEVERITIES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_first_screen_runs_a_review_and_the_tests() -> None:
    first = "\n".join(README.splitlines()[:20])
    assert "consensus demo" in first and ".ci/run" in first
    assert "consensus-review" in first  # the distribution: `consensus` is taken on PyPI


def test_the_action_is_given_as_a_pinned_commit_with_instructions() -> None:
    uses = re.findall(r"uses: (\S+/consensus@\S+)", README)
    assert uses == ["<owner>/consensus@<sha>"]
    assert "git rev-parse HEAD" in README
    assert "@v1" not in README


def test_each_face_has_one_example() -> None:
    assert "consensus review" in README and "/consensus explain F3" in README
    assert README.count("```yaml") == 2  # the Action's workflow, GitLab's CI job


def test_the_gitlab_job_is_included_and_installed_from_the_same_pinned_commit() -> None:
    [include] = re.findall(r'- remote: "([^"]+)"', README)
    assert include.startswith("https://raw.githubusercontent.com/<owner>/consensus/<sha>/")
    assert (ROOT / include.split("/<sha>/", 1)[1]).is_file()
    assert 'CONSENSUS_COMMIT: "<sha>"' in README and "consensus-review==" not in README


def test_every_link_lands() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    missing = [t for t in targets if not t.startswith("http") and not (ROOT / t).exists()]
    assert missing == []


def test_the_commands_page_lists_every_fail_on_choice() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert f"[--fail-on {'|'.join(SEVERITIES)}]" in page


def test_help_says_the_base_is_the_default_branch() -> None:
    shown = CliRunner().invoke(cli, ["review", "--help"]).output
    assert "default branch" in " ".join(shown.split())
    assert "(default: main)" not in shown
