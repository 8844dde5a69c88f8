"""The HTML run report: one self-contained page that shows how a run reached its report.

header    run id, what was reviewed, status, totals
matrix    findings x providers: reported ✓, silent ·, abstained ✗ (the reason on hover)
verify    each disputed finding's inspector and voters, verdicts and reasons
timeline  the phases, and one bar per model call, grouped by provider
usage     tokens and cost per provider
files     which files each provider saw, and which no model saw

Pure: a Report, the journal's calls and phases in, a string out. No JavaScript, no
external asset; a Content-Security-Policy forbids both. Every piece of model or user text
(titles, reasons, paths, labels, model names) goes through `html.escape`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from consensus.models import ProviderReport, Report, ReportFinding

if TYPE_CHECKING:
    from consensus.runner import ReviewJob

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
TIMELINE_WIDTH = 1000  # SVG user units for the time axis
ROW_HEIGHT = 22
LABEL_WIDTH = 190


class Cell(str, Enum):
    """What one provider did about one finding."""

    REPORTED = "reported"
    SILENT = "silent"  # had a valid review of the file and did not report it
    ABSTAINED = "abstained"  # failed, skipped, or had no valid review of the file

    @property
    def mark(self) -> str:
        return {"reported": "✓", "silent": "·", "abstained": "✗"}[self.value]


def cell(finding: ReportFinding, provider: ProviderReport) -> tuple[Cell, str]:
    """The cell of the vote matrix, and why (shown as its tooltip)."""
    if provider.model in finding.providers:
        return Cell.REPORTED, f"{provider.model} reported this finding"
    if provider.status != "ok":
        why = provider.error or f"provider {provider.status}"
        return Cell.ABSTAINED, f"{provider.model} abstained ({provider.status}): {why}"
    if finding.path not in provider.files_seen:
        return Cell.ABSTAINED, f"{provider.model} had no valid review of {finding.path}"
    return Cell.SILENT, f"{provider.model} reviewed {finding.path} and did not report this"


def render_html(
    report: Report,
    calls: Sequence[Mapping[str, Any]],
    phases: Sequence[tuple[str, float]],
    job: ReviewJob | None,
) -> str:
    """The whole page, as one string."""
    body = "\n".join(
        (
            _header(report, job, calls),
            _matrix(report),
            _verification(report),
            _timeline(report, calls, phases),
            _usage(report),
            _files(report, job),
        )
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">\n"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
        "<link rel='icon' href='data:,'>\n"
        f"<title>consensus run {_e(report.run_id)}</title>\n<style>{_CSS}</style>\n"
        f"</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _status(report: Report) -> tuple[str, str]:
    if report.budget_exhausted:
        return "paused: budget reached, the review is incomplete", "bad"
    if not report.quorum.met:
        return "advisory: quorum not met", "bad"
    return "complete", "good"


def _header(report: Report, job: ReviewJob | None, calls: Sequence[Mapping[str, Any]]) -> str:
    status, tone = _status(report)
    stats = report.stats
    posted = sum(1 for f in report.findings if f.status.posted)
    failed = sum(1 for c in calls if not c["ok"])
    facts = [
        ("findings", f"{len(report.findings)} ({posted} posted)"),
        ("providers", str(len(report.providers))),
        ("calls", f"{len(calls)} ({failed} failed)" if calls else str(stats.calls)),
        ("tokens", f"{stats.tokens_in:,} in / {stats.tokens_out:,} out"),
        ("cost", f"${stats.cost_usd:.4f}"),
        ("wall", f"{stats.wall_s:.1f} s"),
        ("threshold", f"{report.threshold:.0%}"),
        (
            "quorum",
            f"{report.quorum.families_answered} families answered, "
            f"{report.quorum.min_providers} needed",
        ),
    ]
    label = f"<p class='label'>{_e(job.label)}</p>" if job is not None else ""
    notes = "".join(f"<li>{_e(note)}</li>" for note in report.notes)
    return (
        f"<header><h1>consensus run <code>{_e(report.run_id)}</code></h1>{label}"
        f"<p class='status {tone}'>{_e(status)}</p><dl class='facts'>"
        + "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in facts)
        + "</dl>"
        + (f"<ul class='notes'>{notes}</ul>" if notes else "")
        + "</header>"
    )


def _matrix(report: Report) -> str:
    head = "".join(
        f"<th class='provider' title='{_e(p.model)} (family {_e(p.family)}, {_e(p.status)})'>"
        f"{_provider_name(p.model)}</th>"
        for p in report.providers
    )
    panel = {p.model for p in report.providers}
    rows = []
    for finding in report.findings:
        cells = []
        for provider in report.providers:
            state, why = cell(finding, provider)
            cells.append(f"<td class='cell {state.value}' title='{_e(why)}'>{state.mark}</td>")
        # A finding may come from outside the panel (consensus itself flags a committed key).
        others = [p for p in finding.providers if p not in panel]
        raised = f" · raised by {_e(', '.join(others))}" if others else ""
        rows.append(
            f"<tr><th scope='row'><code>{_e(finding.id)}</code></th>"
            f"<td><span class='sev {_e(finding.severity.value)}'>{_e(finding.severity.value)}"
            f"</span></td><td class='title'>{_e(finding.title)}<br><small>"
            f"{_e(finding.path)}:{finding.line}{raised}</small></td>"
            f"<td><span class='st {_e(finding.status.value)}' title='{_e(finding.reason)}'>"
            f"{_e(finding.status.value)}</span></td>"
            f"<td class='num'>{finding.agreement:.0%}<br><small>{finding.votes.for_}/"
            f"{finding.votes.of}</small></td>{''.join(cells)}</tr>"
        )
    if not rows:
        span = 5 + len(report.providers)
        rows.append(f"<tr><td colspan='{span}' class='empty'>No findings.</td></tr>")
    return (
        "<section><h2>Votes: findings × providers</h2><table class='matrix'><thead><tr>"
        "<th>id</th><th>severity</th><th>finding</th><th>status</th><th>agreement</th>"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        "<p class='legend'><span class='cell reported'>✓</span> reported "
        "<span class='cell silent'>·</span> reviewed the file, silent "
        "<span class='cell abstained'>✗</span> abstained (failed, or no valid review of the "
        "file; hover for the reason)</p></section>"
    )


def _verification(report: Report) -> str:
    blocks = []
    for finding in report.findings:
        record = finding.verification
        if record is None:
            continue
        votes = "".join(
            f"<tr><td>{_e(v.role)}</td><td><code>{_e(v.model)}</code></td><td>{_e(v.family)}"
            + (" <span class='self' title='this family reported the finding: it judged its own "
               "claim'>self</span>" if v.self_vote else "")
            + f"</td><td><span class='verdict {_e(v.verdict.value if v.verdict else 'failed')}'>"
            f"{_e(v.verdict.value if v.verdict else 'call failed')}</span></td>"
            f"<td class='reason'>{_e(v.reason)}</td></tr>"
            for v in record.votes
        )  # fmt: skip
        reporters = sorted({m.family for m in finding.members})
        judged = (
            f"<p class='judges'>Reported by {_e(', '.join(reporters) or 'nobody')}; "
            + ("judged by the reporters themselves (no other family answered)"
               if record.votes and all(v.self_vote for v in record.votes)
               else "judged by families that did not report it"
               if not any(v.self_vote for v in record.votes)
               else "some judges' families reported it (marked self)")
            + "</p>"
        )  # fmt: skip
        note = f"<p class='note'>{_e(record.note)}</p>" if record.note else ""
        blocks.append(
            f"<article><h3><code>{_e(finding.id)}</code> {_e(finding.title)} "
            f"<span class='st {_e(finding.status.value)}'>{_e(finding.status.value)}</span></h3>"
            f"<p class='counts'>confirmed {record.confirmed} · refuted {record.refuted} · "
            f"uncertain {record.uncertain} · ahead by {record.ahead_by}"
            + (f" · discarded {record.discarded}" if record.discarded else "")
            + (" · stopped by the budget" if record.budget_stopped else "")
            + f"</p>{judged}{note}<table class='votes'><thead><tr><th>role</th><th>model</th>"
            f"<th>family</th><th>verdict</th><th>reason</th></tr></thead><tbody>{votes}"
            "</tbody></table></article>"
        )
    if not blocks:
        blocks.append(
            f"<p class='empty'>No finding was verified (verification: "
            f"{_e(report.verification)}).</p>"
        )
    return f"<section><h2>Verification</h2>{''.join(blocks)}</section>"


def _timeline(
    report: Report, calls: Sequence[Mapping[str, Any]], phases: Sequence[tuple[str, float]]
) -> str:
    times = [t for _, t in phases] + [float(c["started"]) for c in calls]
    ends = [float(c["finished"]) for c in calls] + times
    if not times:
        return "<section><h2>Timeline</h2><p class='empty'>No calls recorded.</p></section>"
    start, end = min(times), max(ends)
    span = max(end - start, 1e-3)

    def x(t: float) -> float:
        return LABEL_WIDTH + (t - start) / span * TIMELINE_WIDTH

    lanes = _lanes(report, calls)
    top = 50  # below the tick labels and two rows of phase labels
    height = top + ROW_HEIGHT * max(len(lanes), 1) + 10
    bands, labels = [], []
    for i, (name, began) in enumerate(phases):
        finish = phases[i + 1][1] if i + 1 < len(phases) else end
        left, right = x(began), max(x(finish), x(began) + 1)
        bands.append(
            f"<rect class='phase p{i % 2}' x='{left:.1f}' y='18' width='{right - left:.1f}' "
            f"height='{height - 18}'><title>{_e(name)}: from {began - start:.2f} s</title></rect>"
        )
        # Alternate rows, so a phase of a few milliseconds does not hide its neighbour's name.
        labels.append(
            f"<text class='phase-label' x='{left + 3:.1f}' y='{31 + 13 * (i % 2)}'>"
            f"{_e(name)}</text>"
        )
    ticks = []
    for tick in range(6):
        t = span * tick / 5
        ticks.append(
            f"<text class='tick' x='{x(start + t):.1f}' y='12'>{t:.1f} s</text>"
            f"<line class='grid' x1='{x(start + t):.1f}' x2='{x(start + t):.1f}' y1='14' "
            f"y2='{height}'/>"
        )
    bars = []
    for row, (model, mine) in enumerate(lanes.items()):
        y = top + row * ROW_HEIGHT
        bars.append(f"<text class='lane' x='4' y='{y + 15}'>{_e(_clip(model, 28))}</text>")
        for c in mine:
            left = x(float(c["started"]))
            width = max(x(float(c["finished"])) - left, 2.0)
            bars.append(_call_bar(model, c, left, y + 4, width))
    total = LABEL_WIDTH + TIMELINE_WIDTH + 30
    return (
        "<section><h2>Timeline</h2><p class='legend'>x: seconds since the run started; one "
        "bar per model call (<span class='swatch ok'></span> answered "
        "<span class='swatch failed'></span> failed); shaded bands are the phases. A resumed "
        f"run shows every attempt.</p><svg class='timeline' viewBox='0 0 {total} {height}' "
        f"width='{total}' height='{height}' role='img' aria-label='phases and calls'>"
        f"{''.join(bands + ticks + labels + bars)}</svg></section>"
    )


def _call_bar(model: str, call: Mapping[str, Any], left: float, y: float, width: float) -> str:
    state = "ok" if call["ok"] else "failed"
    failure = f" ({call['error_kind']})" if not call["ok"] and call.get("error_kind") else ""
    tip = (
        f"{model}: {state}{failure}, {float(call['latency_s']):.2f} s, "
        f"{call['tokens_in']} in / {call['tokens_out']} out, ${float(call['cost_usd']):.4f}, "
        f"attempts {call['attempts']}"
    )
    return (
        f"<rect class='call {state}' x='{left:.1f}' y='{y}' width='{width:.1f}' "
        f"height='{ROW_HEIGHT - 8}' rx='2'><title>{_e(tip)}</title></rect>"
    )


def _lanes(
    report: Report, calls: Sequence[Mapping[str, Any]]
) -> dict[str, list[Mapping[str, Any]]]:
    """Calls grouped by provider, in the report's provider order, then any other model."""
    lanes: dict[str, list[Mapping[str, Any]]] = {p.model: [] for p in report.providers}
    for c in calls:
        lanes.setdefault(str(c["model"]), []).append(c)
    return {model: mine for model, mine in lanes.items() if mine}


