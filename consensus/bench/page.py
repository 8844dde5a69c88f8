"""The bench as one HTML page, in the run report's style: the figures, a precision/recall
chart against the published tools, and every judgement.

Pure: a BenchResult in, a string out. The chart's geometry is computed here and drawn by
render/templates/bench.html.j2 as inline SVG (no JavaScript, no external asset: the run
report's Content-Security-Policy); Jinja2 autoescapes every value, so findings, reasons and
golden comments are text, never markup.
"""

from __future__ import annotations

from markupsafe import Markup

from consensus.bench.results import BenchResult
from consensus.bench.tables import (
    COUNTING,
    INTERVALS,
    clean_cell,
    consensus_variant,
    duplicates_line,
    interval,
    money,
    pct,
)
from consensus.model.base import Frozen
from consensus.render.html import CSP, page_template

SIZE = 420  # the plot's side, in SVG user units
MARGIN = 48
F1_CURVES = (0.2, 0.4, 0.6, 0.8)


class ChartPoint(Frozen):
    label: str
    ours: bool
    precision: float
    recall: float
    x: float
    y: float
    # the 95% intervals as whiskers (ours only): recall across, precision up and down
    x_span: tuple[float, float] | None = None
    y_span: tuple[float, float] | None = None


class Curve(Frozen):
    f1: float
    points: str  # the polyline's "x,y x,y …"


def at(recall: float, precision: float) -> tuple[float, float]:
    """SVG coordinates of a (recall, precision) point: recall right, precision up."""
    return MARGIN + recall * SIZE, MARGIN + (1 - precision) * SIZE


def chart_points(result: BenchResult) -> list[ChartPoint]:
    points = []
    for variant in result.variants:
        x, y = at(variant.overall.recall, variant.overall.precision)
        overall = variant.overall
        r_ci, p_ci = overall.recall_ci, overall.precision_ci
        points.append(
            ChartPoint(
                label=variant.label, ours=True, precision=overall.precision,
                recall=overall.recall, x=x, y=y,
                x_span=(at(r_ci[0], 0)[0], at(r_ci[1], 0)[0]) if r_ci else None,
                y_span=(at(0, p_ci[1])[1], at(0, p_ci[0])[1]) if p_ci else None,
            )
        )  # fmt: skip
    for tool in result.published:
        x, y = at(tool.recall, tool.precision)
        points.append(ChartPoint(label=tool.tool, ours=False, precision=tool.precision,
                                 recall=tool.recall, x=x, y=y))  # fmt: skip
    return points


def f1_curves() -> list[Curve]:
    """Lines of equal F1: precision = F1·r / (2r − F1) for recall r above F1 / 2."""
    curves = []
    for f1 in F1_CURVES:
        coordinates = []
        for step in range(0, 101):
            recall = f1 / 2 + (1 - f1 / 2) * step / 100
            if 2 * recall - f1 <= 0:
                continue
            precision = f1 * recall / (2 * recall - f1)
            if precision <= 1:
                x, y = at(recall, precision)
                coordinates.append(f"{x:.1f},{y:.1f}")
        curves.append(Curve(f1=f1, points=" ".join(coordinates)))
    return curves


def render_bench_html(result: BenchResult) -> str:
    main = consensus_variant(result)
    return page_template("bench.html.j2").render(
        csp=Markup(CSP),  # our constant, quoted as it is
        result=result,
        main=main,
        clean={row.pr for row in main.per_pr if row.clean} if main is not None else set(),
        clean_cell=clean_cell,
        repeated=duplicates_line(result),
        points=chart_points(result),
        curves=f1_curves(),
        size=SIZE,
        margin=MARGIN,
        ticks=[n / 5 for n in range(6)],
        pct=pct,
        money=money,
        interval=interval,
        counting=COUNTING,
        intervals=INTERVALS,
    )
