"""The Action's review with analyzer sources: a SARIF file an earlier step wrote (the
`analyzer-sarif` input) corroborates the models' finding on the pull request, the journal
keeps what it reported for a replay, and a fork's head runs none of the configured
analyzers (its SARIF file is still read). Real ruff runs on the head's files as the
contents API serves them, against the base's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from consensus.adapters.journal import Journal
from consensus.adapters.repository_analyzers import find_tool
from consensus.app.journaled import replay_run
from consensus.app.pull.review import review_pull_request
from consensus.model.report import Report
from consensus.ports import CompletionRequest, PullFile
from consensus.publish.thread import ACTIONS
from consensus.settings.action_inputs import ActionInputs
from consensus.testing import FakeModelClient
from tests.flows.flows_world import CONFIG, NUMBER, Counter, World

needs_ruff = pytest.mark.skipif(find_tool("ruff") is None, reason="ruff is a test dependency")
SEMGREP_SARIF = {
    "version": "2.1.0",
    "runs": [
        {
            "tool": {"driver": {"name": "Semgrep OSS", "rules": [{"id": "python.sql-injection"}]}},
            "results": [
                {
                    "ruleId": "python.sql-injection",
                    "level": "error",
                    "message": {"text": "User input formatted into a SQL query."},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "src/app/db.py"},
                                "region": {"startLine": 11},
                            }
                        }
                    ],
                },
                {
                    "ruleId": "python.sql-injection",
                    "level": "error",
                    "message": {"text": "The same, long before this change."},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "src/app/legacy.py"},
                                "region": {"startLine": 3},
                            }
                        }
                    ],
                },
            ],
        }
    ],
}


def world_with_sarif(tmp_path: Path, **options: object) -> World:
    (tmp_path / "semgrep.sarif").write_text(json.dumps(SEMGREP_SARIF))
    inputs = ActionInputs.from_env({"CONSENSUS_ANALYZER_SARIF": "semgrep.sarif"})
    return World(tmp_path, inputs=inputs, **options)  # type: ignore[arg-type]


def review(world: World) -> dict[str, object]:
    review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )
    report: dict[str, object] = json.loads((world.tmp / "consensus-report.json").read_text())
    return report


def test_a_sarif_input_corroborates_the_models_finding_and_replays(tmp_path: Path) -> None:
    world = world_with_sarif(tmp_path)
    live = review(world)
    [finding] = live["findings"]  # type: ignore[misc]
    assert "also reported by semgrep python.sql-injection" in finding["reason"]
    [comment] = world.host.review_comments(NUMBER)
    assert "also reported by semgrep python.sql-injection" in comment.body
    assert "semgrep: 1 of 2 results kept (added): 1 outside the reviewed files" in world.summary()

    (tmp_path / "semgrep.sarif").unlink()  # a replay reads the journal, not the file
    journal = Journal(tmp_path / "journal.db")
    try:
        replayed = asyncio.run(replay_run(str(live["run_id"]), journal=journal, counter=Counter()))
    finally:
        journal.close()
    expected = Report.model_validate_json(json.dumps(live)).findings
    assert [f.model_dump() for f in replayed.findings] == [f.model_dump() for f in expected]


def test_a_forks_head_runs_no_configured_analyzer_and_says_so(tmp_path: Path) -> None:
    world = world_with_sarif(
        tmp_path, config=CONFIG + "analyzers: [ruff]\n", head_repo="mallory/service"
    )
    live = review(world)
    notes = " ".join(live["notes"])  # type: ignore[arg-type]
    assert "ruff: not run on a fork's head (its code is untrusted)" in notes
    [finding] = live["findings"]  # type: ignore[misc]
    assert "also reported by semgrep python.sql-injection" in finding["reason"]
    assert "not run on a fork's head" in world.summary()


BASE_DB = '''\
"""Users."""
import os
import sqlite3


def get_user(conn, user_id):
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
    return cur.fetchone()
'''
HEAD_DB = BASE_DB.replace("(user_id,))", "(user_idd,))")
RUFF_CONFIG = '[tool.ruff.lint]\nselect = ["F"]\n'
TYPO_PATCH = """\
@@ -6,4 +6,4 @@ import sqlite3
 def get_user(conn, user_id):
     cur = conn.cursor()
-    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
+    cur.execute("SELECT * FROM users WHERE id = ?", (user_idd,))
     return cur.fetchone()"""
TYPO = {
    "path": "src/app/db.py",
    "line": 8,
    "severity": "high",
    "category": "bug",
    "title": "`user_idd` is not defined",
    "body": "The query's parameter is `user_idd`, a name that does not exist: NameError.",
}


@needs_ruff
def test_ruff_runs_on_the_pull_requests_head_against_its_base(tmp_path: Path) -> None:
    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            return json.dumps({"verdict": "confirmed", "reason": "the code shows it"})
        return json.dumps({"findings": [TYPO]})

    world = World(
        tmp_path,
        models=FakeModelClient(by_request=answer),
        config=CONFIG + "analyzers: [{name: ruff, filter_mode: file}]\n",
        files=[PullFile(path="src/app/db.py", status="modified", additions=1, patch=TYPO_PATCH)],
        # the repository's own ruff configuration, read from the head: the rules pinned
        head_files={"src/app/db.py": HEAD_DB, "pyproject.toml": RUFF_CONFIG},
        base_code={"src/app/db.py": BASE_DB},
    )
    live = review(world)
    [finding] = live["findings"]  # type: ignore[misc]
    assert finding["line"] == 8
    assert "also reported by ruff F821" in finding["reason"]
    # `import os` and `import sqlite3` are unused on both sides: the base's, not the change's
    notes = " ".join(live["notes"])  # type: ignore[arg-type]
    assert "ruff: 1 of 3 results kept (file): 2 already on the base (same rule, same code)" in notes
