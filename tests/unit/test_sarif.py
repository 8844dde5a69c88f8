"""ingest/sarif_results.py: SARIF 2.1.0 files real writers produced (CodeQL's test data, the SARIF
tutorials' samples: tests/data/sarif/README.md) read into results at checkout paths; a
malformed, wrong-version or huge file is an error naming the file and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from consensus.errors import AnalyzerOutputError
from consensus.ingest.sarif_results import (
    MAX_SARIF_BYTES,
    MAX_SARIF_RESULTS,
    known_to,
    read_sarif,
    tool_slug,
)
from consensus.model.base import Severity

DATA = Path(__file__).parents[1] / "data"
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())


def sample(name: str) -> bytes:
    return (DATA / "sarif" / name).read_bytes()


def log(*results: dict[str, Any], run: dict[str, Any] | None = None) -> bytes:
    """A SARIF log of one run holding `results`, valid against the 2.1.0 schema."""
    body = {"tool": {"driver": {"name": "ESLint", "rules": [{"id": "no-undef"}]}}}
    body.update(run or {})
    body["results"] = list(results)
    document = {"version": "2.1.0", "runs": [body]}
    jsonschema.validate(document, SCHEMA)
    return json.dumps(document).encode()


def result(uri: str = "src/app.js", line: int = 3, **extra: Any) -> dict[str, Any]:
    location = {"artifactLocation": {"uri": uri}, "region": {"startLine": line}}
    return {
        "ruleId": "no-undef",
        "message": {"text": "'totl' is not defined."},
        "locations": [{"physicalLocation": location}],
        **extra,
    }


@pytest.mark.parametrize("name", ["codeql-fingerprinting.sarif", "Baseline.sarif"])
def test_the_samples_are_valid_sarif(name: str) -> None:
    jsonschema.validate(json.loads(sample(name)), SCHEMA)


def test_codeqls_own_test_data_reads_with_its_artifact_index_and_fingerprints() -> None:
    [run] = read_sarif(sample("codeql-fingerprinting.sarif"), shown="codeql.sarif")
    assert tool_slug(run.tool) == "codeql"
    first, second = (o.result for o in run.results)
    assert (first.rule, first.path, first.line, first.message) == (
        "js/unused-local-variable",
        "testFile1.js",
        1,
        "Unused variable a.",
    )
    assert first.fingerprint == "primaryLocationLineHash=5e4d5a9cf1294ad9:1"
    assert first.severity is Severity.MEDIUM  # no level, no rule: SARIF's default, warning
    # the second result names its file only by the run's artifacts[1]
    assert (second.path, second.line, second.message) == ("testFile2.js", 2, "Unused variable bar.")
    assert run.skipped == ()


def test_the_tutorials_python_sample_reads_its_one_result() -> None:
    [run] = read_sarif(sample("bad-eval-with-code-flow.sarif"), shown="scan.sarif")
    [observed] = run.results
    assert observed.result.path == "3-Beyond-basics/bad-eval-with-code-flow.py"
    assert (observed.result.rule, observed.result.line) == ("PY2335", 8)
    assert "insecure function 'eval'" in observed.result.message


def test_results_without_a_location_are_counted_not_placed() -> None:
    [run] = read_sarif(sample("Baseline.sarif"), shown="Baseline.sarif")
    assert run.results == ()
    assert run.skipped == (("no location", 4),)


def test_baseline_state_is_kept_for_the_filter() -> None:
    data = log(
        result(line=1, baselineState="unchanged"),
        result(line=2, baselineState="new"),
        result(line=3),
    )
    [run] = read_sarif(data, shown="x.sarif")
    assert [o.baseline for o in run.results] == ["unchanged", "new", None]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"{not json", "is not JSON"),
        (b"\xff\xfe\x00", "is not UTF-8"),
        (b"[]", "is not a SARIF log"),
        (json.dumps({"version": "2.0.0", "runs": []}).encode(), "is SARIF version '2.0.0'"),
        (json.dumps({"runs": []}).encode(), "is SARIF version None"),
        (json.dumps({"version": "2.1.0", "runs": {}}).encode(), "has no `runs` list"),
    ],
)
def test_a_malformed_file_is_an_error_naming_it_and_the_problem(data: bytes, problem: str) -> None:
    with pytest.raises(AnalyzerOutputError) as raised:
        read_sarif(data, shown="out/eslint.sarif")
    assert raised.value.message.startswith("SARIF file out/eslint.sarif ")
    assert problem in raised.value.message


def test_a_huge_file_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(AnalyzerOutputError, match="more than the 20,000,000 bytes read"):
        read_sarif(b" " * (MAX_SARIF_BYTES + 1), shown="big.sarif")


def test_too_many_results_are_refused() -> None:
    one = result()
    document = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [one] * (MAX_SARIF_RESULTS + 1)}],
    }
    with pytest.raises(AnalyzerOutputError, match="holds 10,001 results"):
        read_sarif(json.dumps(document).encode(), shown="many.sarif")


ROOT = "/home/runner/work/shop/shop"


@pytest.mark.parametrize(
    ("uri", "base", "path"),
    [
        ("src/app.js", None, "src/app.js"),
        ("./src/app.js", None, "src/app.js"),
        ("src/my%20app.js", None, "src/my app.js"),
        (f"file://{ROOT}/src/app.js", None, "src/app.js"),
        ("app.js", "SRC", "src/app.js"),  # originalUriBaseIds: SRC is the checkout's src/
        ("app.js", "%SRCROOT%", "app.js"),  # a base id the run does not define: the root
        ("file:///etc/passwd", None, None),
        ("../elsewhere/app.js", None, None),
        ("https://example.com/app.js", None, None),
    ],
)
def test_paths_are_made_relative_to_the_checkout(
    uri: str, base: str | None, path: str | None
) -> None:
    located = result(uri=uri)
    if base is not None:
        located["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] = base
    bases = {"SRC": {"uri": f"file://{ROOT}/src/"}}
    [run] = read_sarif(log(located, run={"originalUriBaseIds": bases}), shown="x", root=ROOT)
    if path is None:
        assert run.results == () and run.skipped == (("outside the checkout", 1),)
    else:
        assert [o.result.path for o in run.results] == [path]


def test_level_comes_from_the_result_else_its_rule() -> None:
    rules = [
        {"id": "no-undef", "defaultConfiguration": {"level": "error"}, "helpUri": "https://e/r"}
    ]
    run_meta = {"tool": {"driver": {"name": "ESLint", "rules": rules}}}
    data = log(
        result(line=1),
        result(line=2, level="note"),
        result(line=3, level="none"),
        run=run_meta,
    )
    [run] = read_sarif(data, shown="x")
    assert [o.result.severity for o in run.results] == [Severity.HIGH, Severity.LOW, Severity.INFO]
    assert run.results[0].result.help_uri == "https://e/r"


def test_a_message_by_id_and_arguments_is_spelled_out() -> None:
    rules = [{"id": "no-undef", "messageStrings": {"default": {"text": "'{0}' is not defined."}}}]
    located = result()
    located["message"] = {"id": "default", "arguments": ["totl"]}
    [run] = read_sarif(
        log(located, run={"tool": {"driver": {"name": "x", "rules": rules}}}), shown="x"
    )
    assert run.results[0].result.message == "'totl' is not defined."


def test_passes_suppressions_and_unplaceable_results_are_counted_by_reason() -> None:
    no_line = result()
    del no_line["locations"][0]["physicalLocation"]["region"]
    data = log(
        result(kind="pass"),
        result(suppressions=[{"kind": "inSource"}]),
        result(suppressions=[{"kind": "external", "state": "rejected"}]),  # not suppressed
        no_line,
    )
    [run] = read_sarif(data, shown="x")
    assert len(run.results) == 1
    assert dict(run.skipped) == {
        "not a failure (kind pass)": 1,
        "suppressed in the source": 1,
        "no line": 1,
    }


def test_a_result_of_the_wrong_shape_is_skipped_not_fatal() -> None:
    document = json.loads(log(result()))
    document["runs"][0]["results"].append("not an object")
    [run] = read_sarif(json.dumps(document).encode(), shown="x")
    assert len(run.results) == 1 and run.skipped == (("malformed", 1),)


def test_a_base_id_outside_the_checkout_places_nothing() -> None:
    located = result(uri="app.js")
    located["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] = "OTHER"
    bases = {"OTHER": {"uri": "file:///opt/elsewhere/"}}
    [run] = read_sarif(log(located, run={"originalUriBaseIds": bases}), shown="x", root=ROOT)
    assert run.results == () and run.skipped == (("outside the checkout", 1),)


def test_a_result_the_bases_sarif_also_holds_is_known_by_its_fingerprint() -> None:
    fingerprinted = {"partialFingerprints": {"primaryLocationLineHash": "39fa2ee980eb94b0:1"}}
    head = read_sarif(
        log(result(line=12, **fingerprinted), result(line=13), result(line=14)), shown="head"
    )[0].results
    # on the base the same problem sat three lines higher; the unfingerprinted one moved too
    base = read_sarif(log(result(line=9, **fingerprinted), result(line=10)), shown="base")[0]
    marked = known_to(head, base.results)
    assert [o.baseline for o in marked] == ["unchanged", "unchanged", None]
