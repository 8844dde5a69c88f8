"""Terminal report: what a developer reads after `consensus review`.

Posted findings come first, grouped by file like a linter's output
(`path:line  SEVERITY  title`), then the findings kept out of the review, then the
context a reader needs to trust the result: failed providers, quorum, the path
audit, skipped files, redactions and verification.

The helpers that phrase this context (`context_lines` and friends) are shared with
the Markdown renderer, so both say the same thing in the same words.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable

import click

from consensus.decide.evidence import judged_by
from consensus.model.base import Severity, Status
from consensus.model.report import Report, ReportFinding
from consensus.render.panel import panel_lines

BODY_WIDTH = 88
BODY_MAX_LINES = 6
REDACTIONS_LISTED = 5
SKIPPED_LISTED = 50

_SEVERITY_STYLE: dict[Severity, tuple[str, bool]] = {  # (colour, bold)
    Severity.CRITICAL: ("red", True),
    Severity.HIGH: ("red", False),
    Severity.MEDIUM: ("yellow", False),
    Severity.LOW: ("cyan", False),
    Severity.INFO: ("blue", False),
}
# Model text is untrusted: escape sequences in it could repaint or hide the terminal.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # any other control character
)


# --------------------------------------------------------------------------- shared phrasing


def plural(count: int, singular: str, many: str | None = None) -> str:
    return f"{count} {singular if count == 1 else (many or singular + 's')}"


def tally(report: Report) -> str:
    """The run's findings counted the same way in every output: "2 to post, 1 summary only,
    1 rejected" (summary only: listed, never posted inline; rejected: refuted by the
    judges, kept for the record)."""
    posted = sum(1 for f in report.findings if f.status.posted)
    rejected = sum(1 for f in report.findings if f.status is Status.REJECTED)
    listed = len(report.findings) - posted - rejected
    return f"{plural(posted, 'finding')} to post, {listed} summary only, {rejected} rejected"


def format_cost(usd: float | None) -> str:
    """A cost, or "unknown" when a model without a known price was called: never $0."""
    if usd is None:
        return "cost unknown"
    return f"${usd:.2f}" if usd >= 1 else f"${usd:.4f}"


def incomplete_lines(report: Report) -> list[str]:
    """The words every output of an incomplete review starts with: what was not reviewed
    and why, then the exact flag or setting that completes it. Empty when complete."""
    if report.incomplete is None:
        return []
    return [report.incomplete.headline, report.incomplete.fix]


def unreviewed_lines(report: Report, limit: int = SKIPPED_LISTED) -> list[str]:
    """The files no model reviewed, riskiest first (the budget spent on those first)."""
    if report.incomplete is None or not report.incomplete.unreviewed:
        return []
    paths = report.incomplete.unreviewed
    out = [f"Not reviewed by any model ({len(paths)}, riskiest first):"]
    out += [f"  {path}" for path in paths[:limit]]
    if len(paths) > limit:
        out.append(f"  … and {len(paths) - limit} more (--format json lists them all)")
    return out


def nothing_found(report: Report) -> str:
    """What to say when nothing is posted: never a bare "no findings" for a partial review."""
    if report.incomplete is not None:
        return "No findings reached consensus in what was reviewed; the review is incomplete."
    return "No findings reached consensus."


def reason_text(finding: ReportFinding) -> str:
    """A finding's reason without repeating its status ("undecided: undecided: …")."""
    prefix = f"{finding.status.value}: "
    reason = finding.reason
    return reason[len(prefix) :] if reason.startswith(prefix) else reason


def location(finding: ReportFinding) -> str:
    end = f"-{finding.end_line}" if finding.end_line > finding.line else ""
    return f"{finding.path}:{finding.line}{end}"


def agreement_text(finding: ReportFinding) -> str:
    checked = checked_consensus(finding)
    tail = f" · {checked}" if checked else f" ({finding.agreement:.2f})"
    return f"{finding.votes.for_}/{finding.votes.of}{tail}"


def checked_consensus(finding: ReportFinding) -> str | None:
    """ "verified: confirmed by qwen" for a consensus finding verification checked and kept."""
    record = finding.verification
    if finding.status is not Status.CONSENSUS or record is None or not record.votes:
        return None
    chance = f" · {record.belief:.2f}" if record.belief is not None else ""
    return f"verified: {judged_by(record.votes) or 'no verdict'}{chance}"


