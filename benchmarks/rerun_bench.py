"""Re-runs on the same head: decisions that flip, and what a re-run costs.

    python benchmarks/rerun_bench.py [--prs 300] [--markdown benchmarks/results/rerun.md]

The quality simulation's PRs and panel, with verifiers that sample afresh on each run
unless a seed their provider honours fixes the sample (benchmarks/sim/rerun_world.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.report import write_figures  # noqa: E402
from benchmarks.sim.quality_world import DEFAULT  # noqa: E402
from benchmarks.sim.rerun_world import simulate, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prs", type=int, default=300)
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    params = dataclasses.replace(DEFAULT, prs=args.prs)
    print(f"{args.prs} simulated PRs (seed {params.seed}), each decided, then decided again")
    figures = table(simulate(params))
    print(figures)
    if args.markdown:
        write_figures(args.markdown, {"rerun": figures})


if __name__ == "__main__":
    main()
