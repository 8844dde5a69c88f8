"""Terminal report: what a developer reads after `consensus review`.

Posted findings come first, grouped by file like a linter's output
(`path:line  SEVERITY  title`), then the findings not posted (summary only, rejected),
then the context a reader needs to trust the result: failed providers, quorum, the path
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
from consensus.model.base import FindingSource, Severity, Status
from consensus.model.report import Report, ReportFinding
from consensus.render.estimate_words import panel_lines

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


def not_posted_heading(summary_only: int, rejected: int) -> str:
    """ "Not posted: 1 summary only, 3 rejected", a count of none left out."""
    counts = [(summary_only, "summary only"), (rejected, "rejected")]
    return "Not posted: " + ", ".join(f"{count} {name}" for count, name in counts if count)


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
    """ "2/4": the families that reported it of those that reviewed its file."""
    return f"{finding.votes.for_}/{finding.votes.of}"


def status_text(finding: ReportFinding) -> str:
    """The status, with who judged it and how, by family: "verified (confirmed by qwen)"."""
    record = finding.verification
    if record is None or not record.votes:
        return finding.status.value
    return f"{finding.status.value} ({judged_by(record.votes) or 'no verdict'})"


def decided_text(finding: ReportFinding) -> str:
    """What settled a finding's status, in the fewest words: who judged it and how, by
    family ("rejected (refuted by openai and qwen)", and what stopped the judges, if
    anything); a finding no judge answered on, its reason ("unverified: low severity, 1 of
    4 families")."""
    record = finding.verification
    if record is not None and record.votes:
        said = status_text(finding)
        return f"{said}: {record.note}" if record.note else said
    reason = reason_text(finding)
    return f"{finding.status.value}: {reason}" if reason else finding.status.value


def not_posted_text(finding: ReportFinding) -> str:
    """A finding not posted, in one line: what settled it, and how many families reported
    it when the judges' words do not say so."""
    record = finding.verification
    judged = record is not None and bool(record.votes)
    reported = f" · reported by {finding.votes.for_} of {finding.votes.of} families"
    return decided_text(finding) + (reported if judged else "")


def providers_answered(report: Report) -> tuple[int, int]:
    answered = sum(1 for provider in report.providers if provider.status == "ok")
    return answered, len(report.providers)


def quorum_warning(report: Report) -> str | None:
    quorum = report.quorum
    if quorum.met:
        return None
    answered = quorum.families_answered
    who = f"only {plural(answered, 'family', 'families')}" if answered else "no family"
    return (
        f"ADVISORY ONLY: {who} answered (min_providers: {quorum.min_providers}): nothing is "
        "posted inline"
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
    listed = f": {plural(waiting, 'finding')} below consensus, summary only" if waiting else ""
    if report.verification == "skipped":
        return f"verification skipped (--no-verify){listed}"
    return f"verification not run (no model answered the review){listed}"


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


def reporting_families(finding: ReportFinding) -> list[str]:
    """The families that reported it (models and static analyzers), sorted; none for a
    finding kept without its members (the report's providers line names who reported it)."""
    return sorted({m.family for m in finding.members if m.source is not FindingSource.SCAN})


def established_text(finding: ReportFinding) -> str:
    """How a finding was established, in the words of its PR comment, status first:
    "verified · reported by 1 of 4 families (openai) · confirmed by anthropic and google,
    refuted by qwen"."""
    names = reporting_families(finding)
    reported = f"reported by {finding.votes.for_} of {finding.votes.of} families"
    reported += f" ({', '.join(names)})" if names else ""
    if finding.found_by_scan:
        also = f" · also {reported}" if names else ""
        return f"{finding.status.value} · found by consensus's own scan of the diff{also}"
    record = finding.verification
    said = judged_by(record.votes) if record is not None else ""
    corroborated = [finding.also_reported] if finding.also_reported else []
    return " · ".join([finding.status.value, reported, *corroborated, *([said] if said else [])])


def _first_judge_line(finding: ReportFinding) -> list[str]:
    """Why the first judge voted as it did: the one reason worth reading in a terminal
    (`consensus explain` and the report hold every judge's)."""
    record = finding.verification
    first = next((v for v in record.votes if v.role == "inspector"), None) if record else None
    if first is None:
        return []
    said = first.verdict.value if first.verdict else "no answer"
    own = " (its reporter)" if first.self_vote else ""
    line = f"first judge {first.model}{own}: {said} — {clean(first.reason)}"
    return ["    " + textwrap.shorten(line, BODY_WIDTH, placeholder=" …")]


def _cited_lines(finding: ReportFinding) -> list[str]:
    """The lines each judge that looked cited, as consensus checked them (the first of
    each judge's): where its verdict rests."""
    record = finding.verification
    out = []
    for vote in record.votes if record else ():
        if vote.grounded and vote.verdict and vote.evidence:
            cited = vote.evidence[0]
            said = f"{vote.family} cites {cited.path}:{cited.start_line}: {clean(cited.quote)}"
            out.append("    " + textwrap.shorten(said, BODY_WIDTH, placeholder=" …"))
    return out


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
            out += textwrap.wrap(
                clean(established_text(finding)),
                BODY_WIDTH,
                break_on_hyphens=False,
                initial_indent="    ",
                subsequent_indent="      ",
            )
            out.append(
                f"    providers: {clean(', '.join(finding.providers))}"
                f" · personas: {clean(', '.join(finding.personas))}"
            )
            out += [*_first_judge_line(finding), *_cited_lines(finding)]
            out += [*_wrap_body(finding.body), ""]

    if summary_only or rejected:
        heading = not_posted_heading(len(summary_only), len(rejected))
        out.append(style(heading, bold=True))
        for finding in [*summary_only, *rejected]:
            out.append(
                f"  {clean(location(finding))}  {severity(finding)}  {clean(finding.title)}"
                f"  [{finding.id}] — {clean(not_posted_text(finding))}"
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
