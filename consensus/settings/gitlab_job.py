"""A GitLab CI job's environment, as one typed object, and the trigger payload it may carry.

GitLab's runner sets the predefined variables (`CI_API_V4_URL`, `CI_SERVER_URL`,
`CI_PROJECT_ID`, `CI_PIPELINE_SOURCE`, and in a merge request pipeline
`CI_MERGE_REQUEST_IID`, `CI_MERGE_REQUEST_PROJECT_ID` (the project the merge request is
in: the target's, also when a fork's pipeline runs in the fork),
`CI_MERGE_REQUEST_SOURCE_PROJECT_ID`, `CI_MERGE_REQUEST_DIFF_BASE_SHA`,
`CI_MERGE_REQUEST_TARGET_BRANCH_NAME`, and the head the pipeline runs for:
`CI_COMMIT_SHA`, or `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` in a merged results pipeline,
whose `CI_COMMIT_SHA` is a merge commit); a pipeline started by a trigger that a webhook
called gets the webhook's body as `TRIGGER_PAYLOAD`, a file variable: its value is the
path of a file holding the event. Each is read once here; a missing or malformed one is
a UsageError naming the variable and what to do. The payload is untrusted
(model/gitlab_events.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from consensus.errors import UsageError
from consensus.model.gitlab_events import MergeRequestHook, NoteHook
from consensus.settings.event_file import event_payload, read_event_file
from consensus.settings.strict import Strict

TOKEN_VARIABLE = "CONSENSUS_GITLAB_TOKEN"  # the masked CI/CD variable holding the token
MERGE_REQUEST_EVENT = "merge_request_event"
TRIGGER = "trigger"
_URL = re.compile(r"^https?://[^\s/]+(?:/[^\s]*)?$")
NOT_IN_CI = "run it as a GitLab CI job (see docs/gitlab.md); locally, use `consensus review`"


class GitLabJob(Strict):
    """What a GitLab CI job knows about where it runs and what it runs for."""

    api_url: str  # CI_API_V4_URL: https://gitlab.example.com/api/v4 (a relative root kept)
    server_url: str  # CI_SERVER_URL
    project_id: str  # CI_PROJECT_ID
    project_path: str = ""  # CI_PROJECT_PATH
    pipeline_source: str  # CI_PIPELINE_SOURCE: merge_request_event, trigger, push, …
    merge_request_iid: int | None = None  # CI_MERGE_REQUEST_IID
    diff_base_sha: str = ""  # CI_MERGE_REQUEST_DIFF_BASE_SHA
    target_branch: str = ""  # CI_MERGE_REQUEST_TARGET_BRANCH_NAME
    trigger_payload: Path | None = None  # TRIGGER_PAYLOAD: the file holding the event
    # CI_MERGE_REQUEST_PROJECT_ID: the project the merge request is in ("" outside one)
    merge_request_project_id: str = ""
    source_project_id: str = ""  # CI_MERGE_REQUEST_SOURCE_PROJECT_ID: a fork's, or the same
    head_sha: str = ""  # the merge request's head this pipeline runs for ("": unknown)
    project_dir: Path = Path(".")  # CI_PROJECT_DIR: where the job's artifacts are written

    @property
    def pulls_project(self) -> str:
        """The project whose merge request the job serves: the merge request's own, else
        the pipeline's (a trigger's pipeline runs in the project the webhook called)."""
        return self.merge_request_project_id or self.project_id

    @property
    def from_fork(self) -> bool:
        """A merge request pipeline whose source branch is in another project (a fork)."""
        source, target = self.source_project_id, self.merge_request_project_id
        return bool(source and target and source != target)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitLabJob:
        """The job's variables; a UsageError naming the first one that is missing or wrong."""
        api_url = _need(env, "CI_API_V4_URL").rstrip("/")
        server_url = _need(env, "CI_SERVER_URL").rstrip("/")
        for name, value in (("CI_API_V4_URL", api_url), ("CI_SERVER_URL", server_url)):
            if not _URL.match(value):
                raise UsageError(f"{name} is not a URL: {value!r}", fix=NOT_IN_CI)
        project_id = _need(env, "CI_PROJECT_ID")
        if not project_id.isdigit():
            raise UsageError(f"CI_PROJECT_ID is not a project id: {project_id!r}", fix=NOT_IN_CI)
        source = _need(env, "CI_PIPELINE_SOURCE")
        iid_text = env.get("CI_MERGE_REQUEST_IID", "").strip()
        if iid_text and not iid_text.isdigit():
            raise UsageError(f"CI_MERGE_REQUEST_IID is not a number: {iid_text!r}", fix=NOT_IN_CI)
        if source == MERGE_REQUEST_EVENT and not iid_text:
            raise UsageError(
                "CI_MERGE_REQUEST_IID is not set in a merge request pipeline",
                fix='run the job with `rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event"`',
            )
        payload = env.get("TRIGGER_PAYLOAD", "").strip()
        if source == TRIGGER and not payload:
            raise UsageError(
                "TRIGGER_PAYLOAD is not set in a triggered pipeline",
                fix="call the trigger from a project webhook for comments (docs/gitlab.md)",
            )
        event_type = env.get("CI_MERGE_REQUEST_EVENT_TYPE", "").strip()
        head = env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", "").strip()
        if not head and event_type in ("", "detached"):  # else CI_COMMIT_SHA is a merge commit
            head = env.get("CI_COMMIT_SHA", "").strip() if iid_text else ""
        return cls(
            api_url=api_url,
            server_url=server_url,
            project_id=project_id,
            project_path=env.get("CI_PROJECT_PATH", "").strip(),
            pipeline_source=source,
            merge_request_iid=int(iid_text) if iid_text else None,
            diff_base_sha=env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", "").strip(),
            target_branch=env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "").strip(),
            trigger_payload=Path(payload) if payload else None,
            merge_request_project_id=_digits(env, "CI_MERGE_REQUEST_PROJECT_ID"),
            source_project_id=_digits(env, "CI_MERGE_REQUEST_SOURCE_PROJECT_ID"),
            head_sha=head,
            project_dir=Path(env.get("CI_PROJECT_DIR", "").strip() or "."),
        )


def read_trigger_payload(path: Path) -> MergeRequestHook | NoteHook:
    """The webhook event a triggered pipeline was started with; a UsageError naming the
    file and the field when it is not a merge request or a note hook GitLab would send."""
    data = read_event_file("TRIGGER_PAYLOAD", path)
    kind = data.get("object_kind") if isinstance(data, dict) else None
    model: type[MergeRequestHook] | type[NoteHook]
    if kind == "note":
        model = NoteHook
    elif kind == "merge_request":
        model = MergeRequestHook
    else:
        raise UsageError(
            f"TRIGGER_PAYLOAD {path}: object_kind {kind!r} is not a note or a merge request event",
            fix="point the webhook at the trigger for comments (Note events) only",
        )
    return event_payload(
        model,
        data,
        invalid=f"TRIGGER_PAYLOAD {path}: not a valid {kind} event",
        fix="the webhook must send GitLab's own payload, unchanged",
    )


def _digits(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if value and not value.isdigit():
        raise UsageError(f"{name} is not a project id: {value!r}", fix=NOT_IN_CI)
    return value


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set", fix=NOT_IN_CI)
    return value
