"""Scale benchmark: peak memory and tool CPU time for diffs of 100 to 2,000 files.

Runs the real pipeline (ingest → plan → fan-out → align → score → verify → report) on
synthetic diffs of 50 changed lines per file (2,000 files = 100,000 lines), with a fake
model client that answers at once with two findings per call, so what is measured is the
tool itself. Each size runs in its own process, so peak RSS is that size's alone.

    python benchmarks/scale_bench.py [--sizes 100,500,1000,2000]
        [--markdown benchmarks/results/scale.md]
    python benchmarks/scale_bench.py --ingest [--markdown benchmarks/results/ingest.md]

`--ingest` times ingest alone (parse → path filter → redaction → hunk split) on a diff that
adds one 20,000-line source file and on the 2,000-file diff above, each in its own process,
with the peak RSS above the process's size once everything is imported.

`--markdown` writes this run's figures into the section's figures block
(benchmarks/sim/sections.py); then run `python benchmarks/report.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.sections import (  # noqa: E402
    TARGET_CPU_S,
    TARGET_MB,
    IngestResults,
    IngestRow,
    Machine,
    ScaleResults,
    ScaleRow,
    ingest_figures,
    ingest_ratio,
    scale_figures,
    scale_growth,
    write_figures,
)

LINES_PER_FILE = 50


def synthetic_diff(files: int) -> str:
    out = []
    for n in range(files):
        path = f"pkg{n // 100}/module_{n}.py"
        body = [
            f"+    value_{i} = compute_{i}(item, limit={i * 7 % 97})" for i in range(LINES_PER_FILE)
        ]
        out.append(
            f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n"
            f"--- a/{path}\n+++ b/{path}\n@@ -10,0 +11,{LINES_PER_FILE} @@ def run(item):\n"
            + "\n".join(body)
            + "\n"
        )
    return "".join(out)


def big_file_diff(lines: int = 20_000) -> str:
    """`git diff` of one new source file of `lines` lines, as the torture repository's."""
    body = "".join(f"+row_{n} = compute({n}, limit={n * 7 % 97})\n" for n in range(1, lines + 1))
    return (
        "diff --git a/src/big.py b/src/big.py\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/src/big.py\n@@ -0,0 +1,{lines} @@\n{body}"
    )


def one_ingest(case: str) -> dict[str, float | str]:
    """Run inside a fresh process: ingest time and peak memory of one diff."""
    from consensus.ingest.chunking import split_large_hunks
    from consensus.ingest.review_diff import ingest

    raw = (big_file_diff() if case == "file" else synthetic_diff(2_000)).encode()
    before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    diff = split_large_hunks(ingest(raw))
    seconds = time.perf_counter() - started
    lines = sum(len(h.lines) for f in diff.files for h in f.hunks)
    return {
        "case": "one 20,000-line source file"
        if case == "file"
        else "2,000-file PR (50 lines each)",
        "files": len(diff.files),
        "lines": lines,
        "seconds": seconds,
        "us_per_line": seconds / lines * 1e6,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "added_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before_mb,
    }


