"""Hostile-input benchmark: how long path rules and redaction take on inputs built to make a
backtracking matcher blow up. The path rules run on re2 and the redaction patterns are
written not to backtrack, so each input stays in milliseconds; the tests check the results,
this measures the time. Figures, not assertions.

    python benchmarks/hostile_bench.py [--repeat 5] [--markdown benchmarks/results/hostile.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from consensus.ingest.pathfilter import BACKEND, Glob, PathRules  # noqa: E402
from consensus.ingest.redact import redact_text  # noqa: E402

GLOBS = {
    "stars in a segment": ("*a" * 30, "a" * 3000 + "b"),
    "many double stars": ("**/" * 50 + "x", "a/" * 2000 + "y"),
    "double stars between names": ("a/**/b/**/c/**/d/**/e", "a/" + "b/c/d/" * 500 + "f"),
}
LINES = {
    "spaces after a key": "token: a" + " " * 100_000 + "x",
    "repeated keys": "password=" * 10_000,
    "one long word": "a" * 100_000,
    "long scheme": "https://" + "a" * 100_000,
    "jwt-ish": "eyJ" * 30_000,
    "open quote": 'secret: "' + "a" * 100_000,
}
CUSTOM = ["(?i)internal-token-[a-z0-9]+"]


def slowest_ms(work: Callable[[], object], repeat: int) -> float:
    """The slowest of `repeat` runs, in milliseconds (the worst case is what a user waits)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return max(times) * 1000


def section(repeat: int) -> str:
    """The BENCHMARKS.md section of one run (benchmarks/report.py assembles the document)."""
    rows = [
        "| input | size | glob (ms) | path rules (ms) | redaction (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (pattern, path) in GLOBS.items():
        glob_ms = slowest_ms(lambda p=pattern, q=path: Glob(p).matches(q), repeat)
        rules_ms = slowest_ms(lambda p=pattern, q=path: PathRules([p]).matches(q), repeat)
        rows.append(f"| glob: {name} | {len(path):,} | {glob_ms:.1f} | {rules_ms:.1f} | |")
    # The secret detector loads on the first line that could hold a key, once per process:
    # a one-time cost (benchmarks/results/redaction.md), not the time of a hostile line.
    redact_text("x" * 40)
    for name, line in LINES.items():
        ms = slowest_ms(lambda text=line: redact_text(text, CUSTOM), repeat)
        rows.append(f"| line: {name} | {len(line):,} | | | {ms:.1f} |")
    return "\n".join(
        [
            "## Hostile input",
            "",
            "`python benchmarks/hostile_bench.py --markdown benchmarks/results/hostile.md`",
            "times the path rules and the redaction on inputs built to make a backtracking",
            f"matcher blow up (the slowest of {repeat} runs each; path rules on {BACKEND}). The",
            "tests check what these inputs give; this measures how long they take. Sizes are",
            "characters.",
            "",
            *rows,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--markdown", type=Path, help="also write the BENCHMARKS.md section here")
    args = parser.parse_args()
    text = section(args.repeat)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