def status_text(finding: ReportFinding) -> str:
    """The status, with who judged it and how, by family."""
    record = finding.verification
    if record is None:
        return finding.status.value
    return f"{finding.status.value} ({judged_by(record.votes) or 'no verdict'})"


def providers_answered(report: Report) -> tuple[int, int]:
    answered = sum(1 for provider in report.providers if provider.status == "ok")
    return answered, len(report.providers)


def quorum_warning(report: Report) -> str | None:
    quorum = report.quorum
    if quorum.met:
        return None
    answered = quorum.families_answered
    who = (
        f"only {plural(answered, 'provider family', 'provider families')}"
        if answered
        else ("no provider family")
    )
    return (
        f"ADVISORY ONLY: {who} answered (min {quorum.min_providers}) — this is not a clean review"
    )


def _tally(reasons: Iterable[str]) -> str:
    counts = Counter(reasons)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{count} {reason}" for reason, count in ordered)


def dropped_summary(report: Report) -> list[str]:
    """One sentence per reason the path audit gave: "4 findings dropped: line 278 is not
    in the diff of src/app.py", most frequent first."""
    counts = Counter(item.reason for item in report.dropped_findings)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [f"{plural(count, 'finding')} dropped: {reason}" for reason, count in ordered]


def skipped_summary(report: Report) -> str | None:
    skipped = report.skipped_files
    if not skipped:
        return None
    reasons = _tally(item.reason for item in skipped)
    return f"{plural(len(skipped), 'file')} skipped (not reviewed): {reasons}"


def redaction_places(report: Report) -> list[str]:
    """`path:line (kind)` for each redaction; never the value, which the report never holds."""
    return [
        f"{item.path}:{item.line} ({item.kind})" if item.line else f"{item.path} ({item.kind})"
        for item in report.redactions
    ]


def redaction_summary(report: Report, places: list[str] | None = None) -> str | None:
    if not report.redactions:
        return None
    shown = (places if places is not None else redaction_places(report))[:REDACTIONS_LISTED]
    more = len(report.redactions) - len(shown)
    tail = f", … and {more} more" if more > 0 else ""
    count = plural(len(report.redactions), "secret")
    return f"{count} redacted before review: {', '.join(shown)}{tail}"


def verification_line(report: Report) -> str | None:
    if report.verification in ("done", "not_needed"):
        return None
    waiting = report.stats.undecided + report.stats.unverified
    listed = f"; {plural(waiting, 'finding')} below consensus listed, not posted" if waiting else ""
    if report.verification == "skipped":
        return f"verification skipped (--no-verify){listed}"
    return (
        f"verification not run: the inspector and redundancy voting are not in this version{listed}"
    )


def context_lines(report: Report, *, places: list[str] | None = None) -> list[str]:
    """Audit-trail lines in a fixed order, without the quorum warning or provider errors.

    `places` overrides how redactions are named (Markdown puts them in code spans).
    """
    lines = [
        *dropped_summary(report),
        skipped_summary(report),
        redaction_summary(report, places),
        verification_line(report),
    ]
    return [line for line in lines if line] + [f"note: {note}" for note in report.notes]


# --------------------------------------------------------------------------- terminal output


