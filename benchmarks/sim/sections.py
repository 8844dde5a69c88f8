"""The figures blocks of the BENCHMARKS.md sections, rendered from a benchmark's results.

A section file (`benchmarks/results/<name>.md`) is prose written by people around blocks
between `<!-- figures: NAME -->` and `<!-- /figures -->` that a benchmark run writes
(`write_figures`). Each `*_figures` function here is pure: from one run's results (a
frozen dataclass) to the markdown of its blocks, so the text is testable without running
the benchmark. The benchmarks (`benchmarks/*_bench.py`) measure, build these results and,
with `--markdown PATH`, write the blocks; `python benchmarks/report.py` then assembles.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

BLOCK = re.compile(r"<!-- figures: (?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /figures -->", re.S)


def write_figures(section: Path, blocks: dict[str, str]) -> None:
    """Replace each named figures block of a section file with this run's text; a block
    the file does not have is an error (the prose decides where figures go)."""
    text = section.read_text(encoding="utf-8")
    for name, figures in blocks.items():
        start, end = f"<!-- figures: {name} -->\n", "<!-- /figures -->"
        head, found, rest = text.partition(start)
        if not found or end not in rest:
            raise ValueError(f"{section.name} has no figures block {name!r}")
        text = head + start + figures.strip() + "\n" + end + rest.split(end, 1)[1]
    section.write_text(text, encoding="utf-8")


def figures_blocks(text: str) -> dict[str, str]:
    """The figures blocks of a section's text: name → what is between the markers."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def hand_carried(results: Path, sections: Iterable[str], whole: Iterable[str]) -> list[str]:
    """The sections with no figures block that no benchmark writes whole: figures typed
    from a run's output, which the next run would not update."""
    written = set(whole)
    return [
        name
        for name in sections
        if name not in written
        and not figures_blocks((results / f"{name}.md").read_text(encoding="utf-8"))
    ]


def table(head: Sequence[str], align: str, rows: Iterable[Sequence[str]]) -> str:
    """A markdown table; `align` has one letter per column: `l` (left) or `r` (right)."""
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    lines = ["| " + " | ".join(head) + " |", rule]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


@dataclass(frozen=True)
class Machine:
    """Where a run was made: cores and the 1-minute load average at its start and end."""

    cores: int
    load_start: float
    load_end: float

    @classmethod
    def now(cls, started: float) -> Machine:
        return cls(os.cpu_count() or 1, started, os.getloadavg()[0])


def machine_line(machine: Machine) -> str:
    return (
        f"One run on the shared {machine.cores}-core machine (load average "
        f"{machine.load_start:.1f} at the start, {machine.load_end:.1f} at the end):"
    )


# --------------------------------------------------------------------------- journal


@dataclass(frozen=True)
class JournalResults:
    calls: int
    record_median_ms: float
    record_p95_ms: float
    served_median_ms: float
    bytes_per_call: float
    machine: Machine


JOURNAL_TARGET_MS = 2.0


def journal_figures(r: JournalResults) -> dict[str, str]:
    rows = [
        (
            "recording a call, median",
            f"{r.record_median_ms:.2f} ms",
            f"< {JOURNAL_TARGET_MS:g} ms: {verdict(r.record_median_ms < JOURNAL_TARGET_MS)}",
        ),
        ("recording a call, p95", f"{r.record_p95_ms:.2f} ms", ""),
        ("serving it again on resume, median", f"{r.served_median_ms:.2f} ms", ""),
        ("journal size per call", f"{r.bytes_per_call / 1000:.1f} KB", ""),
    ]
    head = (f"{r.calls:,} calls", "measured", "target")
    return {"journal": machine_line(r.machine) + "\n\n" + table(head, "lrl", rows)}


# --------------------------------------------------------------------------- ingest


@dataclass(frozen=True)
class IngestRow:
    case: str
    files: int
    lines: int
    seconds: float
    peak_mb: float
    added_mb: float

    @property
    def us_per_line(self) -> float:
        return self.seconds / self.lines * 1e6


@dataclass(frozen=True)
class IngestResults:
    file: IngestRow  # one large source file
    pr: IngestRow  # the many-file PR
    machine: Machine


TARGET_MB = 500


def ingest_ratio(r: IngestResults) -> float:
    return r.pr.us_per_line / r.file.us_per_line


