"""No secret a model writes leaves the run: every reply is redacted as it arrives, before the
journal records it and before anything parses it, so each output made of it holds the
marker where the secret was.

The reviewers' finding quotes, in its title, body and suggestion, an AWS access key id, a
GitHub token, a value only the repository's `redact:` pattern knows and the value of a
token in the run's environment; the judges' reasons quote them again. None of the four
values may reach the inline comments, the review's body, the summary comment, a slash
command's answer, the step summary, the JSON, SARIF, Markdown, text and HTML reports, the
bench's files or the journal; each output shows `«redacted:…»` instead, and a replay of the
journal decides what the run decided.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import string
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from consensus.adapters.journal import Journal
from consensus.app.bench.bench import write_outputs
from consensus.app.journaled import replay_run
from consensus.app.pull.review import review_pull_request
from consensus.app.run_page import html_report
from consensus.app.services import ActionsRunner, ActionStep
from consensus.app.talk.commands import handle_comment
from consensus.model.events import IssueCommentEvent
from consensus.model.report import Report
from consensus.ports import CompletionRequest
from consensus.publish.state import decode_state
from consensus.publish.thread import ACTIONS
from consensus.render import FORMATS, render
from consensus.settings.action_inputs import ActionInputs
from consensus.testing import FakeModelClient
from tests.flows.flows_world import CONFIG, FINDING, MAINTAINER, NUMBER, Counter, World
from tests.flows.test_flows_bench import bench
from tests.flows.test_redaction_flow import JUDGES, PATTERN

FIXED = '    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))'
MARKER = "redacted:"  # of `«redacted:KIND»`, which JSON writes `\u00abredacted:KIND\u00bb`


@dataclass(frozen=True)
class Planted:
    """Four secrets in the shapes a leak takes, random for each test."""

    aws: str  # an AWS access key id: the built-in rules know it
    github: str  # a classic GitHub token: the built-in rules know it
    own: str  # only the repository's `redact:` pattern knows it
    token: str  # a value of the run's environment, a secret by its variable's name

    @property
    def values(self) -> tuple[str, str, str, str]:
        return (self.aws, self.github, self.own, self.token)

    def absent_from(self, text: str) -> bool:
        return not any(value in text for value in self.values)


def planted() -> Planted:
    rng = random.Random()

    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    upper, lower = string.ascii_uppercase + string.digits, string.ascii_lowercase
    return Planted(
        aws="AKIA" + pick(upper, 16),
        github="ghp_" + pick(string.ascii_letters + string.digits, 36),
        own="acme-internal-" + pick(lower, 8),
        token="stagingdeploy" + pick(lower, 8),
    )


def panel(secret: Planted) -> FakeModelClient:
    """gpt reports the injection quoting every value (title, body, suggestion), claude
    nothing; claude, the one family that did not report it, judges it, quoting them again;
    the bench's judge matches it."""
    finding = {
        **FINDING,
        "title": f"SQL injection via f-string query (CI token {secret.github})",
        "body": f"user_id reaches SQL. The fixture holds {secret.aws}, {secret.own} "
        f"and {secret.token}.",
        "suggestion": f"{FIXED}  # {secret.aws}",
    }

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            reason = f"confirmed: the log shows {secret.github} and {secret.token}"
            return json.dumps({"verdict": "confirmed", "reason": reason})
        if request.schema_name == "judgement":
            reason = f"the same injection ({secret.aws}, {secret.own})"
            return json.dumps({"verdict": "match", "golden": 1, "reason": reason})
        return json.dumps({"findings": [finding] if "gpt" in request.model else []})

    return FakeModelClient(by_request=answer)


@pytest.fixture
def secret() -> Planted:
    return planted()


def world_of(tmp_path: Path, secret: Planted) -> World:
    world = World(tmp_path, models=panel(secret))
    world.keys["DEPLOY_TOKEN"] = secret.token
    pull = world.host.pulls[NUMBER]
    pull.base_files[".consensus.yml"] = CONFIG + f"redact: ['{PATTERN}']\n" + JUDGES
    return world


def step_with_files(world: World) -> ActionStep:
    """The Action's step, with GitHub's step summary file and a SARIF file asked for."""
    (world.tmp / "outputs").touch()
    runner = ActionsRunner(
        workspace=world.tmp,
        temp=world.tmp,
        outputs=str(world.tmp / "outputs"),
        step_summary=str(world.tmp / "step-summary.md"),
    )
    return ActionStep(ActionInputs(sarif=str(world.tmp / "consensus.sarif")), runner)


@pytest.fixture
def reviewed(tmp_path: Path, secret: Planted) -> World:
    world = world_of(tmp_path, secret)
    review_pull_request(world.services(), step_with_files(world), NUMBER,
                        event="pull_request", carry=True, identity=ACTIONS)  # fmt: skip
    assert world.host.review_comment_list, world.lines  # the finding was posted inline
    return world


def run_id(world: World) -> str:
    written = (world.tmp / "consensus-report.json").read_text(encoding="utf-8")
    return str(json.loads(written)["run_id"])


