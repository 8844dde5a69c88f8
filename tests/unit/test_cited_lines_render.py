"""The lines a judge cited, once checked, reach the outputs that keep a verification: the
JSON report's votes and SARIF's related locations (valid against the 2.1.0 schema)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from consensus.model.base import Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.reply import Citation
from consensus.render import render
from tests.unit.test_render import finding, make_report

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json").read_text()
)
GUARD = Citation(path="src/cart.py", start_line=41, end_line=41, quote="total = Decimal(0)")


def verified_with_citation() -> Verification:
    grounded = Vote(
        model="anthropic/claude-sonnet-4-5",
        family="anthropic",
        role="inspector",
        verdict=VerdictKind.REFUTED,
        reason="total is set on line 41 before use",
        grounded=True,
        evidence=(GUARD,),
        looked=("read src/cart.py:11-71",),
    )
    blind = Vote(
        model="gemini/gemini-2.5-pro",
        family="google",
        role="voter",
        verdict=VerdictKind.CONFIRMED,
        reason="looks real",
    )
    return Verification(confirmed=1, refuted=1, votes=(grounded, blind))


def report_with_citation() -> str:
    item = finding(
        1, Status.UNDECIDED, path="src/cart.py", line=52, verification=verified_with_citation()
    )
    return render(make_report([item]), "sarif")


def test_sarif_carries_each_checked_citation_as_a_related_location() -> None:
    [result] = json.loads(report_with_citation())["runs"][0]["results"]

    assert result["relatedLocations"] == [
        {
            "id": 0,
            "physicalLocation": {
                "artifactLocation": {"uri": "src/cart.py", "uriBaseId": "%SRCROOT%"},
                "region": {
                    "startLine": 41,
                    "endLine": 41,
                    "snippet": {"text": "total = Decimal(0)"},
                },
            },
            "message": {"text": "cited by anthropic (refuted)"},
        }
    ]


def test_sarif_with_citations_validates_against_the_schema() -> None:
    log = json.loads(report_with_citation())
    validator = jsonschema.Draft7Validator(SCHEMA)

    assert [e.message for e in validator.iter_errors(log)] == []


def test_a_blind_verdict_adds_no_related_location() -> None:
    blind = Verification(confirmed=1, votes=(verified_with_citation().votes[1],))
    item = finding(1, Status.UNDECIDED, verification=blind)
    [result] = json.loads(render(make_report([item]), "sarif"))["runs"][0]["results"]

    assert "relatedLocations" not in result


def test_the_json_report_keeps_whether_each_vote_looked_and_what_it_cited() -> None:
    item = finding(1, Status.UNDECIDED, verification=verified_with_citation())
    [data] = json.loads(render(make_report([item]), "json"))["findings"]
    grounded, blind = data["verification"]["votes"]

    assert grounded["grounded"] is True and blind["grounded"] is False
    assert grounded["evidence"] == [
        {
            "path": "src/cart.py",
            "start_line": 41,
            "end_line": 41,
            "quote": "total = Decimal(0)",
            "side": "head",
        }
    ]
    assert grounded["looked"] == ["read src/cart.py:11-71"]
