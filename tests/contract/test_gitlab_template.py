"""The GitLab CI template runs the job GitLab's pipelines call it for, with the token
variable and the command consensus reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from consensus.settings.gitlab_job import MERGE_REQUEST_EVENT, TOKEN_VARIABLE, TRIGGER

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "gitlab" / "consensus.gitlab-ci.yml"


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    return loaded


def test_the_review_runs_in_merge_request_pipelines_only() -> None:
    job = template()["consensus-review"]
    assert job["rules"] == [{"if": f'$CI_PIPELINE_SOURCE == "{MERGE_REQUEST_EVENT}"'}]
    assert job["extends"] == ".consensus"


def test_commands_run_in_pipelines_a_trigger_started_with_a_payload() -> None:
    job = template()["consensus-command"]
    assert job["rules"] == [{"if": f'$CI_PIPELINE_SOURCE == "{TRIGGER}" && $TRIGGER_PAYLOAD'}]


def test_the_job_installs_a_pinned_release_and_checks_out_nothing() -> None:
    base = template()[".consensus"]
    assert base["variables"]["GIT_STRATEGY"] == "none"
    assert any('"consensus-review==${CONSENSUS_VERSION}"' in line for line in base["before_script"])
    assert base["script"] == ["consensus gitlab"]


def test_the_template_names_the_token_variable_consensus_reads() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    assert (
        f"{TOKEN_VARIABLE}   a project (or group) access token: role Developer, scope `api`" in text
    )