def test_inline_comments_the_review_and_the_summary_show_the_marker_not_the_secrets(
    reviewed: World, secret: Planted
) -> None:
    inline = [c.body for c in reviewed.host.review_comment_list]
    review = [r.body for r in reviewed.host.pulls[NUMBER].reviews]
    posted = "\n".join([*inline, *review, reviewed.summary()])
    assert secret.absent_from(posted)
    for kind in ("github-token", "aws-access-key", "custom", "secret"):
        assert f"{MARKER}{kind}" in "\n".join(inline), kind


def test_the_summary_state_records_the_finding_without_the_secrets(
    reviewed: World, secret: Planted
) -> None:
    state = decode_state(reviewed.summary())
    assert state is not None and state.records
    recorded = "\n".join(r.model_dump_json() for r in state.records)
    assert secret.absent_from(recorded)
    assert MARKER in recorded


def command(world: World, words: str) -> str:
    """`words` commented by a maintainer; the answer consensus posts."""
    said = world.host.seed_comment(NUMBER, words, author=MAINTAINER)
    event = {"action": "created", "issue": {"number": NUMBER, "pull_request": {"url": "…"}},
             "comment": {"id": said, "body": words,
                         "user": {"login": MAINTAINER, "type": "User"}}}  # fmt: skip
    before = len(world.host.issue_comment_list)
    handle_comment(world.services(), world.step(), IssueCommentEvent.model_validate(event))
    answers = [c.body for c in world.host.issue_comment_list[before:]]
    assert answers, world.lines
    return "\n".join(answers)


def test_explain_shows_the_judges_reasons_without_the_secrets(
    reviewed: World, secret: Planted
) -> None:
    state = decode_state(reviewed.summary())
    assert state is not None
    [record] = state.records
    answer = command(reviewed, f"/consensus explain {record.id}")
    assert "confirmed: the log shows" in answer  # the judges' reasons are shown
    assert secret.absent_from(answer)
    assert MARKER + "github-token" in answer


def test_verify_answers_with_the_new_judges_reasons_without_the_secrets(
    reviewed: World, secret: Planted
) -> None:
    state = decode_state(reviewed.summary())
    assert state is not None
    [record] = state.records
    answer = command(reviewed, f"/consensus verify {record.id}")
    assert secret.absent_from(answer + reviewed.summary())
    assert MARKER in answer


def test_the_step_summary_shows_the_marker_not_the_secrets(
    reviewed: World, secret: Planted
) -> None:
    page = (reviewed.tmp / "step-summary.md").read_text(encoding="utf-8")
    assert "SQL injection" in page
    assert secret.absent_from(page)
    assert MARKER in page


def test_the_actions_json_report_and_sarif_hold_no_secret(reviewed: World, secret: Planted) -> None:
    for name in ("consensus-report.json", "consensus.sarif"):
        written = (reviewed.tmp / name).read_text(encoding="utf-8")
        assert secret.absent_from(written), name
        assert MARKER + "aws-access-key" in written, name


def test_every_report_format_and_the_html_page_hold_no_secret(
    reviewed: World, secret: Planted
) -> None:
    journal = Journal(reviewed.tmp / "journal.db")
    try:
        stored = journal.report(run_id(reviewed))
        assert stored is not None
        report = Report.model_validate_json(stored)
        pages = {fmt: render(report, fmt) for fmt in FORMATS}
        pages["html"] = html_report(journal, run_id(reviewed), warn=lambda line: None)
    finally:
        journal.close()
    for fmt, page in pages.items():
        assert secret.absent_from(page), fmt
        assert MARKER in page, fmt


def test_the_journal_stores_every_reply_redacted_and_a_replay_decides_the_same(
    reviewed: World, secret: Planted
) -> None:
    ident = run_id(reviewed)
    with closing(sqlite3.connect(reviewed.tmp / "journal.db")) as db:  # what the file holds
        rows = db.execute(
            "SELECT reply, error_message FROM calls WHERE run_id = ?", (ident,)
        ).fetchall()
    journal = Journal(reviewed.tmp / "journal.db")
    try:
        stored = journal.report(ident) or ""
        replayed = asyncio.run(replay_run(ident, journal=journal, counter=Counter()))
    finally:
        journal.close()
    replies = "\n".join(str(cell) for row in rows for cell in row)
    assert {"verdict", "review"} <= {r.schema_name for r in reviewed.models.calls}
    assert secret.absent_from(replies + stored)
    assert MARKER + "github-token" in replies
    live = Report.model_validate_json(stored)
    assert [f.model_dump() for f in replayed.findings] == [f.model_dump() for f in live.findings]


def test_the_bench_files_hold_no_secret(tmp_path: Path, secret: Planted) -> None:
    world = world_of(tmp_path, secret)
    outcome = bench(world, redact=(PATTERN,))
    assert {j.verdict for j in outcome.result.judgements} == {"match"}
    written = write_outputs(outcome, tmp_path / "bench")
    names = {path.name for path in written}
    assert {"bench.json", "labels.jsonl", "bench.md", "bench.html"} <= names
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert secret.absent_from(text), path.name
    assert MARKER in (tmp_path / "bench" / "labels.jsonl").read_text(encoding="utf-8")
    assert MARKER in (tmp_path / "bench" / "bench.json").read_text(encoding="utf-8")
