"""`python benchmarks/quality_bench.py` runs the quality simulation
(benchmarks/sim/quality_world.py, whose docstring says what it measures), then prints this
run's headline figures beside those recorded at earlier commits
(benchmarks/results/recorded.json, measured with impartial judges: compared under
`--judges impartial`). `--presets` prints the judge presets side by side and the rules'
frontier (benchmarks/sim/quality_rules.py), one run per seed of `--seeds 1,2,3`.

`--looking-only` runs only the section of judges that look (benchmarks/sim/looking_section.py:
every preset at three effects of looking, one process a seed, `--workers` at a time).

`--markdown PATH` writes this run's figures into the figures blocks of the quality section
(benchmarks/sim/quality_figures.py), with `--presets` of the judges section
(`quality_rules.judges_figures`), with `--looking-only` its `judges-looking` block; then run
`python benchmarks/report.py`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sim import looking_section, quality_rules, recorded
from benchmarks.sim import quality_world as world
from benchmarks.sim.judge_presets import IMPARTIAL, PRESETS
from benchmarks.sim.quality_figures import quality_figures
from benchmarks.sim.sections import write_figures

DIGITS = {
    "posted findings on the clean PRs": 0,
    "… of them posted without any verification": 0,
    "verification calls / PR": 2,
}


def headline(result: world.SimResult) -> dict[str, float]:
    """The figures recorded for the default method (consensus ≥ 0.75 + verification, k=2)."""
    t = result.tallies[world.with_voting(*world.HEADLINE)]
    return {
        "duplicates posted / PR": t.per_pr(t.duplicates),
        "posted findings on the clean PRs": float(t.clean_posted),
        "… of them posted without any verification": float(t.clean_unchecked),
        "precision": t.precision,
        "recall": t.recall,
        "F1": t.f1,
        "verification calls / PR": t.per_pr(t.verify_calls + t.same_calls),
    }


def presets(prs: int, seeds: str, markdown: Path | None) -> int:
    """Every judge preset in every condition and the rules' frontier, one run per seed;
    with `markdown`, the judges section's figures blocks."""
    runs = []
    for seed in (int(s) for s in seeds.split(",")):
        started = time.perf_counter()
        base = replace(world.DEFAULT, prs=prs, seed=seed)
        runs.append(quality_rules.measure(base))
        print(
            quality_rules.report(runs[-1]), f"({time.perf_counter() - started:.0f} s)", sep="\n\n"
        )
    if markdown:
        write_figures(markdown, quality_rules.judges_figures(runs))
        print(f"wrote the figures into {markdown}; now run python benchmarks/report.py")
    return 0


def looking(prs: int, seeds: str, workers: int, markdown: Path | None) -> int:
    """The judges that look, every preset and effect, one process a seed."""
    chosen = [int(s) for s in seeds.split(",")]
    started = time.perf_counter()
    runs = looking_section.measure(prs, chosen, workers)
    text = looking_section.report(prs, runs, workers)
    print(text, f"(wall clock {time.perf_counter() - started:.0f} s)", sep="\n\n")
    if markdown:
        write_figures(markdown, looking_section.looking_figures(prs, runs, workers))
        print(f"wrote the figures into {markdown}; now run python benchmarks/report.py")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Quality benchmark (simulation).")
    parser.add_argument("--prs", type=int, default=world.DEFAULT.prs)
    parser.add_argument("--seed", type=int, default=world.DEFAULT.seed)
    parser.add_argument("--judges", choices=sorted(PRESETS), default=world.DEFAULT.judges.name)
    parser.add_argument("--rule", choices=("weighed", "ahead-by-k"), default="weighed")
    parser.add_argument(
        "--presets", action="store_true",
        help="every judge preset and the rules' frontier (benchmarks/sim/quality_rules.py)",
    )  # fmt: skip
    parser.add_argument("--shared-fp", type=float, default=world.DEFAULT.shared_fp_per_pr)
    parser.add_argument("--no-sweep", action="store_true", help="only the headline methods")
    parser.add_argument("--plot", type=Path, default=world.ROOT / "docs" / "quality.png")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    parser.add_argument("--seeds", help="with --presets or --looking-only: one run per seed")
    parser.add_argument(
        "--looking-only", action="store_true",
        help="only the judges that look (benchmarks/sim/looking_section.py)",
    )  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="with --looking-only: processes")
    args = parser.parse_args(argv)
    if args.looking_only:
        return looking(args.prs, args.seeds or str(args.seed), args.workers, args.markdown)
    if args.presets:
        return presets(args.prs, args.seeds or str(args.seed), args.markdown)
    params = replace(
        world.DEFAULT,
        prs=args.prs,
        seed=args.seed,
        judges=PRESETS[args.judges],
        rule=args.rule,
        shared_fp_per_pr=args.shared_fp,
        sweep=not args.no_sweep,
    )
    result = world.simulate(params, with_today=False)
    print(world.describe(params), end="\n\n")
    print(world.report(result))
    # The figures were recorded with impartial verifiers: compared under those only.
    if replace(params, sweep=True) == replace(world.DEFAULT, judges=IMPARTIAL):
        print("", recorded.compare(recorded.load("quality"), headline(result), DIGITS), sep="\n")
    print(f"\n{params.prs} PRs in {result.seconds:.1f} s")
    if not args.no_plot:
        world.plot(result, args.plot)
        print(f"plot: {args.plot}")
    if args.markdown:
        write_figures(args.markdown, quality_figures(result, recorded.load("quality")))
        print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