def ingest_figures(r: IngestResults) -> dict[str, str]:
    rows = [
        (
            row.case,
            f"{row.files:,}",
            f"{row.lines:,}",
            f"{row.seconds:.2f}",
            f"{row.us_per_line:.1f}",
            f"{row.peak_mb:.0f}",
            f"{row.added_mb:.0f}",
        )
        for row in (r.file, r.pr)
    ]
    head = ("diff", "files", "lines", "ingest (s)", "µs per line", "peak RSS (MB)", "+MB")
    ratio = ingest_ratio(r)
    summary = (
        f"Time per line grows {ratio:.2f}× from one file to {r.pr.files:,} files (target ≈ 1: "
        f"linear in lines, not in files; {verdict(ratio < 1.5)}); peak memory "
        f"{r.pr.peak_mb:.0f} MB for the {r.pr.files:,}-file PR (target < {TARGET_MB} MB; "
        f"{verdict(r.pr.peak_mb < TARGET_MB)})."
    )
    text = "\n\n".join([machine_line(r.machine), table(head, "lrrrrrr", rows), summary])
    return {"ingest": text}


# --------------------------------------------------------------------------- scale


@dataclass(frozen=True)
class ScaleRow:
    files: int
    lines: int
    calls: int
    findings: int
    cpu_s: float
    peak_mb: float


@dataclass(frozen=True)
class ScaleResults:
    rows: tuple[ScaleRow, ...]  # smallest first
    machine: Machine


TARGET_CPU_S = 10.0


def scale_growth(r: ScaleResults) -> float:
    """CPU per file at the largest size over CPU per file at the smallest (1.0 = linear)."""
    small, large = r.rows[0], r.rows[-1]
    return (large.cpu_s / small.cpu_s) / (large.files / small.files)


def scale_figures(r: ScaleResults) -> dict[str, str]:
    rows = [
        (
            f"{s.files:,}",
            f"{s.lines:,}",
            f"{s.calls:,}",
            f"{s.findings:,}",
            f"{s.cpu_s:.2f}",
            f"{s.peak_mb:.0f}",
        )
        for s in r.rows
    ]
    head = ("files", "changed lines", "calls", "findings", "tool CPU (s)", "peak RSS (MB)")
    small, large = r.rows[0], r.rows[-1]
    summary = (
        f"CPU per file grows {scale_growth(r):.2f}× from {small.files:,} to {large.files:,} "
        f"files (1.0 = linear). Targets at {large.files:,} files: peak memory < {TARGET_MB} MB "
        f"({verdict(large.peak_mb < TARGET_MB)}: {large.peak_mb:.0f} MB), tool CPU < "
        f"{TARGET_CPU_S:g} s ({verdict(large.cpu_s < TARGET_CPU_S)}: {large.cpu_s:.1f} s)."
    )
    text = "\n\n".join([machine_line(r.machine), table(head, "rrrrrr", rows), summary])
    return {"scale": text}


# --------------------------------------------------------------------------- review


@dataclass(frozen=True)
class ReviewResults:
    calls: int
    wall_s: float
    planning_s: float
    ideal_s: float
    sent_over_naive: float
    prefix_share: float
    align_s: float  # best of the runs, 5,000 findings
    machine: Machine


def review_figures(r: ReviewResults) -> dict[str, str]:
    ratio = r.wall_s / r.ideal_s
    rows = [
        (
            f"wall time / ideal (ideal = ceil(calls / concurrency) × latency; {r.calls} calls)",
            f"{ratio:.2f}",
            f"≤ 1.3: {verdict(ratio <= 1.3)}",
        ),
        (
            "of which planning (chunking, token counts)",
            f"{r.planning_s:.2f} s of {r.wall_s:.2f} s",
            "",
        ),
        (
            "prompt tokens sent / naive (diff tokens × providers × personas)",
            f"{r.sent_over_naive:.2f}",
            "",
        ),
        (
            "calls whose first 4,000 prompt characters repeat an earlier call's",
            f"{r.prefix_share:.2f}",
            f"≥ 0.75: {verdict(r.prefix_share >= 0.75)}",
        ),
        (
            "aligning 5,000 findings (best of 3)",
            f"{r.align_s:.2f} s",
            f"< 1 s: {verdict(r.align_s < 1)}",
        ),
    ]
    text = machine_line(r.machine) + "\n\n" + table(("figure", "value", "target"), "lrl", rows)
    return {"review": text}


# --------------------------------------------------------------------------- overhead


@dataclass(frozen=True)
class StartUpFigures:
    import_exit_s: float  # `python -c "import litellm"`, the whole process
    import_done_s: float  # … until the import is done
    first_call_s: float  # `consensus review`: process start → first model call
    help_s: float
    runs: int


@dataclass(frozen=True)
class PhaseFigures:
    latency_s: float
    calls: int
    ideal_s: float
    ratios: tuple[float, ...]  # fan-out / ideal, one per run
    cpu_ms_per_call: float  # median of the runs
    target: float


@dataclass(frozen=True)
class StepFigures:
    install_s: float
    startup_s: float  # step start → first model call
    calls_s: float  # first call → last answer
    publish_s: float  # last answer → step end
    step_s: float
    first_call_s: float  # Python set up → first model call