def clean(text: str) -> str:
    """Model text without control characters or escape sequences (newlines and tabs kept)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def _wrap_body(body: str) -> list[str]:
    lines: list[str] = []
    for paragraph in clean(body).strip().split("\n"):
        indent = paragraph[: len(paragraph) - len(paragraph.lstrip())].replace("\t", "    ")
        wrapped = textwrap.wrap(
            paragraph.strip(),
            width=BODY_WIDTH - 4,
            initial_indent=indent,
            subsequent_indent=indent,
        ) or [""]
        if wrapped == [""] and (not lines or lines[-1] == ""):
            continue
        lines.extend(wrapped)
    if len(lines) > BODY_MAX_LINES:
        lines = [*lines[:BODY_MAX_LINES], "…"]
    return ["    " + line if line else "" for line in lines]


def _verification_lines(finding: ReportFinding) -> list[str]:
    """Who checked a finding and what the inspector said, one line each."""
    record = finding.verification
    if record is None or not record.votes:
        return []
    inspector = next((v for v in record.votes if v.role == "inspector"), None)
    lines = []
    if inspector is not None:
        said = inspector.verdict.value if inspector.verdict else "no answer"
        own = " (self: its family reported it)" if inspector.self_vote else ""
        lines.append(f"inspector {inspector.model}{own}: {said} — {clean(inspector.reason)}")
    voters = [v for v in record.votes if v.role == "voter"]
    if voters:
        tally = ", ".join(
            f"{v.model}{' (self)' if v.self_vote else ''} "
            f"{v.verdict.value if v.verdict else 'no answer'}"
            for v in voters
        )
        lines.append(f"votes: {tally}")
    return ["    " + textwrap.shorten(line, BODY_WIDTH, placeholder=" …") for line in lines]


def render_text(report: Report, *, color: bool = False) -> str:
    def style(text: str, fg: str | None = None, bold: bool = False) -> str:
        return click.style(text, fg=fg, bold=bold or None) if color else text

    def severity(finding: ReportFinding) -> str:
        fg, bold = _SEVERITY_STYLE[finding.severity]
        return style(finding.severity.value.upper().ljust(8), fg=fg, bold=bold)

    posted = [f for f in report.findings if f.status.posted]
    summary_only = [
        f for f in report.findings if not f.status.posted and f.status is not Status.REJECTED
    ]
    rejected = [f for f in report.findings if f.status is Status.REJECTED]
    answered, total = providers_answered(report)
    opening = incomplete_lines(report)
    out = [style(line, fg="red", bold=True) for line in opening[:1]] + opening[1:]
    out += [
        style(
            f"consensus{f' (workflow {report.workflow})' if report.workflow else ''}: ", bold=True
        )
        + tally(report)
        + f" · providers answered {answered}/{total}"
        + f" · {format_cost(report.stats.cost_usd)} · {report.stats.wall_s:.1f}s",
        "",
    ]
    warning = quorum_warning(report)
    if warning:
        out += [style(warning, fg="red", bold=True), ""]

    if not posted:
        out += [nothing_found(report), ""]
    by_file: dict[str, list[ReportFinding]] = {}
    for finding in posted:
        by_file.setdefault(finding.path, []).append(finding)
    for findings in by_file.values():
        for finding in sorted(findings, key=lambda f: (f.line, f.end_line, f.id)):
            out.append(
                f"{style(clean(location(finding)), bold=True)}  {severity(finding)}  "
                f"{clean(finding.title)}  [{finding.id}]"
            )
            out.append(
                f"    agreement {agreement_text(finding)} · {', '.join(finding.providers)}"
                f" · personas: {', '.join(finding.personas)} · {status_text(finding)}"
            )
            out += [*_verification_lines(finding), *_wrap_body(finding.body), ""]

    if summary_only or rejected:
        heading = f"Not posted: {len(summary_only)} summary only, {len(rejected)} rejected"
        out.append(style(heading, bold=True))
        for finding in [*summary_only, *rejected]:
            reason = f": {clean(reason_text(finding))}" if finding.reason else ""
            out.append(
                f"  {clean(location(finding))}  {severity(finding)}  {clean(finding.title)}"
                f"  [{finding.id}] — {finding.status.value}{reason}"
            )
        out.append("")

    if report.panel is not None and report.panel.judged:
        out += [style(line, bold=n == 0) for n, line in enumerate(panel_lines(report.panel))]
        out.append("")
    out += _footer(report, style)
    return "\n".join(out).rstrip("\n") + "\n"


def _footer(report: Report, style: Callable[..., str]) -> list[str]:
    """What a reader needs to trust the result: failed providers, calls not sent, the
    audit trail, files no model read or skipped, and the warnings again at the end when a
    list of findings stands between them and the opening."""
    footer = [
        style(f"provider {p.model} {p.status}: {clean(p.error or 'no answer')}", fg="red")
        for p in report.providers
        if p.status != "ok"
    ]
    footer += [
        f"provider {p.model}: {plural(p.not_sent, 'call')} not sent"
        for p in report.providers
        if p.not_sent
    ]
    footer += [clean(line) for line in context_lines(report)]
    footer += [clean(line) for line in unreviewed_lines(report)]
    if not report.providers and report.skipped_files:
        footer += ["", style("Skipped (nothing was sent to a model):", bold=True)]
        shown = report.skipped_files[:SKIPPED_LISTED]
        footer += [f"  {clean(item.path)}: {clean(item.reason)}" for item in shown]
        if len(report.skipped_files) > len(shown):
            more = len(report.skipped_files) - len(shown)
            footer.append(f"  … and {more} more (--format json lists them all)")
    if any(f.status.posted for f in report.findings):  # said once more below a long list
        warning = quorum_warning(report)
        if warning:
            footer.append(style(warning, fg="red", bold=True))
        footer += [style(line, fg="red", bold=True) for line in incomplete_lines(report)[:1]]
    return footer