def ingest_main(markdown: Path | None) -> None:
    load_start = os.getloadavg()[0]
    rows = [
        json.loads(
            subprocess.run(
                [sys.executable, __file__, "--one-ingest", case],
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for case in ("file", "pr")
    ]
    file, pr = (
        IngestRow(
            case=str(row["case"]),
            files=int(row["files"]),
            lines=int(row["lines"]),
            seconds=float(row["seconds"]),
            peak_mb=float(row["peak_mb"]),
            added_mb=float(row["added_mb"]),
        )
        for row in rows
    )
    results = IngestResults(file, pr, Machine.now(load_start))
    print("ingest benchmark · parse → path filter → redaction → hunk split, one process each")
    heads = ("files", "lines", "ingest s", "µs/line", "peak MB", "+MB")
    print(f"  {'diff':<30} " + " ".join(f"{h:>{max(6, len(h))}}" for h in heads))
    for row in (file, pr):
        print(
            f"  {row.case:<30} {row.files:>6} {row.lines:>8,} {row.seconds:>9.2f}"
            f" {row.us_per_line:>8.1f} {row.peak_mb:>8.0f} {row.added_mb:>6.0f}"
        )
    ratio = ingest_ratio(results)
    print(
        f"  time per line, 2,000 files vs one file: {ratio:.2f}×   target ≈ 1 (linear in lines, "
        f"not in files)   {'met' if ratio < 1.5 else 'NOT MET'}"
    )
    print(
        f"  peak memory, 2,000-file PR: {pr.peak_mb:.0f} MB   target < {TARGET_MB}"
        f"   {'met' if pr.peak_mb < TARGET_MB else 'NOT MET'}"
    )
    if markdown:
        write_figures(markdown, ingest_figures(results))
        print(f"wrote the figures into {markdown}; now run python benchmarks/report.py")


def one_size(files: int) -> dict[str, float]:
    """Run inside a fresh process: time and memory of one review of `files` files."""
    from consensus.ingest.chunking import split_large_hunks
    from consensus.ingest.review_diff import ingest
    from consensus.ports import CompletionRequest, ModelPrice
    from consensus.review.job import ReviewJob
    from consensus.review.pipeline import ReviewServices, review
    from consensus.settings.config import ProviderSettings, Settings
    from consensus.settings.personas import load_personas, select_personas
    from consensus.testing import FakeModelClient

    class Counter:  # 4 characters a token: the tokenizer's cost is litellm's, not ours
        def count(self, model: str, text: str) -> int:
            return len(text) // 4

        def context_window(self, model: str) -> int | None:
            return 128_000

        def price(self, model: str) -> ModelPrice | None:
            return None

    def answer(request: CompletionRequest) -> str:
        """Two findings on every file of the chunk, the same from every model."""
        text = request.messages[-1].content
        paths = [part.split(" ", 1)[0] for part in text.split("## File: ")[1:]]
        return json.dumps(
            {
                "findings": [
                    {
                        "path": path,
                        "line": 11 + i * 7,
                        "severity": "medium",
                        "category": "bug",
                        "title": f"Unchecked result of compute_{i * 7}",
                        "body": "The value may be None and is used without a check.",
                    }
                    for path in paths
                    for i in range(2)
                ]
            }
        )

    started_cpu = time.process_time()
    started = time.perf_counter()
    diff = split_large_hunks(ingest(synthetic_diff(files)))
    personas = select_personas(load_personas([]), ["correctness", "security"])
    providers = (
        ProviderSettings(model="openai/gpt-5.1"),
        ProviderSettings(model="anthropic/claude-sonnet-4-5"),
        ProviderSettings(model="gemini/gemini-2.5-pro"),
    )
    settings = Settings(budget={"max_cost_usd": None, "max_tokens": None}, concurrency=16)
    client = FakeModelClient(by_request=answer)
    report = asyncio.run(
        review(
            ReviewJob(
                diff=diff,
                settings=settings,
                providers=tuple(providers),
                personas=tuple(personas),
            ),
            ReviewServices(client, Counter(), clock=time.perf_counter),
        )
    )
    return {
        "files": files,
        "lines": files * LINES_PER_FILE,
        "calls": len(client.calls),
        "findings": len(report.findings),
        "cpu_s": time.process_time() - started_cpu,
        "wall_s": time.perf_counter() - started,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,1000,2000")
    parser.add_argument("--ingest", action="store_true", help="time ingest alone")
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--one-ingest", choices=("file", "pr"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one)))
        return
    if args.one_ingest:
        print(json.dumps(one_ingest(args.one_ingest)))
        return
    if args.ingest:
        ingest_main(args.markdown)
        return
    load_start = os.getloadavg()[0]
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(size)],
            check=True,
            capture_output=True,
            text=True,
        )
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(
            ScaleRow(
                files=int(row["files"]),
                lines=int(row["lines"]),
                calls=int(row["calls"]),
                findings=int(row["findings"]),
                cpu_s=float(row["cpu_s"]),
                peak_mb=float(row["peak_mb"]),
            )
        )
    results = ScaleResults(tuple(rows), Machine.now(load_start))
    print("scale benchmark · 3 providers × 2 personas · fake models answering at once")
    print(f"  {'files':>6} {'lines':>8} {'calls':>6} {'findings':>9} {'CPU s':>7} {'peak MB':>8}")
    for row in rows:
        print(
            f"  {row.files:>6} {row.lines:>8,} {row.calls:>6} {row.findings:>9}"
            f" {row.cpu_s:>7.2f} {row.peak_mb:>8.0f}"
        )
    small, last = rows[0], rows[-1]
    print(
        f"  CPU per file grows {scale_growth(results):.2f}× from {small.files} to {last.files} "
        "files (1.0 = linear)"
    )
    print(
        f"  peak memory at {last.files} files: {last.peak_mb:.0f} MB   target < {TARGET_MB}"
        f"   {'met' if last.peak_mb < TARGET_MB else 'NOT MET'}"
    )
    print(
        f"  tool CPU at {last.files} files: {last.cpu_s:.1f} s   target < {TARGET_CPU_S:g}"
        f"   {'met' if last.cpu_s < TARGET_CPU_S else 'NOT MET'}"
    )
    if args.markdown:
        write_figures(args.markdown, scale_figures(results))
        print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")


if __name__ == "__main__":
    main()
