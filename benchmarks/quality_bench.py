"""`python benchmarks/quality_bench.py` runs fakes/quality_world.py, which tests/ share too: neither
tree imports the other, both import fakes/. Its docstring says what it measures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakes.quality_world import main

if __name__ == "__main__":
    sys.exit(main())
