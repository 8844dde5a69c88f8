"""A pull request's review, end to end through the fakes: two of three families report a
claim at a line the change does not touch. Agreement alone would post it; grounded first,
it goes to the third family's judge, is not posted, and the summary, its state and a later
`/consensus verify` all keep why."""

from __future__ import annotations

import json
from pathlib import Path

from consensus.app.pull.review import review_pull_request
from consensus.model.completion import ToolCall
from consensus.ports import Completion, CompletionRequest, TreeReader
from consensus.publish.state import decode_state
from consensus.publish.thread import ACTIONS
from consensus.testing import FakeModelClient
from consensus.testing.trees import FakeTrees
from tests.flows.flows_world import FINDING, HEAD_SHA, KEYS, NUMBER, REPO, NoCheckout, World
from tests.flows.test_flows_commands import comment

CONFIG = """\
providers:
  - {model: openai/gpt-5.1, api_key_env: OPENAI_API_KEY}
  - {model: anthropic/claude-sonnet-4-5, api_key_env: ANTHROPIC_API_KEY}
  - {model: gemini/gemini-2.5-pro, api_key_env: GEMINI_API_KEY}
personas: [security]
min_providers: 2
threshold: 0.6
"""
WHY = "line 30 is not on the change"


def claim(line: int) -> dict[str, object]:
    """The cursor claim as a model writes it: it names `line`, and quotes line 9 (the diff's
    `cur = conn.cursor()`, where the audit anchors it)."""
    return {
        "path": "src/app/db.py",
        "line": line,
        "severity": "medium",
        "category": "bug",
        "title": "Cursor is never closed",
        "body": "`get_user` opens a cursor and returns without closing it; use `with`.",
        "evidence": "cur = conn.cursor()",
    }


def models(line: int, verdict: str = "refuted") -> FakeModelClient:
    """openai and anthropic report the claim at `line`, gemini finds nothing; every judge
    answers `verdict`."""

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            reason = "get_user's caller closes the connection, and the cursor with it"
            return json.dumps({"verdict": verdict, "reason": reason})
        found = [] if request.model.startswith("gemini/") else [claim(line)]
        return json.dumps({"findings": found})

    return FakeModelClient(by_request=answer)


def reviewed(tmp: Path, line: int) -> World:
    keys = KEYS | {"GEMINI_API_KEY": "gm-test"}
    world = World(tmp, models=models(line), config=CONFIG, keys=keys)
    review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )
    return world


def judges_asked(world: World) -> list[CompletionRequest]:
    return [c for c in world.models.calls if c.schema_name == "verdict"]


def test_at_its_place_the_claim_is_posted_on_agreement_with_no_judge(tmp_path: Path) -> None:
    world = reviewed(tmp_path, 9)

    assert judges_asked(world) == []
    assert [c.path for c in world.host.review_comment_list] == ["src/app/db.py"]


def test_off_the_change_it_goes_to_the_judge_and_is_listed_with_its_reason(
    tmp_path: Path,
) -> None:
    world = reviewed(tmp_path, 30)

    [asked, *_] = judges_asked(world)
    assert asked.model == "gemini/gemini-2.5-pro"  # the one family that did not report it
    assert f"does not hold at its place: {WHY}" in asked.messages[-1].content
    assert world.host.review_comment_list == []  # nothing inline
    summary = world.summary()
    assert f"ungrounded: {WHY}" in summary.split("Not posted", 1)[1]
    state = decode_state(summary)
    assert state is not None
    [record] = state.records
    assert record.ungrounded == WHY and not record.status.posted


def test_verify_later_tells_the_judges_it_is_ungrounded(tmp_path: Path) -> None:
    world = reviewed(tmp_path, 30)
    world.models = models(30, verdict="uncertain")

    comment(world, "/consensus verify F1")

    asked = judges_asked(world)
    assert asked and all(f"does not hold at its place: {WHY}" in c.messages[-1].content
                         for c in asked)  # fmt: skip
    state = decode_state(world.summary())
    assert state is not None and state.records[0].ungrounded == WHY


# --------------------------------------------------------------------------- cited lines

DB = """\
import sqlite3


def connect(path):
    return sqlite3.connect(path)


def get_user(conn, user_id):
    cur = conn.cursor()
    query = f"SELECT * FROM users WHERE id = {user_id}"
    cur.execute(query)
    return cur.fetchone()
"""
QUERY = 'query = f"SELECT * FROM users WHERE id = {user_id}"'
LOOKING = CONFIG.replace("threshold: 0.6\n", "inspector: {rule: ahead-by-k, ahead_by: 1}\n")


class Checkout(NoCheckout):
    """A CI checkout holding both commits: the judges' tools read the trees."""

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        return FakeTrees(head={"src/app/db.py": DB})


def looking(request: CompletionRequest) -> str | Completion:
    """openai reports the injection; a judge reads the function, then cites the query."""
    if request.schema_name == "review":
        found = [FINDING | {"evidence": "cur.execute(query)"}] if "openai" in request.model else []
        return json.dumps({"findings": found})
    if request.tools and not any(m.role == "tool" for m in request.messages):
        arguments = json.dumps({"path": "src/app/db.py", "start_line": 8, "end_line": 12})
        return Completion(
            text="", tool_calls=(ToolCall(id="c1", name="read_file", arguments=arguments),)
        )
    cited = {"path": "src/app/db.py", "start_line": 10, "end_line": 11, "quote": QUERY}
    reason = "line 10 puts user_id into the SQL text"
    return json.dumps({"verdict": "confirmed", "reason": reason, "evidence": [cited]})


def test_a_verified_finding_links_the_lines_its_judge_cited_to_the_head_commit(
    tmp_path: Path,
) -> None:
    world = World(tmp_path, models=FakeModelClient(by_request=looking), config=LOOKING,
                  keys=KEYS | {"GEMINI_API_KEY": "gm-test"}, checkout=Checkout())  # fmt: skip
    review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )

    [inline] = world.host.review_comment_list
    assert "What the judges read" in inline.body
    url = f"https://github.com/{REPO}/blob/{HEAD_SHA}/src/app/db.py#L10-L11"
    assert f"[`src/app/db.py:10-11`]({url})" in inline.body


def test_explain_says_why_agreement_alone_did_not_post_it(tmp_path: Path) -> None:
    world = reviewed(tmp_path, 30)

    reply = comment(world, "/consensus explain F1")

    assert f"- ungrounded: {WHY}" in reply
