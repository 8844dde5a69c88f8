"""The GitLab CI template runs the job GitLab's pipelines call it for, with the token
variable and the command consensus reads, and installs consensus from one pinned commit of
the user's copy of this repository (consensus is not published on PyPI)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from consensus.settings.gitlab_job import MERGE_REQUEST_EVENT, TOKEN_VARIABLE, TRIGGER

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "gitlab" / "consensus.gitlab-ci.yml"
COMMIT = "4e1d9a0c7b2f5e8d3a6c9b1f4e7d0a3c6b9f2e5d"


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    return loaded


def test_the_review_runs_in_merge_request_pipelines_only() -> None:
    job = template()["consensus-review"]
    assert job["rules"] == [{"if": f'$CI_PIPELINE_SOURCE == "{MERGE_REQUEST_EVENT}"'}]
    assert job["extends"] == ".consensus" and job["interruptible"] is True


def test_commands_run_in_pipelines_a_trigger_started_with_a_payload() -> None:
    job = template()["consensus-command"]
    assert job["rules"] == [{"if": f'$CI_PIPELINE_SOURCE == "{TRIGGER}" && $TRIGGER_PAYLOAD'}]
    assert job["interruptible"] is False  # a later pipeline never cancels an answer


def test_the_job_checks_nothing_out_and_keeps_the_report() -> None:
    base = template()[".consensus"]
    assert base["variables"]["GIT_STRATEGY"] == "none"
    assert base["script"] == ["consensus gitlab"]
    assert base["artifacts"]["paths"] == ["consensus-report.json"]


def test_consensus_is_installed_from_the_pinned_commit_of_the_users_copy() -> None:
    [_, install] = template()[".consensus"]["before_script"]
    assert "consensus-review==" not in TEMPLATE.read_text()  # not on PyPI
    assert '-c "${CONSENSUS_REPOSITORY}/raw/${CONSENSUS_COMMIT}/constraints.txt"' in install
    # with ruff, the built-in analyzer `analyzers: [ruff]` runs (docs/analyzers.md)
    wheel = (
        '"consensus-review[analyzers] @ ${CONSENSUS_REPOSITORY}/archive/${CONSENSUS_COMMIT}.tar.gz"'
    )
    assert wheel in install
    assert (ROOT / "constraints.txt").is_file()  # what the -c URL reads, at that commit


def test_the_include_line_is_pinned_to_the_same_commit_and_names_this_file() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    [include] = re.findall(r'- remote: "([^"]+)"', text)
    assert include.endswith("/<owner>/consensus/<sha>/examples/gitlab/consensus.gitlab-ci.yml")
    assert 'CONSENSUS_COMMIT: "<sha>"' in text and '/<owner>/consensus"' in text
    assert f"{TOKEN_VARIABLE}   a project (or group) access token: role Developer, scope `api`" in (
        text
    )


@pytest.mark.parametrize(
    ("repository", "commit", "passes"),
    [
        ("", "", False),  # the template's own empty values: the user set nothing
        ("https://github.com/acme/consensus", "<sha>", False),  # the placeholder left in
        ("https://github.com/acme/consensus", COMMIT[:12], False),  # a short commit
        ("", COMMIT, False),
        ("https://github.com/acme/consensus", COMMIT, True),
    ],
)
def test_a_job_without_a_pinned_commit_stops_before_installing_anything(
    repository: str, commit: str, passes: bool
) -> None:
    [guard, _] = template()[".consensus"]["before_script"]
    env = {"PATH": "/usr/bin:/bin", "CONSENSUS_REPOSITORY": repository, "CONSENSUS_COMMIT": commit}
    done = subprocess.run(["sh", "-c", guard], env=env, capture_output=True, text=True, check=False)
    assert (done.returncode == 0) is passes
    if not passes:
        assert done.returncode == 2 and "full 40-character commit" in done.stdout
