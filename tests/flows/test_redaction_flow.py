"""No prompt of any kind carries a secret: every flow's model calls leave through the
Services' RedactingClient, built as app/wiring.py builds it.

A reviewer's finding quotes an AWS access key id and a value of the repository's own
`redact:` pattern. That finding then travels: to the verifiers, to the "same problem?"
question, into the PR's state (whence `/consensus verify` and the conversation read it),
to the bench's judge; a labelled claim for calibration carries both too. The fake provider
records what it is sent: every kind of prompt must have been asked, with the values
replaced where they were, and none may hold either value.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from pathlib import Path

import pytest

from consensus.app.bench.judge_rates import calibrate, prepared
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.review import review_pull_request
from consensus.app.talk.commands import handle_comment
from consensus.app.talk.reply_event import answer_on_pull
from consensus.ingest.redact import redact_text
from consensus.model.events import IssueCommentEvent
from consensus.model.labels import LabelledClaim
from consensus.ports import CompletionRequest
from consensus.publish.state import decode_state
from consensus.publish.thread import ACTIONS
from consensus.settings.config import Settings
from consensus.testing import FakeModelClient
from tests.flows.flows_world import CONFIG, FINDING, MAINTAINER, NUMBER, PATCH, World
from tests.flows.test_flows_bench import bench

PATTERN = "acme-internal-[a-z0-9]{8}"
SAME_PROMPT = "comparing two findings"  # the "same problem?" system prompt's words
# The two judges as a calibration measured them: with two families, each claim has one
# judge, and one confirmation of a judge nothing is known of verifies nothing; the
# conversation below answers a reply to the posted finding.
JUDGE = "{confirmed_real: 95, missed_real: 5, refuted_false: 95, confirmed_false: 5}"
JUDGES = f"""\
calibration:
  families:
    openai: {{judge: {JUDGE}}}
    anthropic: {{judge: {JUDGE}}}
"""


def planted() -> tuple[str, str]:
    """An AWS access key id and a value only the repository's pattern knows, random."""
    rng = random.Random()
    aws = "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    own = "acme-internal-" + "".join(rng.choice(string.ascii_lowercase) for _ in range(8))
    return aws, own


def kind(request: CompletionRequest) -> str:
    if request.schema_name == "reply" and SAME_PROMPT in request.messages[0].content:
        return "same problem?"
    return request.schema_name


def panel(aws: str, own: str) -> FakeModelClient:
    """gpt reports the injection quoting both values, claude another problem on the same
    line (a "same problem?" question, answered: two problems, so each is verified);
    verifiers confirm; the judge matches; a question in the conversation is answered."""
    leaky = {**FINDING, "body": f"The query is built from user_id; CI holds {aws} and {own}."}
    other = {**FINDING, "title": "Lookups return other users' rows", "category": "bug",
             "body": f"A crafted id ({own}) returns rows it should not."}  # fmt: skip

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            return json.dumps({"verdict": "confirmed", "reason": "the code shows it"})
        if request.schema_name == "judgement":
            return json.dumps({"verdict": "match", "golden": 1, "reason": "the same injection"})
        if request.schema_name == "converse":
            return json.dumps(
                {"kind": "question", "stands": True, "answer": "user_id reaches SQL."}
            )
        if kind(request) == "same problem?":
            return json.dumps({"verdict": "different", "reason": "two defects"})
        return json.dumps({"findings": [leaky if "gpt" in request.model else other]})

    return FakeModelClient(by_request=answer)


@pytest.fixture
def values() -> tuple[str, str]:
    aws, own = planted()
    assert redact_text(own)[0] == own  # only the repository's pattern makes it a secret
    return aws, own


@pytest.fixture
def reviewed(tmp_path: Path, values: tuple[str, str]) -> World:
    """The PR reviewed by the Action, its base branch's `redact:` naming the pattern."""
    world = World(tmp_path, models=panel(*values))
    pull = world.host.pulls[NUMBER]
    pull.base_files[".consensus.yml"] = CONFIG + f"redact: ['{PATTERN}']\n" + JUDGES
    review_pull_request(world.services(), world.step(), NUMBER, event="pull_request",
                        carry=True, identity=ACTIONS)  # fmt: skip
    return world


