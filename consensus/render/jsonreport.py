"""The JSON report, byte-stable for the same Report.

Keys come in a fixed order: the report's own fields (TOP_ORDER, FINDING_ORDER), then our
documented extras (the audit trail: quorum, skipped files, redactions, dropped findings
…) in the order the models declare them. `votes` is `{"for": n, "of": m}`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from consensus.model.report import Report

# The report's own fields, in this order (an incomplete review says so first); anything
# else follows in model order.
TOP_ORDER = ("version", "run_id", "incomplete", "findings", "providers", "stats")
FINDING_ORDER = (
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
)
PROVIDER_ORDER = (
    "model",
    "status",
    "error",
    "calls",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "latency_s",
)
STATS_ORDER = (
    "calls",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "wall_s",
    "clusters",
    "consensus",
    "verified",
    "rejected",
)
VOTES_ORDER = ("for", "of")


def _ordered(data: Mapping[str, object], first: Sequence[str]) -> dict[str, object]:
    head = {key: data[key] for key in first if key in data}
    return head | {key: value for key, value in data.items() if key not in head}


def _dump(model: BaseModel, first: Sequence[str]) -> dict[str, object]:
    return _ordered(model.model_dump(mode="json", by_alias=True), first)


def report_data(report: Report) -> dict[str, object]:
    """The report as plain JSON data, keys in the documented order."""
    findings = []
    for finding in report.findings:
        data = _dump(finding, FINDING_ORDER)
        data["votes"] = _dump(finding.votes, VOTES_ORDER)
        findings.append(data)
    top = _dump(report, TOP_ORDER)
    top["findings"] = findings
    top["providers"] = [_dump(provider, PROVIDER_ORDER) for provider in report.providers]
    top["stats"] = _dump(report.stats, STATS_ORDER)
    return top


def render_json(report: Report) -> str:
    return json.dumps(report_data(report), indent=2) + "\n"
