"""GitLab's webhook payloads and a CI job's environment, read once into typed objects;
what is missing or wrong is a UsageError naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consensus.errors import UsageError
from consensus.model.gitlab_events import MergeRequestHook, NoteHook
from consensus.settings.gitlab_job import GitLabJob, read_trigger_payload

DATA = Path(__file__).resolve().parents[1] / "data" / "gitlab"
MR_PIPELINE = {
    "CI_API_V4_URL": "https://gitlab.example.com/api/v4",
    "CI_SERVER_URL": "https://gitlab.example.com",
    "CI_PROJECT_ID": "7",
    "CI_PROJECT_PATH": "acme/service",
    "CI_PIPELINE_SOURCE": "merge_request_event",
    "CI_MERGE_REQUEST_IID": "12",
    "CI_MERGE_REQUEST_DIFF_BASE_SHA": "0b5c8d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8",
    "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
}


def test_a_note_on_a_merge_request_names_the_note_and_the_merge_request() -> None:
    hook = read_trigger_payload(DATA / "note_hook.json")
    assert isinstance(hook, NoteHook) and hook.on_merge_request
    assert hook.object_attributes.note == "/consensus explain C2"
    assert hook.object_attributes.id == 1244 and hook.merge_request is not None
    assert (hook.merge_request.iid, hook.project.id, hook.user.username) == (12, 7, "alice")
    assert hook.merge_request.last_commit.id.startswith("5d2c0e3f")


def test_a_merge_request_hook_names_the_action_the_head_and_a_fork_source() -> None:
    hook = read_trigger_payload(DATA / "merge_request_hook.json")
    assert isinstance(hook, MergeRequestHook)
    attributes = hook.object_attributes
    assert (attributes.iid, attributes.action, attributes.draft) == (12, "open", False)
    assert attributes.source_project_id != attributes.target_project_id  # a fork's MR
    assert hook.label_names == frozenset({"billing"})


def test_a_note_on_an_issue_is_not_a_merge_request_note(tmp_path: Path) -> None:
    data = json.loads((DATA / "note_hook.json").read_text())
    data["object_attributes"]["noteable_type"] = "Issue"
    data.pop("merge_request")
    data["issue"] = {"iid": 3, "title": "Broken invoice"}
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(data))
    hook = read_trigger_payload(path)
    assert isinstance(hook, NoteHook) and not hook.on_merge_request


def test_a_payload_that_is_no_gitlab_event_names_the_file_and_its_kind(tmp_path: Path) -> None:
    path = tmp_path / "payload.json"
    path.write_text(json.dumps({"object_kind": "pipeline", "object_attributes": {}}))
    with pytest.raises(UsageError, match=r"object_kind 'pipeline' is not a note"):
        read_trigger_payload(path)


def test_a_note_hook_without_its_note_id_names_the_field(tmp_path: Path) -> None:
    data = json.loads((DATA / "note_hook.json").read_text())
    del data["object_attributes"]["id"]
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UsageError, match=r"object_attributes\.id"):
        read_trigger_payload(path)


def test_an_unreadable_payload_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the event"):
        read_trigger_payload(tmp_path / "missing.json")


def test_a_merge_request_pipeline_is_read_into_one_object() -> None:
    job = GitLabJob.from_env(MR_PIPELINE)
    assert job.api_url == "https://gitlab.example.com/api/v4" and job.project_id == "7"
    assert (job.merge_request_iid, job.target_branch) == (12, "main")
    assert job.diff_base_sha.startswith("0b5c8d1e") and job.trigger_payload is None


HEAD = "4e1d9a0c7b2f5e8d3a6c9b1f4e7d0a3c6b9f2e5d"


def test_the_head_is_the_commit_sha_of_a_merge_request_pipeline() -> None:
    env = {**MR_PIPELINE, "CI_COMMIT_SHA": HEAD, "CI_MERGE_REQUEST_EVENT_TYPE": "detached"}
    assert GitLabJob.from_env(env).head_sha == HEAD


def test_a_merged_results_pipeline_s_head_is_the_source_branch_s_not_the_merge_commit() -> None:
    merged = {
        **MR_PIPELINE,
        "CI_COMMIT_SHA": "f" * 40,
        "CI_MERGE_REQUEST_EVENT_TYPE": "merged_result",
    }
    assert GitLabJob.from_env(merged).head_sha == ""  # unknown: no superseded check
    with_head = {**merged, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": HEAD}
    assert GitLabJob.from_env(with_head).head_sha == HEAD


def test_a_fork_s_pipeline_serves_the_merge_request_s_own_project() -> None:
    env = {
        **MR_PIPELINE,
        "CI_PROJECT_ID": "19",
        "CI_MERGE_REQUEST_PROJECT_ID": "7",
        "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": "19",
    }
    job = GitLabJob.from_env(env)
    assert (job.pulls_project, job.from_fork) == ("7", True)
    same = GitLabJob.from_env(
        {**env, "CI_PROJECT_ID": "7", "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": "7"}
    )
    assert (same.pulls_project, same.from_fork) == ("7", False)
    assert GitLabJob.from_env(MR_PIPELINE).pulls_project == "7"  # no variable: the pipeline's


def test_a_self_managed_instance_under_a_relative_root_keeps_its_path() -> None:
    env = {**MR_PIPELINE, "CI_API_V4_URL": "https://git.corp.example/gitlab/api/v4/"}
    assert GitLabJob.from_env(env).api_url == "https://git.corp.example/gitlab/api/v4"


def test_a_triggered_pipeline_carries_the_payload_file() -> None:
    env = {**MR_PIPELINE, "CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": "/builds/x.json"}
    del env["CI_MERGE_REQUEST_IID"]
    job = GitLabJob.from_env(env)
    assert job.trigger_payload == Path("/builds/x.json") and job.merge_request_iid is None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"CI_API_V4_URL": ""}, "CI_API_V4_URL is not set"),
        ({"CI_API_V4_URL": "gitlab.example.com/api/v4"}, "CI_API_V4_URL is not a URL"),
        ({"CI_PROJECT_ID": "acme/service"}, "CI_PROJECT_ID is not a project id"),
        ({"CI_MERGE_REQUEST_IID": ""}, "CI_MERGE_REQUEST_IID is not set in a merge request"),
        ({"CI_MERGE_REQUEST_IID": "12a"}, "CI_MERGE_REQUEST_IID is not a number"),
        ({"CI_PIPELINE_SOURCE": "trigger"}, "TRIGGER_PAYLOAD is not set"),
        (
            {"CI_MERGE_REQUEST_PROJECT_ID": "acme"},
            "CI_MERGE_REQUEST_PROJECT_ID is not a project id",
        ),
    ],
)
def test_a_missing_or_wrong_variable_is_named_with_a_fix(
    change: dict[str, str], named: str
) -> None:
    with pytest.raises(UsageError, match=named) as caught:
        GitLabJob.from_env({**MR_PIPELINE, **change})
    assert caught.value.fix
