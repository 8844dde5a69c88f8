"""The PR summary comment (and `$GITHUB_STEP_SUMMARY`): one page, edited in place each run.

First line: the hidden summary marker; last line: the hidden state (publish.py). Between
them: counts, the findings table with where each went, the findings not posted (summary
only, rejected) in a collapsed section, what was resolved since the last run, coverage
(files each provider saw, what was skipped and why), providers and cost. GitHub refuses
comments over 65,536 characters (GitLab's notes may be longer; the summary keeps one size
on both): the least needed sections give way first, then table rows, never the state.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus import __version__
from consensus.decide.evidence import judged_by
from consensus.model.base import Status
from consensus.model.host import CodeAt, HostWords
from consensus.model.report import Report, ReportFinding
from consensus.publish.inline import inline_body
from consensus.publish.plan import PlacedFinding, Placement, PublishPlan
from consensus.publish.spend import spend_text
from consensus.publish.state import TrackedFinding, encode_state
from consensus.publish.state_section import command_section
from consensus.publish.thread import SUMMARY_MARKER
from consensus.publish.workflow_section import end_marker, start_marker
from consensus.render.markdown import (
    cell,
    findings_table,
    incomplete_block,
    providers_table,
    row,
)
from consensus.render.text import (
    agreement_text,
    context_lines,
    format_cost,
    location,
    not_posted_heading,
    plural,
    providers_answered,
    quorum_warning,
)
from consensus.render.untrusted import code, escape_line

GITHUB_LIMIT = 65_536
BUDGET = 60_000  # room left for the state line and a safety margin
_WHERE = {
    Placement.INLINE: "inline (new)",
    Placement.INLINE_EARLIER: "inline (earlier run)",
    Placement.OVER_LIMIT: "here",
    Placement.NOT_ON_DIFF: "here",
    Placement.REJECTED_BY_GITHUB: "here",
    Placement.REFUSED_EARLIER: "here",
    Placement.NO_QUORUM: "here",
    Placement.SUPPRESSED: "here",
    Placement.MOVED: "here",
}
OMITTED = (
    "*(omitted: the summary stays within GitHub's 65,536-character limit for a comment, on "
    "every host; the job's step summary and the JSON report have everything)*"
)


def _open(plan: PublishPlan) -> list[PlacedFinding]:
    return [p for p in plan.placed if p.placement in _WHERE]


def _where(placed: PlacedFinding) -> str:
    where = _WHERE[placed.placement]
    where = f"{where}: {placed.note}" if placed.note else where
    carried = placed.finding.carried_from
    return f"{where} · carried from {carried[:7]}" if carried else where


def _carried(report: Report) -> list[str]:
    """The line under the counts when earlier decisions were carried (publish/carry.py)."""
    carried = report.carried
    if carried is None:
        return []
    heads = ", ".join(code(head[:7]) for head in carried.heads)
    files = (
        "every file" if carried.files == carried.of else f"{carried.files} of {carried.of} files"
    )
    return [
        f"Decisions for {files} carried from {heads}: their diff is unchanged since, so no "
        "model was asked about them again. `/consensus review` decides them afresh.",
        "",
    ]


MAX_CHANGES = 30


def _changed(report: Report, links: Sequence[str]) -> list[str]:
    """Decisions this run made differently from an earlier run on the same code."""
    changes = report.decision_changes
    if not changes:
        return []
    out = [f"### Decisions changed on a fresh look ({len(changes)})", ""]
    for change in changes[:MAX_CHANGES]:
        named = f"**{change.id}** " if change.id else ""
        title = escape_line(change.title, allowed_links=links)
        out.append(
            f"- {named}{code(f'{change.path}:{change.line}')} {title}: {change.before} on "
            f"{code(change.before_head[:7])}, now **{change.after}**"
        )
    if len(changes) > MAX_CHANGES:
        out.append(f"- … and {len(changes) - MAX_CHANGES} more (the JSON report has them all)")
    return [*out, ""]


def _headline(
    report: Report, plan: PublishPlan, head_sha: str, notices: Sequence[str], words: HostWords
) -> list[str]:
    """The counts, in the fewest words: a count of nothing is left out."""
    open_ = _open(plan)
    new = sum(1 for p in open_ if p.placement is Placement.INLINE)
    earlier = sum(1 for p in open_ if p.placement is Placement.INLINE_EARLIER)
    here = len(open_) - new - earlier
    where = [
        f"{count} {name}"
        for count, name in ((new, "new inline"), (earlier, "from earlier runs"), (here, "here"))
        if count
    ]
    kept = _not_posted(plan)
    rejected = sum(1 for f in kept if f.status is Status.REJECTED)
    answered, total = providers_answered(report)
    counts = [
        (len(kept) - rejected, "summary only"),
        (rejected, "rejected"),
        (len(plan.resolved), "resolved"),
    ]
    parts = [
        f"**{plural(len(open_), 'finding')} posted**" + (f" ({', '.join(where)})" if where else ""),
        *(f"{count} {name}" for count, name in counts if count),
        f"providers answered {answered}/{total}",
        _spend(report, plan, words),
        f"head {code(head_sha[:12])}",
    ]
    out = ["## consensus review", "", *incomplete_block(report), " · ".join(parts), ""]
    out += _carried(report)
    for notice in notices:
        out += ["> [!CAUTION]", f"> {escape_line(notice)}", ""]
    warning = quorum_warning(report)
    if warning:
        out += ["> [!WARNING]", f"> **{escape_line(warning)}**", ""]
    return out


def _spend(report: Report, plan: PublishPlan, words: HostWords) -> str:
    """This run's cost, and the pull request's once more than one run spent there."""
    spent = plan.state.spent
    this_run = format_cost(report.stats.cost_usd)
    return (
        f"{this_run} this run · {spend_text(spent, words)}"
        if spent and spent.runs > 1
        else this_run
    )


def _table(placed: Sequence[PlacedFinding], links: Sequence[str]) -> list[str]:
    header = ["ID", "Severity", "Location", "Finding", "Agreement", "Where"]
    rows = [row(header), row(["---"] * len(header))]
    for item in placed:
        finding = item.finding
        rows.append(
            row(
                [
                    finding.id,
                    finding.severity.value,
                    cell(code(location(finding)), raw=True),
                    cell(escape_line(finding.title, allowed_links=links), raw=True),
                    cell(_agreed(finding)),
                    cell(_where(item)),
                ]
            )
        )
    return rows


def _agreed(finding: ReportFinding) -> str:
    """ "4/4", or "2/4 · confirmed by qwen" once judges voted on it, "2/4 · also reported
    by ruff F821" when a static analyzer corroborates it."""
    record = finding.verification
    said = judged_by(record.votes) if record is not None else ""
    also = finding.also_reported
    return agreement_text(finding) + (f" · {said}" if said else "") + (f" · {also}" if also else "")


