"""The HTML run report: one self-contained page that shows how a run reached its report.

header    run id, what was reviewed, status, totals
matrix    findings x providers: reported ✓, silent ·, abstained ✗ (the reason on hover)
verify    each judged finding's judges, their votes and reasons
judges    each family's estimated rates, with their intervals and what they rest on
timeline  the phases, and one bar per model call, grouped by provider
usage     tokens and cost per provider
files     which files each provider saw, and which no model saw

Pure: a Report, the journal's calls and phases in, a string out. This module computes
what the page shows (the vote matrix's cells, the timeline's geometry); the page itself is
templates/report.html.j2, rendered by Jinja2 with autoescape on, so every piece of model
or user text (titles, reasons, paths, labels, model names) is text, never markup. No
JavaScript, no external asset; a Content-Security-Policy forbids both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template
from markupsafe import Markup

from consensus.decide.evidence import judged_by
from consensus.model.journal import CallRow, PhaseRow
from consensus.model.report import ProviderReport, Report, ReportFinding
from consensus.render.estimate_words import HEAD as PANEL_HEAD
from consensus.render.estimate_words import NOTE as PANEL_NOTE
from consensus.render.estimate_words import panel_rows

if TYPE_CHECKING:
    from consensus.review.job import ReviewJob

TEMPLATES = Path(__file__).parent / "templates"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
TIMELINE_WIDTH = 1000  # SVG user units for the time axis
ROW_HEIGHT = 22
LABEL_WIDTH = 190
LABEL_CHAR_WIDTH = 7.5  # a phase name's width per character, at the timeline's font size
_NOT_SENT = frozenset({"budget", "circuit_open"})


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
    calls: Sequence[CallRow],
    phases: Sequence[PhaseRow],
    job: ReviewJob | None,
    notice: str | None = None,
) -> str:
    """The whole page, as one string; `notice` is a banner above it (the demo's "simulated")."""
    status, tone = _status(report)
    reviewed = [f.path for f in job.diff.files] if job is not None else []
    return page_template("report.html.j2").render(
        csp=Markup(CSP),  # our constant, quoted as it is
        report=report,
        label=job.label if job is not None else None,
        notice=notice,
        status=status,
        tone=tone,
        facts=_facts(report, calls),
        matrix=_matrix(report),
        verified=[f for f in report.findings if f.verification is not None],
        timeline=_timeline(report, calls, phases),
        row_height=ROW_HEIGHT,
        most_tokens=max((p.tokens_in + p.tokens_out for p in report.providers), default=0) or 1,
        files=_files(report, reviewed),
        verification_words=_verification_words(report),
        panel=panel_rows(report.panel) if report.panel is not None else [],
        panel_head=PANEL_HEAD,
        panel_note=PANEL_NOTE,
        judged_by=judged_by,
    )


def _verification_words(report: Report) -> str:
    if not any(p.status == "ok" for p in report.providers):
        return "no model answered the review, so there was nothing to verify"
    return VERIFICATION_WORDS.get(report.verification, report.verification)


# report.verification, in words
VERIFICATION_WORDS = {
    "done": "no finding was put to the judges",
    "skipped": "verification was turned off (--no-verify, or the workflow's verify: none)",
    "not_needed": "no finding was disputed, so no judge was asked",
    "not_available": "verification did not run (no model answered the review)",
}


def _files(report: Report, reviewed: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """Each file and each provider's state for it: the report's coverage (reviewed, failed,
    not asked and why), so a tick means a model returned a valid review of it."""
    if report.coverage:
        return [(c.path, dict(c.providers)) for c in report.coverage]
    paths = dict.fromkeys([*reviewed, *(x for p in report.providers for x in p.files_seen)])
    return [
        (
            path,
            {p.model: "reviewed" if path in p.files_seen else "not seen" for p in report.providers},
        )
        for path in paths
    ]


@cache
def page_template(name: str) -> Template:
    """One of the package's HTML templates (`render/templates/`), read once: autoescaped,
    strict about undefined names."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,  # model and user text is text, never markup
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    return environment.get_template(name)


def _status(report: Report) -> tuple[str, str]:
    if report.incomplete is not None:
        return "incomplete: some of the change was not reviewed (see above)", "bad"
    if report.budget_exhausted:
        return "paused: budget reached, the review is incomplete", "bad"
    if not report.quorum.met:
        return "advisory: quorum not met", "bad"
    return "complete", "good"


def _facts(report: Report, calls: Sequence[CallRow]) -> list[tuple[str, str]]:
    stats = report.stats
    posted = sum(1 for f in report.findings if f.status.posted)
    unsent = sum(1 for c in calls if not_sent(c))
    failed = sum(1 for c in calls if not c.ok and not not_sent(c))
    return [
        ("findings", f"{len(report.findings)} ({posted} posted)"),
        ("providers", str(len(report.providers))),
        (
            "calls",
            f"{len(calls) - unsent} sent ({failed} failed), {unsent} not sent"
            if calls
            else str(stats.calls),
        ),
        ("tokens", f"{stats.tokens_in:,} in / {stats.tokens_out:,} out"),
        ("cost", "unknown" if stats.cost_usd is None else f"${stats.cost_usd:.4f}"),
        ("wall", f"{stats.wall_s:.1f} s"),
        ("threshold", f"{report.threshold:.0%}"),
        (
            "quorum",
            f"{report.quorum.families_answered} families answered, "
            f"{report.quorum.min_providers} needed",
        ),
    ]


@dataclass(frozen=True)
class MatrixRow:
    finding: ReportFinding
    cells: list[tuple[Cell, str]]
    others: list[str]  # reporters outside the panel (consensus itself flags a committed key)


def _matrix(report: Report) -> list[MatrixRow]:
    panel = {p.model for p in report.providers}
    return [
        MatrixRow(
            finding=finding,
            cells=[cell(finding, provider) for provider in report.providers],
            others=[p for p in finding.providers if p not in panel],
        )
        for finding in report.findings
    ]


@dataclass(frozen=True)
class Band:
    name: str
    parity: int  # labels alternate rows: a phase of a few ms does not hide its neighbour's name
    left: float
    width: float
    offset: float  # seconds since the run started
    label_x: float = 0.0  # where its name is written: inside the drawing, never clipped
    label_anchor: str = "start"


@dataclass(frozen=True)
class Tick:
    x: float
    seconds: float


@dataclass(frozen=True)
class Bar:
    state: str
    left: float
    width: float
    tip: str


@dataclass(frozen=True)
class Lane:
    label: str
    y: int
    bars: list[Bar]


@dataclass(frozen=True)
class Timeline:
    width: int
    height: int
    bands: list[Band]
    ticks: list[Tick]
    lanes: list[Lane]


def _timeline(
    report: Report, calls: Sequence[CallRow], phases: Sequence[PhaseRow]
) -> Timeline | None:
    """The geometry of the timeline: phases as bands, one bar per call, a lane per model."""
    times = [p.started for p in phases] + [c.started for c in calls]
    ends = [c.finished for c in calls] + times
    if not times:
        return None
    start, end = min(times), max(ends)
    span = max(end - start, 1e-3)

    def x(t: float) -> float:
        return LABEL_WIDTH + (t - start) / span * TIMELINE_WIDTH

    grouped = _lanes(report, calls)
    unpriced = set(report.budget.unpriced) if report.budget else set()
    top = 50  # below the tick labels and two rows of phase labels
    bands = []
    for i, phase in enumerate(phases):
        finish = phases[i + 1].started if i + 1 < len(phases) else end
        left, right = x(phase.started), max(x(finish), x(phase.started) + 1)
        # a name that would run past the right edge ends at it instead
        fits = left + 3 + len(phase.name) * LABEL_CHAR_WIDTH <= LABEL_WIDTH + TIMELINE_WIDTH
        label_x, anchor = (left + 3, "start") if fits else (LABEL_WIDTH + TIMELINE_WIDTH, "end")
        bands.append(
            Band(phase.name, i % 2, left, right - left, phase.started - start, label_x, anchor)
        )
    lanes = [
        Lane(
            label=_clip(model, 28),
            y=top + row * ROW_HEIGHT,
            bars=[
                Bar(
                    "ok" if c.ok else "notsent" if not_sent(c) else "failed",
                    x(c.started),
                    2.0 if not_sent(c) else max(x(c.finished) - x(c.started), 2.0),
                    _tip(model, c, priced=model not in unpriced),
                )
                for c in mine
            ],
        )
        for row, (model, mine) in enumerate(grouped.items())
    ]
    return Timeline(
        width=LABEL_WIDTH + TIMELINE_WIDTH + 30,
        height=top + ROW_HEIGHT * max(len(lanes), 1) + 10,
        bands=bands,
        ticks=[Tick(x(start + span * i / 5), span * i / 5) for i in range(6)],
        lanes=lanes,
    )


def not_sent(call: CallRow) -> bool:
    """A call the budget or the circuit breaker refused: nothing was sent or paid."""
    return not call.ok and call.error_kind in _NOT_SENT


def _tip(model: str, call: CallRow, *, priced: bool = True) -> str:
    if not_sent(call):
        return f"{model}: not sent ({call.error_kind}): nothing was paid"
    state = "ok" if call.ok else "failed"
    failure = f" ({call.error_kind})" if not call.ok and call.error_kind else ""
    # the bar spans the call from start to end, its waits and retries included
    spans = max(call.finished - call.started, 0.0)
    answered = f" (the model answered in {call.latency_s:.2f} s)" if call.ok else ""
    return (
        f"{model}: {state}{failure}, {spans:.2f} s{answered}, "
        f"{call.tokens_in} in / {call.tokens_out} out, "
        f"{f'${call.cost_usd:.4f}' if priced else 'cost unknown'}, "
        f"attempts {call.attempts}"
    )


def _lanes(report: Report, calls: Sequence[CallRow]) -> dict[str, list[CallRow]]:
    """Calls grouped by provider, in the report's provider order, then any other model."""
    lanes: dict[str, list[CallRow]] = {p.model: [] for p in report.providers}
    for c in calls:
        lanes.setdefault(c.model, []).append(c)
    return {model: mine for model, mine in lanes.items() if mine}


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
