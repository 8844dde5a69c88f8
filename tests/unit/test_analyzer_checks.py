"""Whether each configured analyzer could run here: what `consensus doctor` and a dry run
say before a review goes on without one."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from consensus.adapters.analyzer_checks import check_analyzers
from consensus.model.analysis import AnalyzerCheck
from consensus.settings.config import Settings

SARIF = {
    "version": "2.1.0",
    "runs": [
        {
            "tool": {"driver": {"name": "CodeQL"}},
            "results": [
                {
                    "ruleId": "py/unused-import",
                    "message": {"text": "Import of 'os' is not used."},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "cart.py"},
                                "region": {"startLine": 1},
                            }
                        }
                    ],
                }
            ],
        }
    ],
}


def settings(**sources: object) -> Settings:
    return Settings.model_validate(sources)


def installed(*names: str):  # type: ignore[no-untyped-def]
    return lambda name: (f"/usr/local/bin/{name}",) if name in names else None


def answering(code: int, out: bytes, err: bytes = b""):  # type: ignore[no-untyped-def]
    asked: list[Sequence[str]] = []

    def run(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
        asked.append(list(argv))
        return code, out, err

    run.asked = asked  # type: ignore[attr-defined]
    return run


def test_an_installed_tool_is_ready_with_the_version_it_answers(tmp_path: Path) -> None:
    run = answering(0, b"ruff 0.8.4\n")
    checks = check_analyzers(
        settings(analyzers=["ruff"]), tmp_path, find=installed("ruff"), run=run
    )
    assert checks == (AnalyzerCheck(name="ruff", ready=True, detail="ruff 0.8.4"),)
    assert run.asked == [["/usr/local/bin/ruff", "--version"]]  # type: ignore[attr-defined]


def test_a_bare_version_number_is_named_after_its_tool(tmp_path: Path) -> None:
    run = answering(0, b"1.97.0\n")
    (check,) = check_analyzers(
        settings(analyzers=["semgrep"]), tmp_path, find=installed("semgrep"), run=run
    )
    assert check.detail == "semgrep 1.97.0"


def test_a_missing_tool_says_how_to_install_it(tmp_path: Path) -> None:
    (check,) = check_analyzers(
        settings(analyzers=["semgrep"]), tmp_path, find=installed(), run=answering(0, b"")
    )
    assert (check.ready, check.detail) == (False, "not installed (pip install semgrep)")


def test_a_tool_that_cannot_say_its_version_is_not_ready(tmp_path: Path) -> None:
    run = answering(2, b"", b"error: libc not found\nmore\n")
    (check,) = check_analyzers(
        settings(analyzers=["ruff"]), tmp_path, find=installed("ruff"), run=run
    )
    assert (check.ready, check.detail) == (
        False,
        "`ruff --version` exited 2: error: libc not found",
    )


def test_a_tool_that_hangs_is_not_ready(tmp_path: Path) -> None:
    def hangs(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
        raise subprocess.TimeoutExpired(list(argv), timeout)

    (check,) = check_analyzers(
        settings(analyzers=["semgrep"]), tmp_path, find=installed("semgrep"), run=hangs
    )
    assert not check.ready and "timed out" in check.detail


def test_a_sarif_file_is_ready_once_written_and_named_until_then(tmp_path: Path) -> None:
    sources = settings(sarif=[{"path": "ci/codeql.sarif", "name": "codeql"}, "eslint.sarif"])
    before = check_analyzers(sources, tmp_path, find=installed(), run=answering(0, b""))
    assert [(c.name, c.ready) for c in before] == [("codeql", False), ("eslint", False)]
    assert before[0].detail.startswith("SARIF file ci/codeql.sarif: no such file")
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "codeql.sarif").write_text(json.dumps(SARIF))
    after = check_analyzers(sources, tmp_path, find=installed(), run=answering(0, b""))
    assert after[0] == AnalyzerCheck(
        name="codeql", ready=True, detail="ci/codeql.sarif: 1 result from CodeQL"
    )


def test_a_file_that_is_not_sarif_says_what_a_review_would_note(tmp_path: Path) -> None:
    (tmp_path / "eslint.sarif").write_text('{"version": "2.1.0", "runs": [')
    (check,) = check_analyzers(settings(sarif=["eslint.sarif"]), tmp_path, find=installed())
    assert not check.ready and check.name == "eslint"
    assert check.detail.startswith("SARIF file eslint.sarif is not JSON")


def test_a_sarif_file_without_a_name_is_named_after_its_tool(tmp_path: Path) -> None:
    (tmp_path / "out.sarif").write_text(json.dumps(SARIF))
    (check,) = check_analyzers(settings(sarif=["out.sarif"]), tmp_path, find=installed())
    assert (check.name, check.ready) == ("codeql", True)


def test_tools_come_first_then_the_sarif_files_each_in_the_files_order(tmp_path: Path) -> None:
    sources = settings(analyzers=["semgrep", "ruff"], sarif=["a.sarif"])
    checks = check_analyzers(sources, tmp_path, find=installed("ruff"), run=answering(0, b"x 1"))
    assert [c.name for c in checks] == ["semgrep", "ruff", "a"]


def test_no_analyzer_configured_is_nothing_to_check(tmp_path: Path) -> None:
    assert check_analyzers(settings(), tmp_path, find=installed("ruff")) == ()
