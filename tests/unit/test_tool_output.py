"""ingest/tool_output.py: ruff's and semgrep's JSON read as results, untrusted like a SARIF
file: output that is not JSON or not the tool's shape is an error naming the tool."""

from __future__ import annotations

import json

import pytest

from consensus.errors import AnalyzerOutputError
from consensus.ingest.tool_output import ruff_results, ruff_severity, semgrep_results
from consensus.model.base import Severity

# As ruff 0.17 prints `ruff check --output-format json` (a syntax error has no rule code
# in older versions: `code: null`).
RUFF = [
    {
        "cell": None,
        "code": "F821",
        "end_location": {"column": 17, "row": 9},
        "filename": "/scratch/head/src/cart.py",
        "fix": None,
        "location": {"column": 12, "row": 9},
        "message": "Undefined name `amont`",
        "name": "undefined-name",
        "noqa_row": 9,
        "severity": "error",
        "url": "https://docs.astral.sh/ruff/rules/undefined-name",
    },
    {
        "code": None,
        "filename": "/scratch/head/src/broken.py",
        "location": {"column": 7, "row": 6},
        "end_location": {"column": 8, "row": 6},
        "message": "Expected a parameter or the end of the parameter list",
    },
    {"code": "F401", "filename": "/elsewhere/x.py", "location": {"row": 1}, "message": "…"},
    {"code": "F401", "filename": "/scratch/head/x.py", "location": {"row": 0}, "message": "…"},
]


def test_ruffs_diagnostics_at_paths_from_where_it_ran() -> None:
    typo, syntax = ruff_results(json.dumps(RUFF).encode(), root="/scratch/head")
    assert (typo.rule, typo.path, typo.line, typo.end_line) == ("F821", "src/cart.py", 9, 9)
    assert typo.severity is Severity.HIGH
    assert typo.help_uri == "https://docs.astral.sh/ruff/rules/undefined-name"
    assert (syntax.rule, syntax.path, syntax.severity) == (
        "invalid-syntax",
        "src/broken.py",
        Severity.HIGH,
    )


@pytest.mark.parametrize(
    ("code", "severity"),
    [
        ("F821", Severity.HIGH),
        ("E999", Severity.HIGH),
        ("F401", Severity.LOW),
        ("F841", Severity.LOW),
        ("B006", Severity.MEDIUM),
        ("S608", Severity.MEDIUM),
        ("F632", Severity.HIGH),
        ("E501", Severity.INFO),
        ("I001", Severity.INFO),
    ],
)
def test_a_ruff_rules_family_gives_its_severity(code: str, severity: Severity) -> None:
    assert ruff_severity(code) is severity


@pytest.mark.parametrize(
    ("tool", "data", "problem"),
    [
        ("ruff", b"warning: something\n", "ruff printed something that is not JSON"),
        ("ruff", b'{"results": []}', "ruff printed JSON that is not a list"),
        ("semgrep", b"[]", "semgrep printed JSON without a `results` list"),
    ],
)
def test_output_of_the_wrong_shape_names_the_tool(tool: str, data: bytes, problem: str) -> None:
    read = ruff_results if tool == "ruff" else semgrep_results
    with pytest.raises(AnalyzerOutputError, match=problem):
        read(data, root="/scratch")


def test_semgrep_results_without_a_place_or_a_rule_are_left_out() -> None:
    output = {
        "results": [
            {"check_id": "r", "path": "a.py", "start": {"line": 3}, "extra": {"severity": "ERROR"}},
            {"check_id": "", "path": "a.py", "start": {"line": 3}},
            {"check_id": "r", "path": "../a.py", "start": {"line": 3}},
            {"check_id": "r", "path": "a.py"},
        ]
    }
    [kept] = semgrep_results(json.dumps(output).encode(), root="/scratch")
    assert (kept.path, kept.line, kept.severity, kept.message) == ("a.py", 3, Severity.HIGH, "r")
