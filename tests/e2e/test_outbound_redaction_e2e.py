"""End to end: a secret a model writes never reaches GitLab. `consensus gitlab` runs as a
merge request pipeline's job, with the client app/wiring.py builds, against the loopback
GitLab and providers; every reviewer's finding quotes an AWS access key id, a GitHub token
and the value of the job's own provider key variable (`FAKE_OPENAI_KEY`, a secret by its
name, in no vendor's format), and the verifiers' reasons quote them again. The merge
request's discussions and summary note, and the job's JSON report, show the markers."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus_sim.gitlab import FakeGitLab
from consensus_sim.provider_server import FakeProviderServer, Script, Step, prompt_text, reply
from tests.e2e.gitlab_world import MODELS, VERIFIER, World, finding

RNG = random.Random()
AWS = "AKIA" + "".join(RNG.choice(string.ascii_uppercase + string.digits) for _ in range(16))
GITHUB = "ghp_" + "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
KEYS = (AWS, GITHUB)


def leaky(model: str) -> Any:
    """Every model reports the uncapped discount quoting the keys and the job's own
    provider key (`own`); every verifier confirms it, quoting them again."""

    def answer(body: dict[str, Any]) -> Step:
        prompt = prompt_text(body)
        own = "sk-fake-openai-secret"  # World.env's FAKE_OPENAI_KEY
        if VERIFIER in prompt:
            reason = f"confirmed: the CI log prints {GITHUB} and {own}"
            return reply(json.dumps({"verdict": "confirmed", "reason": reason}))
        if "def subtotal" not in prompt:
            return reply(json.dumps({"findings": []}))
        title = f"Discount rate is never capped ({AWS})"
        found = finding(18, 19, title, body=f"The test token {GITHUB} and key {own} leak.")
        return reply(json.dumps({"findings": [found]}))

    return answer


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, leaky(model))
    with FakeGitLab() as gitlab, FakeProviderServer(script) as providers:
        yield World(tmp_path, gitlab, providers)


def test_no_discussion_note_or_report_of_a_gitlab_job_holds_a_secret_a_model_wrote(
    world: World,
) -> None:
    world.open()
    job = world.review()
    assert job.code == 0, job.log
    own = world.env()["FAKE_OPENAI_KEY"]
    notes = [n["body"] for d in world.discussions() for n in d["notes"]]
    assert any("Discount rate is never capped" in note for note in notes), notes
    report = (world.tmp / "consensus-report.json").read_text(encoding="utf-8")
    for text in (*notes, report):
        for value in (*KEYS, own):
            assert value not in text
    posted = "\n".join(notes)
    for kind in ("aws-access-key", "github-token", "secret"):
        assert f"«redacted:{kind}»" in posted, kind
