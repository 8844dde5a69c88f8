"""Renderers: JSON keeps the report's names, text reads like a linter, Markdown is safe to post,
SARIF validates against the official 2.1.0 schema."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from consensus.errors import UsageError
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.calibration import Rate
from consensus.model.diff import Redaction, SkippedFile
from consensus.model.findings import DroppedFinding, Verification, Vote
from consensus.model.panel import FamilyEstimate, PanelEstimate
from consensus.model.report import ProviderReport, Quorum, Report, ReportFinding, Stats, Votes
from consensus.render import FORMATS, render
from consensus.render.markdown import ZWJ, escape_markdown_text

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"
ANSI = re.compile(r"\x1b\[")

# The report's own keys, plus the extras model/report.py documents for the audit trail.
SPEC_TOP = {"version", "run_id", "findings", "providers", "stats"}
EXTRA_TOP = {
    "workflow",
    "quorum",
    "threshold",
    "verification",
    "skipped_files",
    "redactions",
    "dropped_findings",
    "notes",
    "budget_exhausted",
    "decision_changes",
    "carried",
    "incomplete",
    "coverage",
    "budget",
    "panel",
}
SPEC_FINDING = [
    "id",
    "fingerprint",
    "path",
    "line",
    "end_line",
    "severity",
    "category",
    "title",
    "body",
    "agreement",
    "votes",
    "providers",
    "personas",
    "status",
    "verification",
]
EXTRA_FINDING = {"reason", "members", "suggestion", "carried_from", "moved_from", "ungrounded"}
SPEC_PROVIDER = [
    "model",
    "status",
    "error",
    "calls",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "latency_s",
]
EXTRA_PROVIDER = {"family", "failed_calls", "not_sent", "files_seen", "chunks"}
SPEC_STATS = [
    "calls",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "wall_s",
    "clusters",
    "consensus",
    "verified",
    "rejected",
]
EXTRA_STATS = {"undecided", "unverified", "dropped"}

GPT, CLAUDE, GEMINI = "openai/gpt-5.1", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro"
RATE_LIMIT = "rate_limited: 429 Too Many Requests: quota exceeded, retry after 30s"


def finding(
    number: int,
    status: Status,
    *,
    path: str = "src/app/db.py",
    line: int = 42,
    end_line: int | None = None,
    severity: Severity = Severity.HIGH,
    category: Category = Category.BUG,
    title: str = "SQL query built from user input",
    body: str = "The query interpolates `name` directly.\n\nUse a bound parameter instead.",
    votes: tuple[int, int] = (2, 2),
    reason: str = "",
    verification: Verification | None = None,
) -> ReportFinding:
    return ReportFinding(
        id=f"F{number}",
        fingerprint=f"fp{number:04d}",
        path=path,
        line=line,
        end_line=end_line or line,
        severity=severity,
        category=category,
        title=title,
        body=body,
        agreement=votes[0] / votes[1],
        votes=Votes(**{"for": votes[0], "of": votes[1]}),
        providers=[GPT, CLAUDE][: votes[0]],
        personas=["correctness", "security"],
        status=status,
        verification=verification,
        reason=reason,
    )


def make_report(
    findings: list[ReportFinding] | None = None, *, answered: int = 2, **changes: Any
) -> Report:
    if findings is None:
        findings = [
            finding(1, Status.CONSENSUS, end_line=44),
            finding(
                2,
                Status.VERIFIED,
                path="src/app/auth.py",
                line=10,
                severity=Severity.CRITICAL,
                category=Category.SECURITY,
                title="Token compared with ==",
                votes=(1, 2),
                verification=Verification(
                    confirmed=3,
                    refuted=1,
                    votes=tuple(
                        Vote(model=f"{f}/m", family=f, role="voter", verdict=v, reason="")
                        for f, v in (
                            ("anthropic", VerdictKind.CONFIRMED),
                            ("google", VerdictKind.CONFIRMED),
                            ("qwen", VerdictKind.CONFIRMED),
                            ("mistral", VerdictKind.REFUTED),
                        )
                    ),
                ),
            ),
            finding(
                3,
                Status.CONSENSUS,
                line=7,
                severity=Severity.MEDIUM,
                category=Category.PERFORMANCE,
                title="Query inside a loop",
            ),
            finding(
                4,
                Status.UNDECIDED,
                path="src/app/cache.py",
                line=3,
                severity=Severity.MEDIUM,
                title="Cache never invalidated",
                votes=(1, 2),
                reason="voting cap reached without a verdict ahead by 2",
            ),
            finding(
                5,
                Status.UNVERIFIED,
                path="src/app/cache.py",
                line=9,
                severity=Severity.LOW,
                category=Category.MAINTAINABILITY,
                title="Magic number",
                votes=(1, 2),
                reason="low-severity singleton",
            ),
            finding(
                6,
                Status.REJECTED,
                path="src/app/rejected_only.py",
                line=5,
                title="Refuted null dereference",
                votes=(1, 2),
                verification=Verification(confirmed=0, refuted=3),
            ),
        ]
    providers = [
        ProviderReport(
            model=GPT,
            family="openai",
            status="ok",
            calls=4,
            tokens_in=12000,
            tokens_out=800,
            cost_usd=0.0312,
            latency_s=9.5,
        ),
        ProviderReport(
            model=CLAUDE,
            family="anthropic",
            status="ok" if answered > 1 else "failed",
            calls=4,
            tokens_in=11000,
            tokens_out=900,
            cost_usd=0.0401,
            latency_s=12.0,
        ),
        ProviderReport(
            model=GEMINI,
            family="google",
            status="failed",
            error=RATE_LIMIT,
            calls=2,
            failed_calls=2,
        ),
    ]
    count = {s: sum(1 for f in findings if f.status is s) for s in Status}
    base: dict[str, Any] = {
        "run_id": "run-2024-abc",
        "findings": findings,
        "providers": providers,
        "stats": Stats(
            calls=10,
            tokens_in=23000,
            tokens_out=1700,
            cost_usd=0.0713,
            wall_s=41.25,
            clusters=len(findings),
            consensus=count[Status.CONSENSUS],
            verified=count[Status.VERIFIED],
            rejected=count[Status.REJECTED],
            undecided=count[Status.UNDECIDED],
            unverified=count[Status.UNVERIFIED],
            dropped=7,
        ),
        "quorum": Quorum(families_answered=answered, min_providers=2, met=answered >= 2),
        "threshold": 0.75,
        "verification": "done",
        "skipped_files": [
            SkippedFile(path="poetry.lock", reason="lockfile"),
            SkippedFile(path="logo.png", reason="binary"),
            SkippedFile(path="vendor/x.min.js", reason="binary"),
        ],
        "redactions": [
            Redaction(path="src/config.py", line=12, kind="aws-access-key"),
            Redaction(path=".env", line=None, kind="generic-secret"),
        ],
        "dropped_findings": [
            DroppedFinding(
                provider=GPT,
                persona="correctness",
                path="src/app/db.py",
                line=400,
                title="Out of diff",
                reason="line 400 is not in the diff of src/app/db.py",
            )
            for _ in range(5)
        ]
        + [
            DroppedFinding(
                provider=CLAUDE,
                persona="security",
                path="src/app/db.py",
                line=42,
                title="Invented code",
                reason="evidence not found in the diff",
            )
            for _ in range(2)
        ],
        "notes": ["2 replies were invalid at first and accepted after one repair turn"],
    }
    base.update(changes)
    return Report(**base)


# --------------------------------------------------------------------------- dispatch


def test_render_dispatches_every_format_and_ends_with_newline() -> None:
    report = make_report()
    outputs = {fmt: render(report, fmt) for fmt in FORMATS}
    assert set(FORMATS) == {"text", "json", "markdown", "sarif"}
    assert all(text.endswith("\n") for text in outputs.values())
    assert len(set(outputs.values())) == len(FORMATS)
    json.loads(outputs["json"])
    json.loads(outputs["sarif"])


def test_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="xml"):
        render(make_report(), "xml")


# --------------------------------------------------------------------------- json


def test_json_uses_spec_field_names_in_spec_order() -> None:
    data = json.loads(render(make_report(), "json"))
    assert set(data) == SPEC_TOP | EXTRA_TOP
    # What makes a review incomplete comes first, before what it found.
    assert list(data)[:6] == ["version", "run_id", "incomplete", "findings", "providers", "stats"]
    for item in data["findings"]:
        assert set(item) == set(SPEC_FINDING) | EXTRA_FINDING
        assert list(item)[: len(SPEC_FINDING)] == SPEC_FINDING
        assert list(item["votes"]) == ["for", "of"]
    for item in data["providers"]:
        assert set(item) == set(SPEC_PROVIDER) | EXTRA_PROVIDER
        assert list(item)[: len(SPEC_PROVIDER)] == SPEC_PROVIDER
    assert set(data["stats"]) == set(SPEC_STATS) | EXTRA_STATS
    assert list(data["stats"])[: len(SPEC_STATS)] == SPEC_STATS


def test_json_values_round_trip() -> None:
    report = make_report()
    data = json.loads(render(report, "json"))
    first = data["findings"][0]
    assert first["votes"] == {"for": 2, "of": 2}
    assert first["severity"] == "high" and first["status"] == "consensus"
    verification = data["findings"][1]["verification"]
    assert {k: verification[k] for k in ("confirmed", "refuted", "uncertain")} == {
        "confirmed": 3,
        "refuted": 1,
        "uncertain": 0,
    }
    assert data["providers"][2]["error"] == RATE_LIMIT
    assert data["quorum"] == {"families_answered": 2, "min_providers": 2, "met": True}
    assert Report.model_validate(data) == report


def test_json_is_stable_and_two_space_indented() -> None:
    text = render(make_report(), "json")
    assert text == render(make_report(), "json")
    assert text.startswith('{\n  "version": 1,\n  "run_id": "run-2024-abc",\n')
    assert text.endswith("}\n")


# --------------------------------------------------------------------------- text


def test_text_groups_posted_findings_by_file_sorted_by_line() -> None:
    text = render(make_report(), "text")
    heads = [line for line in text.splitlines() if re.match(r"^\S+:\d+", line)]
    assert [h.split()[0] for h in heads] == [
        "src/app/db.py:7",
        "src/app/db.py:42-44",
        "src/app/auth.py:10",
    ]
    assert heads[1].split()[1] == "HIGH" and heads[1].endswith("[F1]")
    assert "    consensus · reported by 2 of 2 families\n" in text
    assert "providers: openai/gpt-5.1, anthropic/claude-sonnet-4-5 · personas: correctness" in text
    assert (
        "    verified · reported by 1 of 2 families · confirmed by anthropic, google and qwen,\n"
        "      refuted by mistral" in text
    )
    assert "    Use a bound parameter instead." in text


def test_text_header_counts() -> None:
    first = render(make_report(), "text").splitlines()[0]
    assert first == (
        "consensus: 3 findings to post, 2 summary only, 1 rejected · providers answered 2/3 · "
        "$0.0713 · 41.2s"
    )


def test_text_not_posted_section_lists_what_it_counts_rejected_included() -> None:
    text = render(make_report(), "text")
    section = text.split("Not posted: 2 summary only, 1 rejected")[1]
    assert re.search(
        r"src/app/cache\.py:3 +MEDIUM +Cache never invalidated +\[F4\] — undecided: "
        r"voting cap reached",
        section,
    )
    assert "[F5] — unverified: low-severity singleton" in section
    assert re.search(r"Refuted null dereference +\[F\d+\] — rejected", section)


def test_text_footer_names_failed_provider_and_audit_trail() -> None:
    text = render(make_report(), "text")
    assert f"provider {GEMINI} failed: {RATE_LIMIT}" in text
    # One readable sentence per reason the path audit gave, most frequent first.
    dropped = [line for line in text.splitlines() if " dropped: " in line]
    assert dropped == [
        "5 findings dropped: line 400 is not in the diff of src/app/db.py",
        "2 findings dropped: evidence not found in the diff",
    ]
    assert "3 files skipped (not reviewed): 2 binary, 1 lockfile" in text
    assert (
        "2 secrets redacted before review: src/config.py:12 (aws-access-key), .env (generic-secret)"
        in text
    )
    assert "note: 2 replies were invalid at first" in text
    assert "ADVISORY" not in text


def test_text_quorum_not_met_is_loud() -> None:
    text = render(make_report(answered=1), "text")
    warning = "ADVISORY ONLY: only 1 family answered (min_providers: 2): nothing is posted inline"
    assert text.count(warning) == 2  # above the findings and again at the end
    assert text.splitlines()[2] == warning


def test_text_without_color_has_no_ansi_even_from_model_text() -> None:
    hostile = finding(
        1, Status.CONSENSUS, title="Evil \x1b[2J\x1b[31mtitle", body="x\x1b]0;pwn\x07y"
    )
    text = render(make_report([hostile]), "text", color=False)
    assert not ANSI.search(text) and "\x1b" not in text and "\x07" not in text
    assert "Evil title" in text


def test_text_with_color_styles_severity() -> None:
    text = render(make_report(), "text", color=True)
    assert "\x1b[31m\x1b[1mCRITICAL" in text
    assert "\x1b[33mMEDIUM" in text


def test_text_empty_result_says_so_with_context() -> None:
    text = render(make_report([], verification="skipped"), "text")
    assert "No findings reached consensus." in text
    assert "Not posted" not in text
    assert f"provider {GEMINI} failed" in text
    assert "verification skipped (--no-verify)" in text


def test_text_verification_not_run_is_noted() -> None:
    text = render(make_report(verification="not_available"), "text")
    assert (
        "verification not run (no model answered the review): 2 findings below consensus, "
        "summary only" in text
    )


def test_text_long_body_is_cut_after_six_lines() -> None:
    body = "\n".join(f"line {n}" for n in range(20))
    text = render(make_report([finding(1, Status.CONSENSUS, body=body)]), "text")
    assert "    line 5\n    …" in text and "line 6" not in text


# --------------------------------------------------------------------------- markdown


def table_columns(row: str) -> int:
    """Cells in a GFM table row, counting pipes the way cmark-gfm splits them."""
    pipes, index = 0, 0
    while index < len(row):
        if row[index] == "\\":
            index += 2
            continue
        pipes += row[index] == "|"
        index += 1
    return pipes - 1


def test_escape_markdown_text_neutralises_html_and_mentions() -> None:
    escaped = escape_markdown_text("<script>alert(1)</script> & @everyone ![x](http://evil/p.png)")
    assert "<" not in escaped and ">" not in escaped
    assert "&lt;script&gt;" in escaped and "&amp;" in escaped
    assert "@everyone" not in escaped and f"@{ZWJ}everyone" in escaped
    assert "![" not in escaped


def test_escape_markdown_text_leaves_code_alone_and_closes_fences() -> None:
    text = "use `a<b && @x` here\n```python\nif a < b: ping(@me)\n"
    escaped = escape_markdown_text(text)
    assert "`a<b && @x`" in escaped
    assert "if a < b: ping(@me)" in escaped
    assert escaped.endswith("\n```")


@pytest.mark.parametrize(
    "text",
    [
        "```x``` <img src=x onerror=alert(1)>",  # backticks in the info string: not a fence
        "- item\n  ```\nend of list\n  <script>alert(1)</script>",  # list closes the fence
    ],
)
def test_escape_markdown_text_does_not_trust_lookalike_fences(text: str) -> None:
    escaped = escape_markdown_text(text)
    assert "<img" not in escaped and "<script>" not in escaped


def test_markdown_escapes_model_text_everywhere() -> None:
    hostile = finding(
        1,
        Status.CONSENSUS,
        title="<script>alert(1)</script> @everyone",
        body="<img src=x onerror=alert(1)> cc @everyone </details>",
    )
    summary = finding(2, Status.UNDECIDED, title="<b>bold</b> @org/team", reason="<i>why</i>")
    md = render(make_report([hostile, summary]), "markdown")
    assert "<script>" not in md and "<img" not in md and "<b>" not in md and "<i>" not in md
    assert "&lt;script&gt;" in md
    assert "@everyone" not in md and "@org/team" not in md
    assert md.count("<details>") == md.count("</details>") == 1


def test_markdown_table_survives_pipes_and_newlines() -> None:
    titles = ["a | b | c", "multi\nline | title", "slash \\| pipe", "code `x | y`"]
    findings = [finding(n, Status.CONSENSUS, line=n, title=t) for n, t in enumerate(titles, 1)]
    md = render(make_report(findings), "markdown")
    rows = [line for line in md.splitlines() if line.startswith("| F")]
    assert len(rows) == 4
    assert all(table_columns(row) == 6 for row in rows)
    header = next(line for line in md.splitlines() if line.startswith("| ID"))
    assert table_columns(header) == 6


def test_markdown_sections() -> None:
    md = render(make_report(), "markdown")
    assert md.startswith("## consensus review\n")
    assert "**3 findings to post, 2 summary only, 1 rejected** · providers answered" in md
    assert "| F1 | high | `src/app/db.py:42-44` | SQL query built from user input |" in md
    assert "#### F2 · critical · `src/app/auth.py:10` · Token compared with ==" in md
    details = md.split("<details>")[1].split("</details>")[0]
    assert "<summary>Not posted: 2 summary only, 1 rejected</summary>" in details
    assert "undecided: voting cap reached" in details and "Refuted null" in details
    provider_rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(provider_rows) == 3
    assert "| `gemini/gemini-2.5-pro` | failed | 2 |" in md and "429 Too Many Requests" in md
    assert "- 5 findings dropped: line 400 is not in the diff of src/app/db.py" in md
    assert "- 2 findings dropped: evidence not found in the diff" in md
    assert "`src/config.py:12` (aws-access-key)" in md
    assert "[!WARNING]" not in md


def test_markdown_quorum_warning_is_an_alert() -> None:
    md = render(make_report(answered=1), "markdown")
    alert = md.split("> [!WARNING]\n")[1].splitlines()[0]
    assert alert.startswith("> **ADVISORY ONLY: only 1 family answered (min_providers: 2)")


def test_markdown_empty_result() -> None:
    md = render(make_report([]), "markdown")
    assert "No findings reached consensus." in md and "<details>" not in md


# --------------------------------------------------------------------------- sarif


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft7Validator
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("answered", [2, 1])
def test_sarif_validates_against_official_schema(
    validator: jsonschema.protocols.Validator, answered: int
) -> None:
    log = json.loads(render(make_report(answered=answered), "sarif"))
    errors = [error.message for error in validator.iter_errors(log)]
    assert errors == []
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1


def test_sarif_schema_rejects_a_broken_log(validator: jsonschema.protocols.Validator) -> None:
    log = json.loads(render(make_report(), "sarif"))
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(log)


def test_sarif_results_levels_and_fingerprints() -> None:
    log = json.loads(render(make_report(), "sarif"))
    results = {r["properties"]["id"]: r for r in log["runs"][0]["results"]}
    assert set(results) == {"F1", "F2", "F3", "F4", "F5"}  # F6 was rejected
    levels = {key: result["level"] for key, result in results.items()}
    assert levels == {"F1": "error", "F2": "error", "F3": "warning", "F4": "note", "F5": "note"}
    assert results["F4"]["properties"]["status"] == "undecided"
    first = results["F1"]
    assert first["partialFingerprints"] == {"consensus/v1": "fp0001"}
    assert first["ruleId"] == "consensus/bug"
    assert first["message"]["text"].startswith("SQL query built from user input\n\nThe query")
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/app/db.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 42, "endLine": 44}
    assert first["rank"] == 100.0
    assert first["properties"]["votes"] == {"for": 2, "of": 2}
    assert first["properties"]["providers"] == [GPT, CLAUDE]


def test_sarif_rules_one_per_category_and_indexes_match() -> None:
    run = json.loads(render(make_report(), "sarif"))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [f"consensus/{c.value}" for c in Category]
    assert all(rule["properties"]["tags"] and rule["help"]["text"] for rule in rules)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["tool"]["driver"]["name"] == "consensus"


def test_sarif_invocation_reports_quorum_and_failed_providers() -> None:
    ok = json.loads(render(make_report(), "sarif"))["runs"][0]["invocations"][0]
    assert ok["executionSuccessful"] is True
    assert [n["message"]["text"] for n in ok["toolExecutionNotifications"]] == [
        f"provider {GEMINI} failed: {RATE_LIMIT}"
    ]
    bad = json.loads(render(make_report(answered=1), "sarif"))["runs"][0]["invocations"][0]
    assert bad["executionSuccessful"] is False
    assert len(bad["toolExecutionNotifications"]) == 3
    assert "quorum not met" in bad["toolExecutionNotifications"][-1]["message"]["text"]


def test_sarif_uri_is_percent_encoded(validator: jsonschema.protocols.Validator) -> None:
    report = make_report([finding(1, Status.CONSENSUS, path="docs/my notes#1.md")])
    log = json.loads(render(report, "sarif"))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uri"] == "docs/my%20notes%231.md"
    assert validator.is_valid(log)


def test_text_says_who_verified_a_finding_by_family_and_what_the_first_judge_said() -> None:
    from consensus.model.base import VerdictKind
    from consensus.model.findings import Verification, Vote

    record = Verification(
        confirmed=2,
        ahead_by=2,
        votes=(
            Vote(
                model="openai/llama-test",
                family="meta",
                role="inspector",
                verdict=VerdictKind.CONFIRMED,
                reason="ids[i] with i == len(ids) raises IndexError.",
            ),
            Vote(
                model="openai/gpt-5.1",
                family="openai",
                role="voter",
                verdict=VerdictKind.CONFIRMED,
                reason="Yes.",
            ),
        ),
    )
    text = render(make_report([finding(1, Status.VERIFIED, verification=record)]), "text")
    assert (
        "    first judge openai/llama-test: confirmed — ids[i] with i == len(ids) raises "
        "IndexError." in text
    )
    assert "    verified · reported by 2 of 2 families · confirmed by meta and openai\n" in text
    assert "other judges" not in text and "votes:" not in text


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_undecided_reason_does_not_repeat_its_status(fmt: str) -> None:
    reason = (
        "undecided: 0 confirmed, 0 against after 7 votes (cap); verdicts malformed (14 discarded)"
    )
    report = make_report([finding(1, Status.UNDECIDED, reason=reason)])
    rendered = render(report, fmt)
    assert "undecided: undecided:" not in rendered
    assert "undecided: 0 confirmed, 0 against after 7 votes (cap); verdicts malformed" in rendered


def test_an_unknown_cost_is_unknown_never_zero() -> None:
    report = make_report(stats=Stats(calls=3, cost_usd=None))
    for fmt in ("text", "markdown"):
        headline = "\n".join(render(report, fmt).splitlines()[:4])
        assert "cost unknown" in headline and "$0" not in headline


# --------------------------------------------------------------------------- the panel


def panel_estimate() -> PanelEstimate:
    anthropic = FamilyEstimate(
        family="anthropic",
        tpr=Rate(value=0.91, low=0.7, high=0.98, n=14),
        tnr=Rate(value=0.83, low=0.55, high=0.95, n=12),
        precision=Rate(value=0.62, low=0.3, high=0.86, n=8),
        judged=9,
        rejected=5,
        refuted_rejected=4,
        verified=3,
        confirmed_verified=3,
        labelled=40,
        pooled=120.4,
    )
    return PanelEstimate(families=(anthropic,), claims=14, judged=9)


def test_every_output_shows_each_familys_estimate_and_what_it_rests_on() -> None:
    report = make_report(panel=panel_estimate())
    rests = (
        "anthropic judged 9 findings here: refuted 4 of the 5 the judges rejected, confirmed 3 "
        "of the 3 they verified; 40 labelled findings; 120 findings of earlier runs"
    )
    text = render(report, "text")
    assert "Judges, as this run's votes show them (9 of 14 findings judged):" in text
    assert "anthropic: confirms a real finding 0.91 [0.70, 0.98] · doubts a false one 0.83 " in text
    assert rests in text
    markdown = render(report, "markdown")
    assert "<summary>Judges, as this run's votes show them</summary>" in markdown
    assert (
        f"| `anthropic` | 0.91 [0.70, 0.98] | 0.83 [0.55, 0.95] | 0.62 [0.30, 0.86] | {rests} |"
        in (markdown)
    )
    assert "A blind spot every judge shares cannot show in votes" in markdown
    assert "Judges, as this run's votes show them" not in render(make_report(), "text")
