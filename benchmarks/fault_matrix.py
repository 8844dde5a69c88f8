"""`python benchmarks/fault_matrix.py` runs benchmarks/sim/fault_matrix.py (the simulation
lives in the sim package so that its reduced run in tests/sim can import it). Its docstring says
what it measures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sim.fault_matrix import main

if __name__ == "__main__":
    sys.exit(main())