def _usage(report: Report) -> str:
    most = max((p.tokens_in + p.tokens_out for p in report.providers), default=0) or 1
    rows = "".join(
        f"<tr><td><code>{_e(p.model)}</code></td><td>{_e(p.family)}</td>"
        f"<td><span class='pstatus {_e(p.status)}' title='{_e(p.error or '')}'>{_e(p.status)}"
        f"</span></td><td class='num'>{p.calls}</td><td class='num'>{p.failed_calls}</td>"
        f"<td class='num'>{p.tokens_in:,}</td><td class='num'>{p.tokens_out:,}</td>"
        f"<td class='num'>${p.cost_usd:.4f}</td><td class='barcell'>"
        f"<div class='bar in' style='width:{p.tokens_in / most * 100:.1f}%'></div>"
        f"<div class='bar out' style='width:{p.tokens_out / most * 100:.1f}%'></div></td></tr>"
        for p in report.providers
    )
    return (
        "<section><h2>Tokens and cost per provider</h2><table class='usage'><thead><tr>"
        "<th>provider</th><th>family</th><th>status</th><th>calls</th><th>failed</th>"
        "<th>tokens in</th><th>tokens out</th><th>cost</th><th>tokens "
        "(<span class='swatch in'></span> in <span class='swatch out'></span> out)</th>"
        f"</tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _files(report: Report, job: ReviewJob | None) -> str:
    reviewed = [f.path for f in job.diff.files] if job is not None else []
    paths = _unique([*reviewed, *(path for p in report.providers for path in p.files_seen)])
    head = "".join(f"<th class='provider'>{_provider_name(p.model)}</th>" for p in report.providers)
    rows = "".join(
        f"<tr><td><code>{_e(path)}</code></td>"
        + "".join(
            "<td class='cell reported' title='seen'>✓</td>"
            if path in p.files_seen
            else "<td class='cell abstained' title='not seen in a valid review'>✗</td>"
            for p in report.providers
        )
        + "</tr>"
        for path in paths
    )
    skipped = "".join(
        f"<li><code>{_e(s.path)}</code>: {_e(s.reason)}</li>" for s in report.skipped_files
    )
    redacted = "".join(
        f"<li><code>{_e(r.path)}</code>{f':{r.line}' if r.line else ''}: {_e(r.kind)}</li>"
        for r in report.redactions
    )
    return (
        "<section><h2>Files each provider saw</h2><table class='matrix files'><thead><tr>"
        f"<th>file</th>{head}</tr></thead><tbody>{rows}</tbody></table>"
        + (f"<h3>Skipped: no model saw these</h3><ul>{skipped}</ul>" if skipped else "")
        + (f"<h3>Secrets redacted before review</h3><ul>{redacted}</ul>" if redacted else "")
        + "</section>"
    )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _provider_name(model: str) -> str:
    """`route/` on a small first line, the model's name under it: narrow columns, no
    mid-word breaks."""
    route, slash, name = model.rpartition("/")
    first = f"<small>{_e(route + slash)}</small><br>" if slash else ""
    return f"{first}{_e(name)}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


_CSS = """
:root { --ok: #2e7d32; --bad: #c62828; --muted: #6b7280; --line: #e5e7eb; --bg: #f9fafb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #111827; margin: 0 auto; padding: 20px 28px; max-width: 1340px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 26px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 14px 0 6px; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
.label { margin: 0; color: var(--muted); }
.status { display: inline-block; margin: 8px 0; padding: 2px 10px; border-radius: 12px;
  font-weight: 600; }
.status.good { background: #e8f5e9; color: var(--ok); }
.status.bad { background: #ffebee; color: var(--bad); }
.facts { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 4px 0; }
.facts div { background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
  padding: 4px 10px; }
.facts dt { font-size: 11px; color: var(--muted); text-transform: uppercase; }
.facts dd { margin: 0; font-weight: 600; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: middle;
  text-align: left; }
thead th { background: var(--bg); font-size: 12px; }
th.provider { font-weight: 600; max-width: 160px; overflow-wrap: anywhere; text-align: center; }
th.provider small { font-weight: 400; color: var(--muted); }
td.cell { text-align: center; font-size: 18px; font-weight: 700; width: 70px; }
.cell.reported { color: var(--ok); background: #e8f5e9; }
.cell.silent { color: #9ca3af; }
.cell.abstained { color: var(--bad); background: #fff1f1; }
.legend .cell { display: inline-block; width: 22px; text-align: center; border-radius: 4px; }
.legend { color: var(--muted); font-size: 12.5px; }
td.title { max-width: 420px; }
td.title small, td.num small { color: var(--muted); }
td.num { text-align: right; white-space: nowrap; }
td.empty, p.empty { color: var(--muted); }
.sev, .st, .verdict, .pstatus { display: inline-block; padding: 0 7px; border-radius: 10px;
  font-size: 12px; font-weight: 600; background: #eef2ff; color: #3730a3; }
.sev.critical { background: #7f1d1d; color: #fff; }
.sev.high { background: #fee2e2; color: #991b1b; }
.sev.medium { background: #fef3c7; color: #92400e; }
.sev.low { background: #e0f2fe; color: #075985; }
.st.consensus, .st.verified, .verdict.confirmed, .pstatus.ok {
  background: #dcfce7; color: #166534; }
.st.rejected, .verdict.refuted, .verdict.failed, .pstatus.failed {
  background: #fee2e2; color: #991b1b; }
.st.undecided, .verdict.uncertain, .pstatus.skipped { background: #f3f4f6; color: #374151; }
article { border: 1px solid var(--line); border-radius: 8px; padding: 4px 14px 12px;
  margin: 10px 0; }
.counts, .note, .judges { color: var(--muted); margin: 4px 0 8px; }
.self { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 11px;
  font-weight: 700; background: #fef3c7; color: #92400e; }
td.reason { max-width: 640px; white-space: pre-wrap; }
svg.timeline { max-width: 100%; height: auto; font-size: 11px; }
.phase.p0 { fill: #eef2ff; }
.phase.p1 { fill: #f5f3ff; }
.phase-label { fill: #4338ca; font-weight: 600; }
.tick { fill: var(--muted); text-anchor: middle; }
.grid { stroke: var(--line); }
.lane { fill: #111827; }
.call.ok { fill: #43a047; }
.call.failed { fill: #e53935; }
.swatch { display: inline-block; width: 12px; height: 10px; border-radius: 2px; }
.swatch.ok { background: #43a047; }
.swatch.failed { background: #e53935; }
.swatch.in, .bar.in { background: #60a5fa; }
.swatch.out, .bar.out { background: #f59e0b; }
td.barcell { width: 260px; }
.bar { height: 7px; border-radius: 2px; margin: 1px 0; min-width: 1px; }
.notes { color: var(--bad); }
"""
