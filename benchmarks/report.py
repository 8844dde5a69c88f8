"""Assemble BENCHMARKS.md from the sections the benchmarks wrote in benchmarks/results/.

Each section is one file, `benchmarks/results/<name>.md`, beginning with its own `##`
heading and naming the command that measures it. People write the prose; a benchmark run
with `--markdown <section>` writes its figures there: the whole section (hostile_bench), or
each block between `<!-- figures: NAME -->` and `<!-- /figures -->` (`write_figures`), so the
prose around a table stays as written (`benchmarks/sim/sections.py`). This script only joins
the sections in SECTIONS order under a short header, so BENCHMARKS.md is always the latest
figures, in the present tense; their history is in git. No section's figures are typed
from a run's output: `--check` fails on a section with no figures block that no benchmark
writes whole.

    python benchmarks/report.py            # write BENCHMARKS.md
    python benchmarks/report.py --check    # exit 1 if BENCHMARKS.md is not the assembly
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.sections import hand_carried, write_figures  # noqa: E402

__all__ = ["SECTIONS", "assemble", "write_figures"]
RESULTS = ROOT / "benchmarks" / "results"
DOCUMENT = ROOT / "BENCHMARKS.md"
SECTIONS = (
    "judges",
    "quality",
    "analyzer_quality",
    "analyzers",
    "tools",
    "merge_corpus",
    "rerun",
    "github",
    "review",
    "scale",
    "ingest",
    "journal",
    "first_run",
    "overhead",
    "hostile",
    "redaction",
)
# Sections a benchmark writes whole rather than block by block (hostile_bench --markdown).
WHOLE = ("hostile",)
HEADER = """# Benchmarks

What the benchmarks in `benchmarks/` measure, with the figures of their latest runs. This
file is assembled by `python benchmarks/report.py` from `benchmarks/results/*.md`, one
section per benchmark, each naming the command that measures it; comparisons with earlier
versions of the code use the figures recorded at named commits in
`benchmarks/results/recorded.json`. Re-run a benchmark, then the assembly.

The quality figures below come from simulations. On real pull requests with known defects,
`consensus bench` counts precision and recall as Martian's Code Review Bench does (goldens
matched over every finding posted; a second finding on a defect already found is a false
positive): [How consensus bench counts](docs/bench.md).
"""


def assemble(results: Path = RESULTS) -> str:
    """The document: the header, then every section in SECTIONS order."""
    sections = [(results / f"{name}.md").read_text(encoding="utf-8").strip() for name in SECTIONS]
    return "\n\n".join([HEADER.strip(), *sections]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description="Assemble BENCHMARKS.md.")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = assemble()
    if args.check:
        same = DOCUMENT.exists() and DOCUMENT.read_text(encoding="utf-8") == text
        print("BENCHMARKS.md is the assembly" if same else "BENCHMARKS.md is out of date")
        typed = hand_carried(RESULTS, SECTIONS, WHOLE)
        if typed:
            print(
                f"figures typed by hand in {typed}: give them figures blocks that their "
                "benchmark writes (<!-- figures: NAME -->, benchmarks/sim/sections.py)"
            )
            return 1
        return 0 if same else 1
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT.name}: {len(SECTIONS)} sections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
