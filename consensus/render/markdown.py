"""Markdown report: a PR comment or a `$GITHUB_STEP_SUMMARY` page.

Everything a model wrote is untrusted: it passes through `escape_markdown_text`, so no
raw HTML reaches the page, no `@mention` pings anyone, no image loads from elsewhere,
and an unclosed code fence cannot swallow the rest of the comment. Table cells are
flattened to one line and their pipes escaped, so a title cannot add a column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from consensus import __version__
from consensus.models import Report, ReportFinding, Status
from consensus.render.text import (
    checked_consensus,
    context_lines,
    format_cost,
    location,
    plural,
    providers_answered,
    quorum_warning,
    status_text,
)

ZWJ = "\u200d"
# A backtick fence's info string holds no backtick (CommonMark), else the line is inline code.
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})")
_BACKTICKS = re.compile(r"`+")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_PIPE = re.compile(r"(\\*)\|")
_URL = re.compile(r"(?i)\b(https?)://[^\s<>()\[\]`]*")
_SCHEME = re.compile(r"(?i)(https?)://")
_WWW = re.compile(r"(?i)(?<![\w.-])www\.")
_PROTOCOL_RELATIVE = re.compile(r"\]\(\s*/(?=/)")
TABLE_HEADER = ("ID", "Severity", "Location", "Finding", "Agreement", "Status")


def _escape_plain(text: str, allowed: Sequence[str] = ()) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MENTION.sub("@" + ZWJ, text).replace("![", "!\\[")
    return _defang_links(text, allowed)


def _defang_links(text: str, allowed: Sequence[str]) -> str:
    """Links to anywhere but `allowed` prefixes stop being links: a zero-width joiner after
    the scheme (or in `www.`) keeps them readable and unclickable, GitHub's autolinker too."""
    out: list[str] = []
    pos = 0
    for match in _URL.finditer(text):
        out.append(_WWW.sub("www" + ZWJ + ".", text[pos : match.start()]))
        url = match.group()
        prefix = next((p for p in allowed if url.lower().startswith(p.lower())), "")
        # Every other scheme in it too: "https://https://evil" must not link from the second.
        rest = _SCHEME.sub(lambda m: m.group(1) + ZWJ + "://", url[len(prefix) :])
        out.append(url[: len(prefix)] + rest)
        pos = match.end()
    out.append(_WWW.sub("www" + ZWJ + ".", text[pos:]))
    return _PROTOCOL_RELATIVE.sub("](/" + ZWJ, "".join(out))


def _escape_line(line: str, allowed: Sequence[str] = ()) -> str:
    """Escape one line outside its code spans; a code span is kept exactly as written."""
    out: list[str] = []
    pos = 0
    while (opening := _BACKTICKS.search(line, pos)) is not None:
        run = opening.group()
        closing = next(
            (m for m in _BACKTICKS.finditer(line, opening.end()) if m.group() == run), None
        )
        if closing is None:  # unmatched backticks are literal text
            out.append(_escape_plain(line[pos : opening.end()], allowed))
            pos = opening.end()
            continue
        out.append(_escape_plain(line[pos : opening.start()], allowed))
        out.append(line[opening.start() : closing.end()])
        pos = closing.end()
    out.append(_escape_plain(line[pos:], allowed))
    return "".join(out)


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


def escape_markdown_text(text: str, *, allowed_links: Sequence[str] = ()) -> str:
    """Model text made safe to embed in a GitHub comment, code blocks and spans untouched.

    Links survive only when they start with one of `allowed_links` (the repository's own
    GitHub pages); any other URL is defanged.

    Fenced code is kept raw only while it surely is code: a non-blank line indented less
    than its opening fence (a list item ending under it) closes the fence for us, so the
    worst a misjudged block suffers is escaping that shows, never HTML that renders.
    """
    out: list[str] = []
    fence: re.Pattern[str] | None = None
    marker, depth = "", 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if fence is not None and line.strip() and _indent(line) < depth:
            fence = None
        if fence is not None:
            out.append(line)
            if fence.match(line):
                fence = None
        elif opening := _FENCE_OPEN.match(line):
            depth, marker = len(opening.group(1)), opening.group(2)
            fence = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            out.append(line)
        else:
            out.append(_escape_line(line, allowed_links))
    if fence is not None:  # close it, or the rest of the comment would render as code
        out.append(marker)
    return "\n".join(out)


