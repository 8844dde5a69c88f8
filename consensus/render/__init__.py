"""Renderers: each a pure function from a Report to the text of one output format.

text      what a developer reads in a terminal (`color=True` for a TTY)
json      the report (findings, providers, stats, then the audit trail), stable keys
markdown  a PR comment or $GITHUB_STEP_SUMMARY page; model text escaped
sarif     SARIF 2.1.0 for code-scanning tools
"""

from __future__ import annotations

from consensus.errors import UsageError
from consensus.model.report import Report
from consensus.render.jsonreport import render_json
from consensus.render.markdown import render_markdown
from consensus.render.sarif import render_sarif
from consensus.render.text import render_text

FORMATS = ("text", "json", "markdown", "sarif")

__all__ = ["FORMATS", "render", "render_json", "render_markdown", "render_sarif", "render_text"]


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    """The report in format `fmt`; `color` applies to text only."""
    if fmt == "text":
        return render_text(report, color=color)
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "sarif":
        return render_sarif(report)
    raise UsageError(
        f"unknown output format {fmt!r}", fix=f"use --format with one of: {', '.join(FORMATS)}"
    )