def holds_no_planted_value(calls: list[CompletionRequest], values: tuple[str, str]) -> set[str]:
    """The kinds of prompt in `calls`, once each is seen to hold neither value; and the
    kinds where the values were replaced (so they were there to be found)."""
    for request in calls:
        sent = request.model_dump_json()
        for value in values:
            assert value not in sent, kind(request)
    return {kind(c) for c in calls}


def replaced(calls: list[CompletionRequest], placeholder: str) -> set[str]:
    return {kind(c) for c in calls if f"«redacted:{placeholder}»" in c.model_dump_json()}


def test_the_review_same_problem_and_verification_prompts_carry_no_planted_key(
    reviewed: World, values: tuple[str, str]
) -> None:
    calls = reviewed.models.calls
    assert holds_no_planted_value(calls, values) == {"review", "same problem?", "verdict"}
    assert replaced(calls, "aws-access-key") == {"same problem?", "verdict"}
    assert replaced(calls, "custom") == {"same problem?", "verdict"}


def test_slash_verify_asks_about_the_recorded_finding_without_its_keys(
    reviewed: World, values: tuple[str, str]
) -> None:
    before = len(reviewed.models.calls)
    state = decode_state(reviewed.summary())
    assert state is not None
    [leaky] = [r.id for r in state.records if r.title.startswith("SQL injection")]
    command = f"/consensus verify {leaky}"
    said = reviewed.host.seed_comment(NUMBER, command, author=MAINTAINER)
    event = {"action": "created", "issue": {"number": NUMBER, "pull_request": {"url": "…"}},
             "comment": {"id": said, "body": command,
                         "user": {"login": MAINTAINER, "type": "User"}}}  # fmt: skip
    handle_comment(reviewed.services(), reviewed.step(), IssueCommentEvent.model_validate(event))
    calls = reviewed.models.calls[before:]
    assert holds_no_planted_value(calls, values) == {"verdict"}
    assert replaced(calls, "aws-access-key") == replaced(calls, "custom") == {"verdict"}


def test_the_conversation_quotes_the_finding_without_its_keys(
    reviewed: World, values: tuple[str, str]
) -> None:
    before = len(reviewed.models.calls)
    [ours] = [c for c in reviewed.host.review_comment_list if "SQL injection" in c.body]
    asked = reviewed.host.seed_reply(ours.id, "Why is this a problem?", author="randall")
    context = PullContext.open(reviewed.services(), reviewed.step(), NUMBER, ACTIONS)
    answer_on_pull(context, only=asked)
    calls = reviewed.models.calls[before:]
    assert holds_no_planted_value(calls, values) == {"converse"}
    assert replaced(calls, "aws-access-key") == replaced(calls, "custom") == {"converse"}


LABELLED_DIFF = (
    "diff --git a/src/app/db.py b/src/app/db.py\n--- a/src/app/db.py\n+++ b/src/app/db.py\n"
    + PATCH
    + "\n"
)


def test_calibration_asks_about_a_labelled_claim_without_its_keys(
    tmp_path: Path, values: tuple[str, str]
) -> None:
    aws, own = values
    world = World(tmp_path, models=panel(*values))
    settings = Settings.model_validate(
        {"providers": [{"model": "openai/gpt-5.1"}], "redact": [PATTERN]}
    )
    body = f"It quotes {aws} and {own}."
    label = LabelledClaim(id="L1", diff=LABELLED_DIFF, path="src/app/db.py", line=11,
                          real=True, title="SQL injection", body=body)  # fmt: skip
    labelled = prepared([label], settings, "labels.jsonl")
    asyncio.run(calibrate(labelled, settings.providers, settings, world.services()))
    calls = world.models.calls
    assert holds_no_planted_value(calls, values) == {"verdict"}
    assert replaced(calls, "aws-access-key") == replaced(calls, "custom") == {"verdict"}


def test_the_bench_judge_is_shown_the_findings_without_their_keys(
    tmp_path: Path, values: tuple[str, str]
) -> None:
    world = World(tmp_path, models=panel(*values))
    outcome = bench(world, redact=(PATTERN,))
    assert {j.verdict for j in outcome.result.judgements} == {"match"}
    calls = world.models.calls
    assert "judgement" in holds_no_planted_value(calls, values)
    assert "judgement" in replaced(calls, "aws-access-key") & replaced(calls, "custom")
