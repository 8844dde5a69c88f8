"""The bench's figures as a Markdown document (also what the terminal shows). Pure."""

from __future__ import annotations

from consensus.bench.precision import Figure
from consensus.bench.results import CONSENSUS, BenchResult, VariantResult

INTERVALS = (
    "95% intervals: Wilson score intervals for precision and recall; for F1 a percentile "
    "bootstrap over pull requests (2,000 resamples, seed 0)."
)
COUNTING = (
    "Counted as the benchmark counts: precision is the goldens matched over every posted "
    "finding, recall the goldens matched over all goldens. A golden matched by a posted "
    "finding is a true positive, an unmatched golden a false negative; every other posted "
    "finding is a false positive, a second one on a golden already matched included."
)


def clean_cell(figure: Figure) -> str:
    """What a configuration posted on the clean PRs (all of it false positives)."""
    return f"{figure.posted_on_clean} on {figure.clean_prs}"


def duplicates_line(result: BenchResult) -> str | None:
    """Which configurations posted a second finding on a golden already matched."""
    variants = [v for v in result.variants if v.overall.duplicates]
    if not variants:
        return None
    counts = ", ".join(f"{v.label} {v.overall.duplicates}" for v in variants)
    return f"False positives that are a second finding on a golden already matched: {counts}."


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def money(usd: float | None) -> str:
    """A cost in a table cell: an unknown price is "unknown", never $0."""
    return "unknown" if usd is None else f"${usd:.4f}"


def interval(ci: tuple[float, float] | None) -> str:
    return "—" if ci is None else f"[{ci[0] * 100:.1f}, {ci[1] * 100:.1f}]"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def figure_cells(f: Figure) -> list[str]:
    return [
        f"{pct(f.precision)} {interval(f.precision_ci)}",
        f"{pct(f.recall)} {interval(f.recall_ci)}",
        f"{pct(f.f1)} {interval(f.f1_ci)}",
        f"{f.tp} / {f.fp} / {f.fn}",
    ]


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def consensus_variant(result: BenchResult) -> VariantResult | None:
    return next((v for v in result.variants if v.name == CONSENSUS), None)


def render_markdown(result: BenchResult) -> str:
    out = [f"# consensus bench: {cell(result.suite)}", ""]
    clean = f" ({result.clean_prs} of them clean)" if result.clean_prs else ""
    out += [
        f"- source: {result.source}",
        *([f"- licence: {result.licence}"] if result.licence else []),
        f"- judge: `{result.judge}`",
        f"- {result.prs} pull requests{clean}, {result.goldens} golden comments",
        f"- cost: {money(result.total_cost_usd)} (reviews and judge)",
        "",
        "## Overall",
        "",
    ]
    head = ["configuration", "precision", "recall", "F1", "TP / FP / FN", "review cost"]
    rows = [[v.label, *figure_cells(v.overall), money(v.cost_usd)] for v in result.variants]
    if result.clean_prs:
        head.append("posted on clean PRs")
        for row, variant in zip(rows, result.variants, strict=True):
            row.append(clean_cell(variant.overall))
    repeated = duplicates_line(result)
    out += [*table(head, rows), "", COUNTING, *([repeated] if repeated else []), INTERVALS, ""]
    if result.published:
        out += [f"## Published figures (judge `{result.published_judge}`)", ""]
        rows = [
            [p.tool, pct(p.precision), pct(p.recall), pct(p.f1), f"{p.tp} / {p.fp} / {p.fn}"]
            for p in sorted(result.published, key=lambda p: -p.f1)
        ]
        out += table(["tool", "precision", "recall", "F1", "TP / FP / FN"], rows)
        out += ["", f"Read from {result.source}.", ""]
    main = consensus_variant(result)
    if main is not None:
        out += ["## By repository (consensus)", ""]
        rows = [[name, *figure_cells(f), str(f.prs)] for name, f in main.by_repository.items()]
        out += [*table(["repository", *head[1:5], "PRs"], rows), ""]
        out += ["## By severity (consensus)", ""]
        rows = [
            [
                s.severity.value,
                f"{s.found} of {s.goldens}",
                f"{pct(s.recall)} {interval(s.recall_ci)}" if s.goldens else "—",
                f"{s.matched} of {s.findings}",
                f"{pct(s.precision)} {interval(s.precision_ci)}" if s.findings else "—",
            ]
            for s in main.by_severity
        ]
        head_sev = ["severity", "goldens found", "recall", "findings matched", "precision"]
        out += [*table(head_sev, rows), "", "Recall by the golden's severity, precision by "
                "the finding's own.", ""]  # fmt: skip
    out += ["## Per pull request", ""]
    per = {row.pr: row for row in main.per_pr} if main is not None else {}
    rows = []
    for run in result.runs:
        mine = per.get(run.pr)
        counts = f"{mine.tp} / {mine.fp} / {mine.fn}" if mine else "—"
        name = f"{run.pr} (clean)" if mine is not None and mine.clean else run.pr
        rows.append(
            [name, run.group, counts, money(run.cost_usd), f"{run.wall_s:.1f}s",
             money(run.judge_cost_usd), run.run_id + (" (incomplete)" if run.incomplete else "")]
        )  # fmt: skip
    head_pr = ["pull request", "repository", "TP / FP / FN", "review cost", "wall", "judge cost"]
    out += [*table([*head_pr, "run"], rows), ""]
    if result.notes:
        out += ["## Notes", "", *[f"- {cell(n)}" for n in result.notes], ""]
    return "\n".join(out)
