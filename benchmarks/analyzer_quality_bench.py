"""`python benchmarks/analyzer_quality_bench.py` runs the quality simulation's PRs through
the product's vote with and without a simulated static analyzer (benchmarks/sim/
analyzer_world.py, whose docstring says what it is), and prints precision and recall of
what is posted.

`--markdown PATH` writes the figures into the figures block of the analyzer section
(benchmarks/results/analyzer_quality.md); then run `python benchmarks/report.py`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sim import analyzer_world
from benchmarks.sim import quality_world as world
from benchmarks.sim.sections import write_figures


def figures(rows: Sequence[analyzer_world.Row], params: world.SimParams, seconds: float) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return (
        f"{params.prs} simulated PRs (seed {params.seed}), the quality benchmark's panel of "
        f"{len(params.reviewers)} families, threshold 0.75, no verification; {seconds:.0f} s "
        f"on the shared 2-core machine (load average {load:.1f}):\n\n" + analyzer_world.table(rows)
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--markdown", type=Path, help="the section file to write figures into")
    args = parser.parse_args(argv)
    params = replace(world.DEFAULT, prs=args.prs, seed=args.seed)
    started = time.monotonic()
    rows = analyzer_world.simulate(params)
    text = figures(rows, params, time.monotonic() - started)
    print(text)
    if args.markdown is not None:
        write_figures(args.markdown, {"analyzer_quality": text})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
