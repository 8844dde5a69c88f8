"""Assemble BENCHMARKS.md from the sections the benchmarks wrote in benchmarks/results/.

Each section is one file, `benchmarks/results/<name>.md`, beginning with its own `##`
heading and naming the command that measures it. People write the prose; a benchmark run
with `--markdown <section>` writes its figures there: the whole section (hostile_bench), or
each block between `<!-- figures: NAME -->` and `<!-- /figures -->` (`write_figures`), so the
prose around a table stays as written. This script only joins the sections in SECTIONS
order under a short header, so BENCHMARKS.md is always the latest figures, in the present
tense; their history is in git.

    python benchmarks/report.py            # write BENCHMARKS.md
    python benchmarks/report.py --check    # exit 1 if BENCHMARKS.md is not the assembly
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DOCUMENT = ROOT / "BENCHMARKS.md"
SECTIONS = (
    "judges",
    "quality",
    "merge_corpus",
    "rerun",
    "review",
    "scale",
    "ingest",
    "journal",
    "overhead",
    "hostile",
    "redaction",
)
HEADER = """# Benchmarks

What the benchmarks in `benchmarks/` measure, with the figures of their latest runs. This
file is assembled by `python benchmarks/report.py` from `benchmarks/results/*.md`, one
section per benchmark, each naming the command that measures it; comparisons with earlier
versions of the code use the figures recorded at named commits in
`benchmarks/results/recorded.json`. Re-run a benchmark, then the assembly.
"""


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
        return 0 if same else 1
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT.name}: {len(SECTIONS)} sections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
