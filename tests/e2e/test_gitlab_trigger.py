"""A comment reaches a GitLab job as GitLab delivers it: the comments webhook posts the note
hook to the pipeline trigger URL, the triggered pipeline carries it as TRIGGER_PAYLOAD,
and the job reads it back into the typed event."""

from __future__ import annotations

import json
from pathlib import Path

import requests

from consensus.model.gitlab_events import MergeRequestHook, NoteHook
from consensus.settings.gitlab_job import read_trigger_payload
from consensus_sim.gitlab import DEVELOPER, FakeGitLab
from consensus_sim.gitlab.hooks import merge_request_hook, note_hook

BASE = {"app/tax.py": "RATE = 0.2\n"}
HEAD = {"app/tax.py": "RATE = 0.21\n"}


def arranged(server: FakeGitLab) -> None:
    server.project("acme/service", ident=7)
    server.add_member("acme/service", "maria", DEVELOPER)
    server.add_merge_request("acme/service", 4, base=BASE, head=HEAD, title="Tax rate")


def test_a_comment_command_arrives_as_the_trigger_payload(tmp_path: Path) -> None:
    with FakeGitLab() as server:
        arranged(server)
        note = server.add_note("acme/service", 4, "/consensus verify F2", "maria")
        project = server.project("acme/service")
        url = f"{server.api_url}/projects/7/ref/main/trigger/pipeline"
        answer = requests.post(
            url,
            params={"token": project.trigger_token},
            json=note_hook(server, "acme/service", 4, note),
            timeout=10,
        )
        assert answer.status_code == 201 and answer.json()["source"] == "trigger"
        payload = tmp_path / "TRIGGER_PAYLOAD"
        payload.write_text(json.dumps(project.pipelines[-1]["_payload"]))
        event = read_trigger_payload(payload)
        assert isinstance(event, NoteHook) and event.on_merge_request
        assert event.object_attributes.note == "/consensus verify F2"
        assert event.object_attributes.id == note["id"] and event.user.username == "maria"
        assert event.merge_request is not None and event.merge_request.iid == 4
        assert event.merge_request.last_commit.id == project.merge_requests[4].latest.head_sha


def test_a_trigger_called_without_its_token_starts_nothing() -> None:
    with FakeGitLab() as server:
        arranged(server)
        url = f"{server.api_url}/projects/7/ref/main/trigger/pipeline"
        answer = requests.post(url, params={"token": "glptt-guessed"}, json={}, timeout=10)
        assert answer.status_code == 404 and server.project("acme/service").pipelines == []


def test_a_push_makes_a_merge_request_hook_naming_the_old_head(tmp_path: Path) -> None:
    with FakeGitLab() as server:
        arranged(server)
        first = server.project("acme/service").merge_requests[4].latest.head_sha
        server.push("acme/service", 4, {"app/tax.py": "RATE = 0.22\n"})
        payload = tmp_path / "payload.json"
        payload.write_text(json.dumps(merge_request_hook(server, "acme/service", 4, "update")))
        event = read_trigger_payload(payload)
        assert isinstance(event, MergeRequestHook)
        assert (event.object_attributes.action, event.object_attributes.oldrev) == ("update", first)
