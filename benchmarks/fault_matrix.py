"""`python benchmarks/fault_matrix.py` runs fakes/fault_matrix.py, which tests/ share too: neither
tree imports the other, both import fakes/. Its docstring says what it measures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakes.fault_matrix import main

if __name__ == "__main__":
    sys.exit(main())
