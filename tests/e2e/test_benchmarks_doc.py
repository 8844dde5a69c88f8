"""BENCHMARKS.md is what benchmarks/report.py assembles from the benchmarks' sections, so a
re-run benchmark's figures reach the document only through its section file; and those
figures are written by the benchmark, never typed from its output."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmarks_md_is_the_assembly_of_the_sections() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/report.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def copy_of_the_assembly(into: Path) -> Path:
    """The assembler, the section files and BENCHMARKS.md, as they are in this checkout."""
    for name in (
        "BENCHMARKS.md",
        "benchmarks/__init__.py",
        "benchmarks/report.py",
        "benchmarks/sim/__init__.py",
        "benchmarks/sim/sections.py",
    ):
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, into / name)
    shutil.copytree(ROOT / "benchmarks" / "results", into / "benchmarks" / "results")
    return into


def test_a_section_whose_figures_are_typed_by_hand_fails_the_check(tmp_path: Path) -> None:
    """Every section has figures blocks its benchmark writes (or is written whole): one
    whose figures are typed from a run's output again is caught, even when BENCHMARKS.md
    was assembled from it."""
    root = copy_of_the_assembly(tmp_path)
    journal = root / "benchmarks" / "results" / "journal.md"
    typed = re.sub(r"<!-- /?figures[^>]*-->\n", "", journal.read_text(encoding="utf-8"))
    journal.write_text(typed, encoding="utf-8")
    subprocess.run([sys.executable, "benchmarks/report.py"], cwd=root, check=True)
    done = subprocess.run(
        [sys.executable, "benchmarks/report.py", "--check"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "['journal']" in done.stdout


def readme_benchmarks_section() -> str:
    """The documentation's Benchmarks page, up to its next section (How good is it?)."""
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    return page.split("# Benchmarks\n", 1)[1].split("\n## ", 1)[0]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lstrip("#").strip().lower()).replace(" ", "-")


def test_the_benchmarks_page_carries_no_benchmark_figures_table() -> None:
    """BENCHMARKS.md owns the figures: the docs' Benchmarks page says what each
    benchmark measures and its target, and links there, with no table of a run's output."""
    tables = [line for line in readme_benchmarks_section().splitlines() if line.startswith("|")]
    assert tables == []


def test_the_benchmarks_page_links_every_benchmarks_section_and_every_link_lands() -> None:
    sections = (ROOT / "benchmarks" / "results").glob("*.md")
    headings = {anchor(p.read_text(encoding="utf-8").split("\n", 1)[0]) for p in sections}
    document = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    targets = {anchor(line) for line in document.splitlines() if line.startswith("#")}
    linked = set(re.findall(r"BENCHMARKS\.md#([\w-]+)", readme_benchmarks_section()))
    assert linked <= targets, sorted(linked - targets)
    assert headings <= linked, sorted(headings - linked)
