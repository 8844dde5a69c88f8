"""BENCHMARKS.md is what benchmarks/report.py assembles from the benchmarks' sections, so a
re-run benchmark's figures reach the document only through its section file."""

from __future__ import annotations

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
