"""SARIF 2.1.0 log: one run, one rule per category, one result per finding worth showing.

Findings that are posted (consensus, verified) keep their severity as the level; those
listed only in the summary (undecided, unverified) become notes; rejected findings are
left out. The fingerprint goes into `partialFingerprints`, so code-scanning tools match a
finding across runs as the PR comments do. The lines a judge cited for its verdict, checked
against the tree, are the result's `relatedLocations`.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from consensus import __version__
from consensus.model.base import Category, Severity, Status
from consensus.model.report import Report, ReportFinding

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/consensus-review/"
FINGERPRINT_KEY = "consensus/v1"
SRCROOT = "%SRCROOT%"

_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
_RULE_TEXT = {
    Category.BUG: ("Bug", "Logic errors, wrong results, crashes and broken edge cases."),
    Category.SECURITY: (
        "Security issue",
        "Vulnerabilities: injection, broken authentication or authorisation, leaked secrets,"
        " unsafe deserialisation and the like.",
    ),
    Category.PERFORMANCE: (
        "Performance issue",
        "Needless work, quadratic loops, blocking I/O on hot paths and unbounded memory growth.",
    ),
    Category.CONCURRENCY: (
        "Concurrency issue",
        "Races, deadlocks, unsafe shared state and missing synchronisation.",
    ),
    Category.API: (
        "API issue",
        "Breaking or inconsistent changes to public interfaces, contracts and formats.",
    ),
    Category.MAINTAINABILITY: (
        "Maintainability issue",
        "Code that is hard to read, change or reuse.",
    ),
    Category.TEST: ("Test issue", "Missing, wrong or flaky tests."),
    Category.DOCS: ("Documentation issue", "Missing, wrong or misleading documentation."),
}
_HELP = (
    "consensus sends the pull request's diff to several providers, each with several personas,"
    " and posts a finding only when enough families report it (consensus) or when the judges"
    " verify it. The result's properties give the agreement, the providers and personas that"
    " reported it and the judges' votes; `status` says whether it was posted (consensus,"
    " verified) or is summary only (undecided, unverified)."
)
_SHOWN = (Status.CONSENSUS, Status.VERIFIED, Status.UNDECIDED, Status.UNVERIFIED)


def rule_id(category: Category) -> str:
    return f"consensus/{category.value}"


def level(finding: ReportFinding) -> str:
    """error for critical/high, warning for medium, note for the rest and for unposted ones."""
    return _LEVEL[finding.severity] if finding.status.posted else "note"


def _rule(category: Category) -> dict[str, object]:
    name, description = _RULE_TEXT[category]
    tags = ["consensus", category.value] + (["security"] if category is Category.SECURITY else [])
    return {
        "id": rule_id(category),
        "name": name.title().replace(" ", ""),
        "shortDescription": {
            "text": f"{name} that several families reported or the judges verified"
        },
        "fullDescription": {"text": description},
        "help": {"text": f"{description}\n\n{_HELP}", "markdown": f"{description}\n\n{_HELP}"},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": list(dict.fromkeys(tags))},
    }


def _result(finding: ReportFinding, rule_index: int) -> dict[str, object]:
    properties: dict[str, object] = {
        "id": finding.id,
        "status": finding.status.value,
        "severity": finding.severity.value,
        "category": finding.category.value,
        "agreement": finding.agreement,
        "votes": {"for": finding.votes.for_, "of": finding.votes.of},
        "providers": list(finding.providers),
        "personas": list(finding.personas),
    }
    if finding.verification is not None:
        properties["verification"] = finding.verification.model_dump(mode="json")
    if finding.reason:
        properties["reason"] = finding.reason
    if finding.ungrounded:  # its line is not on the change, or its evidence is not there
        properties["ungrounded"] = finding.ungrounded
    if finding.analyzed_by:  # the static analyzers that reported it, each with its rule
        properties["analyzers"] = list(finding.analyzed_by)
    tags = [
        finding.category.value,
        finding.status.value,
        *(["ungrounded"] * bool(finding.ungrounded)),
    ]
    properties["tags"] = list(dict.fromkeys(tags))
    body = finding.body.strip()
    return {
        "ruleId": rule_id(finding.category),
        "ruleIndex": rule_index,
        "level": level(finding),
        "message": {"text": f"{finding.title}\n\n{body}" if body else finding.title},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {
                        "uri": quote(finding.path, safe="/"),
                        "uriBaseId": SRCROOT,
                    },
                    "region": {
                        "startLine": finding.line,
                        "endLine": max(finding.line, finding.end_line),
                    },
                }
            }
        ],
        **({"relatedLocations": cited} if (cited := _cited(finding)) else {}),
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "rank": round(min(max(finding.agreement, 0.0), 1.0) * 100, 1),
        "properties": properties,
    }


def _cited(finding: ReportFinding) -> list[dict[str, object]]:
    """Each checked citation of a grounded verdict, as a related location naming who cited
    it and for what."""
    record = finding.verification
    if record is None:
        return []
    cited: list[dict[str, object]] = []
    for vote in record.votes:
        if vote.verdict is None:
            continue
        for lines in vote.evidence:
            cited.append(
                {
                    "id": len(cited),
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": quote(lines.path, safe="/"),
                            "uriBaseId": SRCROOT,
                        },
                        "region": {
                            "startLine": lines.start_line,
                            "endLine": lines.end_line,
                            "snippet": {"text": lines.quote},
                        },
                    },
                    "message": {"text": f"cited by {vote.family} ({vote.verdict.value})"},
                }
            )
    return cited


def _notifications(report: Report) -> list[dict[str, object]]:
    notes: list[dict[str, object]] = [
        {
            "level": "error" if provider.status == "failed" else "warning",
            "message": {"text": f"provider {provider.model} {provider.status}: {provider.error}"},
            "descriptor": {"id": f"consensus/provider-{provider.status}"},
            "properties": {"model": provider.model, "family": provider.family},
        }
        for provider in report.providers
        if provider.status != "ok"
    ]
    if report.incomplete is not None:
        notes.insert(
            0,
            {
                "level": "error",
                "message": {"text": f"{report.incomplete.headline} {report.incomplete.fix}"},
                "descriptor": {"id": "consensus/incomplete"},
                "properties": {"unreviewed": report.incomplete.unreviewed},
            },
        )
    quorum = report.quorum
    if not quorum.met:
        notes.append(
            {
                "level": "error",
                "message": {
                    "text": f"quorum not met: {quorum.families_answered} famil"
                    f"{'y' if quorum.families_answered == 1 else 'ies'} answered"
                    f" (min_providers: {quorum.min_providers}); the findings are advisory"
                },
                "descriptor": {"id": "consensus/quorum-not-met"},
            }
        )
    return notes


def sarif_log(report: Report) -> dict[str, object]:
    """The SARIF log as plain JSON data."""
    categories = list(Category)
    results = [
        _result(finding, categories.index(finding.category))
        for finding in report.findings
        if finding.status in _SHOWN
    ]
    stats = report.stats
    run: dict[str, object] = {
        # First, so that an incomplete review says so in the log's opening lines.
        "properties": {
            **(
                {"incomplete": report.incomplete.model_dump(mode="json")}
                if report.incomplete
                else {}
            ),
            "run_id": report.run_id,
            "threshold": report.threshold,
            "verification": report.verification,
            "quorum": report.quorum.model_dump(mode="json"),
            "rejected": stats.rejected,
            "dropped": len(report.dropped_findings),
            "skipped_files": len(report.skipped_files),
            "redactions": len(report.redactions),
            "cost_usd": stats.cost_usd,
            "coverage": {c.path: c.providers for c in report.coverage},
        },
        "tool": {
            "driver": {
                "name": "consensus",
                "informationUri": INFORMATION_URI,
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(category) for category in categories],
            }
        },
        "invocations": [
            {
                "executionSuccessful": report.quorum.met and report.incomplete is None,
                "toolExecutionNotifications": _notifications(report),
            }
        ],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(report: Report) -> str:
    return json.dumps(sarif_log(report), indent=2) + "\n"