def _posted_here(
    placed: Sequence[PlacedFinding], links: Sequence[str], code_at: CodeAt | None = None
) -> list[str]:
    out: list[str] = []
    for item in placed:
        if item.placement.inline:
            continue
        finding = item.finding
        out += [
            f"#### {finding.id} · {code(location(finding))}",
            "",
            # without the fingerprint marker
            inline_body(finding, links, code_at=code_at).rsplit("\n", 1)[0],
            "",
        ]
    return ["### Posted here, not inline", "", *out] if out else []


def _resolved(plan: PublishPlan) -> list[str]:
    if not plan.resolved and not plan.unchecked:
        return []
    out: list[str] = []
    if plan.resolved:
        rows = [row(["Severity", "Was at", "Finding", "Why"]), row(["---"] * 4)]
        rows += [_tracked_row(t, t.resolved_reason) for t in plan.resolved]
        out += [
            "<details>",
            f"<summary>{plural(len(plan.resolved), 'finding')} resolved since the last "
            "review</summary>",
            "",
            *rows,
            "",
            "</details>",
            "",
        ]
    if plan.unchecked:
        rows = [row(["Severity", "At", "Finding", "Why"]), row(["---"] * 4)]
        rows += [_tracked_row(t, "its file was not reviewed this run") for t in plan.unchecked]
        out += [
            "<details>",
            f"<summary>{plural(len(plan.unchecked), 'earlier finding')} not re-checked</summary>",
            "",
            *rows,
            "",
            "</details>",
            "",
        ]
    return out


def _tracked_row(tracked: TrackedFinding, why: str) -> str:
    return row(
        [
            tracked.severity.value,
            cell(code(f"{tracked.path}:{tracked.line}"), raw=True),
            cell(tracked.title),
            cell(why),
        ]
    )


def _not_posted(plan: PublishPlan) -> list[ReportFinding]:
    """Findings listed here and never posted: summary only, and rejected by the judges."""
    return [
        p.finding
        for p in plan.placed
        if p.placement not in _WHERE and p.placement is not Placement.DISMISSED
    ]


def _not_posted_section(report: Report, plan: PublishPlan) -> list[str]:
    kept = _not_posted(plan)
    if not kept:
        return []
    rejected = sum(1 for f in kept if f.status is Status.REJECTED)
    title = not_posted_heading(len(kept) - rejected, rejected)
    return [
        "<details>",
        f"<summary>{title}</summary>",
        "",
        *findings_table(kept, with_reason=True),
        "",
        "</details>",
        "",
    ]