def code(text: str) -> str:
    """`text` as one inline code span, whatever backticks it holds."""
    text = " ".join(text.split())
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def cell(text: str, *, raw: bool = False) -> str:
    """One table cell: a single line, pipes escaped (an odd run of backslashes doubled)."""
    flat = " ".join(text.split())
    flat = flat if raw else escape_markdown_text(flat)

    def escape_pipe(match: re.Match[str]) -> str:
        slashes = match.group(1)
        return slashes + ("\\" if len(slashes) % 2 else "") + "\\|"

    return _PIPE.sub(escape_pipe, flat)


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def agreement(finding: ReportFinding) -> str:
    """ "3/4 (75%)", or "3/4 · verified 3–0" for consensus that verification confirmed."""
    checked = checked_consensus(finding)
    tail = f" · {checked}" if checked else f" ({finding.agreement:.0%})"
    return f"{finding.votes.for_}/{finding.votes.of}{tail}"


def findings_table(findings: list[ReportFinding], *, with_reason: bool) -> list[str]:
    rows = [row(list(TABLE_HEADER)), row(["---"] * len(TABLE_HEADER))]
    for finding in findings:
        status = status_text(finding)
        if with_reason and finding.reason:
            status = f"{status}: {finding.reason}"
        rows.append(
            row(
                [
                    finding.id,
                    finding.severity.value,
                    cell(code(location(finding)), raw=True),
                    cell(finding.title),
                    agreement(finding),
                    cell(status),
                ]
            )
        )
    return rows


def _details(finding: ReportFinding) -> list[str]:
    providers = ", ".join(code(provider) for provider in finding.providers)
    personas = ", ".join(finding.personas)
    title = escape_markdown_text(" ".join(finding.title.split()))
    return [
        f"#### {finding.id} · {finding.severity.value} · {code(location(finding))} · {title}",
        "",
        f"{finding.category.value} · agreement {agreement(finding)} · {providers}"
        f" · personas: {escape_markdown_text(personas)} · {status_text(finding)}",
        "",
        escape_markdown_text(finding.body.strip()),
        "",
    ]


def providers_table(report: Report) -> list[str]:
    header = ["Model", "Status", "Calls", "Tokens in / out", "Cost", "Error"]
    rows = [row(header), row(["---"] * len(header))]
    for provider in report.providers:
        rows.append(
            row(
                [
                    cell(code(provider.model), raw=True),
                    provider.status,
                    str(provider.calls),
                    f"{provider.tokens_in:,} / {provider.tokens_out:,}",
                    format_cost(provider.cost_usd),
                    cell(provider.error or ""),
                ]
            )
        )
    return rows


def render_markdown(report: Report) -> str:
    posted = [f for f in report.findings if f.status.posted]
    summary_only = [
        f for f in report.findings if not f.status.posted and f.status is not Status.REJECTED
    ]
    rejected = sum(1 for f in report.findings if f.status is Status.REJECTED)
    answered, total = providers_answered(report)
    rejected_note = f" · {rejected} rejected by verification" if rejected else ""
    out = [
        "## consensus review",
        "",
        f"**{plural(len(posted), 'finding')} to post** · {len(summary_only)} in summary"
        f"{rejected_note} · providers answered {answered}/{total}"
        f" · {format_cost(report.stats.cost_usd)} · {report.stats.wall_s:.1f}s",
        "",
    ]
    warning = quorum_warning(report)
    if warning:
        out += ["> [!WARNING]", f"> **{escape_markdown_text(warning)}**", ""]

    if posted:
        out += [*findings_table(posted, with_reason=False), "", "### Details", ""]
        for finding in posted:
            out += _details(finding)
    else:
        out += ["No findings reached consensus.", ""]

    if summary_only:
        out += [
            "<details>",
            f"<summary>{plural(len(summary_only), 'finding')} not posted (summary only)</summary>",
            "",
            *findings_table(summary_only, with_reason=True),
            "",
            "</details>",
            "",
        ]

    if report.providers:
        out += ["### Providers", "", *providers_table(report), ""]

    places = [
        f"{code(f'{r.path}:{r.line}' if r.line else r.path)} ({r.kind})" for r in report.redactions
    ]
    audit = [escape_markdown_text(line) for line in context_lines(report, places=places)]
    if audit:
        out += ["### Audit", "", *(f"- {line}" for line in audit), ""]
    out.append(f"<sub>run {code(report.run_id)} · consensus {__version__}</sub>")
    return "\n".join(out) + "\n"