@dataclass(frozen=True)
class ActionFigures:
    cold: StepFigures
    warm: StepFigures
    slash_s: float  # `/consensus explain F1`, warm: step time after Python is set up
    same_report: bool
    venv_mb: float


@dataclass(frozen=True)
class OverheadResults:
    start_up: StartUpFigures
    phases: tuple[PhaseFigures, ...]
    distinct_reports: int
    action: ActionFigures | None  # None: run with --skip-action
    machine: Machine


def _start_up_rows(s: StartUpFigures) -> list[tuple[str, str, str]]:
    whole, done = s.first_call_s / s.import_exit_s, s.first_call_s / s.import_done_s
    return [
        (
            f'`python -c "import litellm"`, whole process (best of {s.runs})',
            f"{s.import_exit_s:.2f} s",
            "",
        ),
        ("of which until the import is done", f"{s.import_done_s:.2f} s", ""),
        (
            f"`consensus review`: process start → first model call (best of {s.runs}, "
            "alternated with the above)",
            f"{s.first_call_s:.2f} s",
            "",
        ),
        (
            "first call / import litellm (whole process)",
            f"{whole:.2f}",
            f"≤ 1.10: {verdict(whole <= 1.1)}",
        ),
        (
            "first call / import litellm (until the import is done)",
            f"{done:.2f}",
            f"(stricter, {'met' if done <= 1.1 else 'not met'})",
        ),
        ("`consensus --help`", f"{s.help_s:.2f} s", f"< 0.5 s: {verdict(s.help_s < 0.5)}"),
    ]


def _phase_rows(phases: Sequence[PhaseFigures]) -> list[tuple[str, str, str]]:
    rows = []
    for n, p in enumerate(phases):
        best, median = min(p.ratios), statistics.median(p.ratios)
        calls = f"{p.calls} calls, " if n == 0 else ""
        rows.append(
            (
                f"model phase / ideal at {p.latency_s:g} s per call ({calls}ideal "
                f"{p.ideal_s:g} s; best, median of {len(p.ratios)})",
                f"{best:.2f}, {median:.2f}",
                f"≤ {p.target:.2f}: {verdict(best <= p.target)}",
            )
        )
    rows.append(("client CPU per call, whole review", f"{phases[0].cpu_ms_per_call:.1f} ms", ""))
    return rows


def _seconds(value: float) -> str:
    return "0 s (skipped)" if value == 0 else f"{value:.1f} s"


def _action_rows(a: ActionFigures) -> list[tuple[str, str, str]]:
    return [
        ("Action, cold: install", _seconds(a.cold.install_s), ""),
        ("Action, warm: install", _seconds(a.warm.install_s), ""),
        (
            "Action, warm: Python set up → first model call",
            f"{a.warm.first_call_s:.1f} s",
            f"≤ 15 s: {verdict(a.warm.first_call_s <= 15)}",
        ),
        ("Action, cold: Python set up → first model call", f"{a.cold.first_call_s:.1f} s", ""),
        (
            "`/consensus explain F1`, warm: step time after Python is set up",
            f"{a.slash_s:.1f} s",
            f"≤ 10 s: {verdict(a.slash_s <= 10)}",
        ),
        (
            "cold and warm Action runs: byte-identical JSON report",
            "yes" if a.same_report else "NO",
            f"yes: {verdict(a.same_report)}",
        ),
        (
            "cached venv (what a real runner downloads on a warm run; not simulated here)",
            f"{a.venv_mb:.0f} MB",
            "",
        ),
    ]


def overhead_figures(r: OverheadResults) -> dict[str, str]:
    rows = [*_start_up_rows(r.start_up), *_phase_rows(r.phases)]
    rows.append(
        (
            "same replies → same report (JSON of every run, timing fields zeroed)",
            f"{r.distinct_reports} distinct",
            f"1: {verdict(r.distinct_reports == 1)}",
        )
    )
    if r.action is not None:
        rows += _action_rows(r.action)
    text = machine_line(r.machine) + "\n\n" + table(("figure", "measured", "target"), "lrl", rows)
    a = r.action
    if a is None:
        step = "The Action was not run (`--skip-action`): no step times."
    else:
        step = (
            "The review step itself, cold / warm: start-up (step start → first model call) "
            f"{a.cold.startup_s:.1f} / {a.warm.startup_s:.1f} s, calls (first call → last "
            f"answer) {a.cold.calls_s:.1f} / {a.warm.calls_s:.1f} s, publish (last answer → "
            f"step end) {a.cold.publish_s:.1f} / {a.warm.publish_s:.1f} s, whole step "
            f"{a.cold.step_s:.1f} / {a.warm.step_s:.1f} s."
        )
    return {"overhead": text, "overhead-step": step}
