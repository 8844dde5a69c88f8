"""A pull request's review whose judges read the trees keeps what they read in its journal:
a replay derives the same verdicts, grounded ones included, with no checkout and no
model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from consensus.adapters.journal import Journal
from consensus.app.journaled import replay_run
from consensus.app.pull.review import review_pull_request
from consensus.model.completion import ToolCall
from consensus.model.report import Report
from consensus.ports import Completion, CompletionRequest, TreeReader
from consensus.publish.thread import ACTIONS
from consensus.testing import FakeModelClient
from consensus.testing.trees import FakeTrees
from tests.flows.flows_world import FINDING, NUMBER, Counter, NoCheckout, World

HEAD = "\n".join(
    [
        '"""Users."""',
        "import sqlite3",
        "",
        "",
        "def connect(path):",
        "    return sqlite3.connect(path)",
        "",
        "def get_user(conn, user_id):",
        "    cur = conn.cursor()",
        '    query = f"SELECT * FROM users WHERE id = {user_id}"',
        "    cur.execute(query)",
        "    return cur.fetchone()",
        "",
    ]
)
QUOTE = 'query = f"SELECT * FROM users WHERE id = {user_id}"'


class TreesCheckout(NoCheckout):
    """A checkout that holds both commits: its trees are `trees_read`."""

    def __init__(self) -> None:
        self.trees_read = FakeTrees(head={"src/app/db.py": HEAD})

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        return self.trees_read


def panel() -> FakeModelClient:
    """OpenAI reports the injection; Anthropic, its judge, reads the file before it answers."""

    def answer(request: CompletionRequest) -> str | Completion:
        if request.schema_name != "verdict":
            found = [FINDING] if request.model.startswith("openai/") else []
            return json.dumps({"findings": found})
        if request.tools and not any(m.role == "tool" for m in request.messages):
            read = '{"path": "src/app/db.py", "start_line": 8, "end_line": 13}'
            return Completion(
                text="", tool_calls=(ToolCall(id="c1", name="read_file", arguments=read),)
            )
        cited = {"path": "src/app/db.py", "start_line": 10, "end_line": 10, "quote": QUOTE}
        return json.dumps(
            {
                "verdict": "confirmed",
                "reason": "user_id is put in the SQL text",
                "evidence": [cited],
            }
        )

    return FakeModelClient(by_request=answer)


def test_a_replay_answers_the_judges_tools_from_the_journal_and_decides_the_same(
    tmp_path: Path,
) -> None:
    checkout = TreesCheckout()
    world = World(tmp_path, models=panel(), checkout=checkout)
    review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )
    live = json.loads((tmp_path / "consensus-report.json").read_text())
    [finding] = live["findings"]
    [vote] = finding["verification"]["votes"]
    assert vote["grounded"] and vote["looked"] == [
        "inline src/app/db.py:1-12",  # the product's first read: the function, from its def
        "read_file src/app/db.py:8-12",  # the file ends at 12
    ]
    calls, reads = len(world.models.calls), len(checkout.trees_read.reads)

    journal = Journal(tmp_path / "journal.db")
    try:
        replayed = asyncio.run(replay_run(live["run_id"], journal=journal, counter=Counter()))
    finally:
        journal.close()

    assert [f.model_dump() for f in replayed.findings] == [
        f.model_dump() for f in Report.model_validate_json(json.dumps(live)).findings
    ]
    assert len(world.models.calls) == calls and len(checkout.trees_read.reads) == reads