def _coverage(report: Report) -> list[str]:
    out = ["<details>", "<summary>Coverage: what each provider saw</summary>", ""]
    for provider in report.providers:
        files = ", ".join(code(path) for path in provider.files_seen) or "nothing"
        seen = plural(len(provider.files_seen), "file")
        out.append(f"- {code(provider.model)} ({provider.status}): {seen}: {files}")
    carried = report.carried
    if carried is not None:
        heads = ", ".join(code(head[:7]) for head in carried.heads)
        files = ", ".join(code(path) for path in carried.paths)
        out.append(f"- decided on {heads}, unchanged since (carried): {files}")
    for skipped in report.skipped_files:
        out.append(f"- skipped {code(skipped.path)}: {escape_line(skipped.reason)}")
    return [*out, "", "</details>", ""]


def render_summary(
    report: Report,
    plan: PublishPlan,
    *,
    head_sha: str,
    words: HostWords,
    links: Sequence[str] = (),
    notices: Sequence[str] = (),
    with_state: bool = True,
    workflows: Sequence[Sequence[str]] = (),
) -> str:
    """The summary comment's body; `notices` are what the reader must see first (a state
    block someone else edited, ignored); `workflows`: the saved workflows' sections already
    on the page, carried over as they are; `words`: the host's, for what the page says of
    the pull request."""
    open_ = _open(plan)
    sections: list[list[str]] = [
        _headline(report, plan, head_sha, notices, words),
        command_section(plan.state, words),
        ["### Findings", "", *_table(open_, links), ""] if open_ else ["No new findings.", ""],
        _changed(report, links) + _posted_here(open_, links, plan.code_at),
        _resolved(plan),
        _not_posted_section(report, plan),
        ["### Providers", "", *providers_table(report), ""] if report.providers else [],
        _coverage(report),
        [f"- {escape_line(line)}" for line in context_lines(report)] + [""],
        [line for section in workflows for line in (*section, "")],
    ]
    footer = [f"<sub>run {code(report.run_id)} · consensus {__version__}</sub>"]
    state = [encode_state(plan.state)] if with_state else []
    # Least needed first to go: coverage lists, audit, not posted, resolved, posted-here bodies.
    for drop in (7, 8, 5, 4, 3):
        if _size(sections, footer, state) <= BUDGET:
            break
        sections[drop] = [OMITTED, ""] if sections[drop] else []
    rows = _table(open_, links)
    keep = len(rows)
    while _size(sections, footer, state) > BUDGET and keep > 2:
        keep -= 1  # drop table rows from the end, saying how many
        more = f"*… and {plural(len(rows) - keep, 'more finding')}* {OMITTED}"
        sections[2] = ["### Findings", "", *rows[:keep], "", more, ""]
    if _size(sections, footer, state) > BUDGET:  # workflows' sections last: their markers stay
        sections[9] = [line for part in workflows for line in (part[0], OMITTED, part[-1], "")]
    lines = [SUMMARY_MARKER, *(line for section in sections for line in section), *footer, *state]
    return "\n".join(lines)[:GITHUB_LIMIT]


def _size(sections: list[list[str]], footer: list[str], state: list[str]) -> int:
    return sum(len(line) + 1 for part in (*sections, footer, state) for line in part)


# --------------------------------------------------------------------------- workflows

WORKFLOW_BUDGET = 12_000  # characters of one saved workflow's section


def render_workflow_section(
    report: Report,
    plan: PublishPlan,
    *,
    title: str,
    description: str,
    head_sha: str,
    words: HostWords,
    links: Sequence[str] = (),
    budget: int = WORKFLOW_BUDGET,
) -> list[str]:
    """A saved workflow's section of the summary comment, markers included: its counts, its
    open findings, what it resolved and did not post; at most `budget` characters."""
    name = plan.workflow
    headline = _headline(report, plan, head_sha, (), words)[2:]  # without the page's own heading
    open_ = _open(plan)
    parts: list[list[str]] = [
        [
            start_marker(name),
            f"### Workflow {code(name)}: {escape_line(title)}",
            "",
            f"*{escape_line(description)}* · `/consensus {name}` runs it again. Its "
            "findings are its own: they never resolve, dismiss or repeat the default review's.",
            "",
            *headline,
        ],
        [*_table(open_, links), ""] if open_ else ["No new findings.", ""],
        _changed(report, links) + _posted_here(open_, links, plan.code_at),
        _resolved(plan),
        _not_posted_section(report, plan),
        [f"<sub>workflow run {code(report.run_id)}</sub>", end_marker(name)],
    ]
    for drop in (4, 3, 2):
        if _size(parts, [], []) <= budget:
            break
        parts[drop] = [OMITTED, ""] if parts[drop] else []
    rows = _table(open_, links)
    keep = len(rows)
    while _size(parts, [], []) > budget and keep > 2:
        keep -= 1
        parts[1] = [*rows[:keep], "", f"*… and {plural(len(rows) - keep, 'more finding')}*", ""]
    return [line for part in parts for line in part]
