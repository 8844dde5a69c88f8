"""Markdown report: a PR comment or a `$GITHUB_STEP_SUMMARY` page.

Everything a model wrote is untrusted: it passes through the sanitiser (render/untrusted.py),
so no raw HTML reaches the page, no `@mention` pings anyone, no image loads, no link leads
elsewhere, and an unclosed code fence cannot swallow the rest of the comment. Table cells
are flattened to one line and their pipes escaped, so a title cannot add a column.
"""

from __future__ import annotations

import re

from consensus import __version__
from consensus.model.base import Status
from consensus.model.panel import PanelEstimate
from consensus.model.report import Report, ReportFinding
from consensus.render.estimate_words import HEAD, NOTE, TITLE, panel_rows
from consensus.render.text import (
    agreement_text,
    context_lines,
    decided_text,
    format_cost,
    incomplete_lines,
    location,
    not_posted_heading,
    nothing_found,
    providers_answered,
    quorum_warning,
    status_text,
    tally,
    unreviewed_lines,
)
from consensus.render.untrusted import ZWJ as ZWJ
from consensus.render.untrusted import code as code
from consensus.render.untrusted import escape_line as escape_line
from consensus.render.untrusted import escape_markdown_text as escape_markdown_text

_PIPE = re.compile(r"(\\*)\|")
TABLE_HEADER = ("ID", "Severity", "Location", "Finding", "Agreement", "Status")


def cell(text: str, *, raw: bool = False) -> str:
    """One table cell: a single line, pipes escaped (an odd run of backslashes doubled)."""
    flat = " ".join(text.split()) if raw else escape_line(text)

    def escape_pipe(match: re.Match[str]) -> str:
        slashes = match.group(1)
        return slashes + ("\\" if len(slashes) % 2 else "") + "\\|"

    return _PIPE.sub(escape_pipe, flat)


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def findings_table(findings: list[ReportFinding], *, with_reason: bool) -> list[str]:
    """`with_reason`: the status says what settled it (for findings not posted)."""
    rows = [row(list(TABLE_HEADER)), row(["---"] * len(TABLE_HEADER))]
    for finding in findings:
        status = decided_text(finding) if with_reason else status_text(finding)
        if finding.also_reported:
            status += f" · {finding.also_reported}"
        rows.append(
            row(
                [
                    finding.id,
                    finding.severity.value,
                    cell(code(location(finding)), raw=True),
                    cell(finding.title),
                    agreement_text(finding),
                    cell(status),
                ]
            )
        )
    return rows


def _details(finding: ReportFinding) -> list[str]:
    providers = ", ".join(code(provider) for provider in finding.providers)
    personas = ", ".join(finding.personas)
    title = escape_line(finding.title)
    return [
        f"#### {finding.id} · {finding.severity.value} · {code(location(finding))} · {title}",
        "",
        f"{finding.category.value} · agreement {agreement_text(finding)} · {providers}"
        f" · personas: {escape_line(personas)} · {status_text(finding)}",
        "",
        escape_markdown_text(finding.body.strip()),
        "",
    ]


def panel_block(panel: PanelEstimate) -> list[str]:
    """Each family's estimated rates, folded: what the verification weighed votes by."""
    rows = [row(list(HEAD)), row(["---"] * len(HEAD))]
    rows += [
        row([code(r[0]), *(cell(c, raw=True) for c in r[1:4]), cell(r[4])])
        for r in panel_rows(panel)
    ]
    return ["<details>", f"<summary>{TITLE}</summary>", "", *rows, "", escape_line(NOTE), "",
            "</details>"]  # fmt: skip


def providers_table(report: Report) -> list[str]:
    header = ["Provider", "Status", "Calls", "Not sent", "Tokens in / out", "Cost", "Error"]
    rows = [row(header), row(["---"] * len(header))]
    for provider in report.providers:
        rows.append(
            row(
                [
                    cell(code(provider.model), raw=True),
                    provider.status,
                    str(provider.calls),
                    str(provider.not_sent),
                    f"{provider.tokens_in:,} / {provider.tokens_out:,}",
                    format_cost(provider.cost_usd),
                    cell(provider.error or ""),
                ]
            )
        )
    return rows


def incomplete_block(report: Report) -> list[str]:
    """The incomplete review's opening, as a warning callout (empty when complete)."""
    lines = incomplete_lines(report)
    if not lines:
        return []
    headline, fix = lines
    return ["> [!WARNING]", f"> **{escape_line(headline)}**", f"> {escape_line(fix)}", ""]


def render_markdown(report: Report) -> str:
    posted = [f for f in report.findings if f.status.posted]
    summary_only = [
        f for f in report.findings if not f.status.posted and f.status is not Status.REJECTED
    ]
    rejected = [f for f in report.findings if f.status is Status.REJECTED]
    answered, total = providers_answered(report)
    workflow = f" · workflow {code(report.workflow)}" if report.workflow else ""
    out = [
        f"## consensus review{workflow}",
        "",
        *incomplete_block(report),
        f"**{tally(report)}** · providers answered {answered}/{total}"
        f" · {format_cost(report.stats.cost_usd)} · {report.stats.wall_s:.1f}s",
        "",
    ]
    warning = quorum_warning(report)
    if warning:
        out += ["> [!WARNING]", f"> **{escape_line(warning)}**", ""]

    if posted:
        out += [*findings_table(posted, with_reason=False), "", "### Details", ""]
        for finding in posted:
            out += _details(finding)
    else:
        out += [nothing_found(report), ""]

    if summary_only or rejected:
        out += [
            "<details>",
            f"<summary>{not_posted_heading(len(summary_only), len(rejected))}</summary>",
            "",
            *findings_table([*summary_only, *rejected], with_reason=True),
            "",
            "</details>",
            "",
        ]

    if report.providers:
        out += ["### Providers", "", *providers_table(report), ""]
    if report.panel is not None and report.panel.judged:
        out += [*panel_block(report.panel), ""]

    places = [
        f"{code(f'{r.path}:{r.line}' if r.line else r.path)} ({r.kind})" for r in report.redactions
    ]
    audit = [escape_line(line) for line in context_lines(report, places=places)]
    if audit:
        out += ["### Audit", "", *(f"- {line}" for line in audit), ""]
    unreviewed = unreviewed_lines(report)
    if unreviewed:
        out += [
            "<details>",
            f"<summary>{escape_line(unreviewed[0])}</summary>",
            "",
            *(f"- {code(line.strip())}" for line in unreviewed[1:]),
            "",
            "</details>",
            "",
        ]
    out.append(f"<sub>run {code(report.run_id)} · consensus {__version__}</sub>")
    return "\n".join(out) + "\n"
