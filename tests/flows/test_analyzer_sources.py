"""The Action's review with analyzer sources: a SARIF file an earlier step wrote (the
`analyzer-sarif` input) corroborates the models' finding on the pull request, the journal
keeps what it reported for a replay, and a fork's head runs none of the configured
analyzers (its SARIF file is still read)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from consensus.adapters.journal import Journal
from consensus.app.journaled import replay_run
from consensus.app.pull.review import review_pull_request
from consensus.model.report import Report
from consensus.publish.thread import ACTIONS
from consensus.settings.action_inputs import ActionInputs
from tests.flows.flows_world import CONFIG, NUMBER, Counter, World

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
