"""Earlier versions of the decision code: not run, recorded.

The benchmarks compare this checkout with figures recorded at named commits
(`benchmarks/sim/recorded.py`, `benchmarks/results/recorded.json`) instead of loading old
modules from git and executing them. `load` therefore always answers why a version's code
is not loaded, and the quality simulation leaves those columns empty; the recorded
figures are printed beside this run's by `benchmarks/quality_bench.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from benchmarks.sim.recorded import RECORDED


@dataclass(frozen=True)
class Version:
    commit: str
    what: str


@dataclass(frozen=True)
class Baseline:
    align: ModuleType
    score: ModuleType
    verify: ModuleType
    detections: ModuleType
    sameness: ModuleType | None = None


TODAY = Version("5dbbbac", "the decision code before one problem, one comment")
ROUND_ONE = Version("9652b02", "one problem, one comment, first rule")


def load(version: Version = TODAY) -> Baseline | str:
    """Why the code of `version` is not run: its figures are recorded instead."""
    return f"{version.what} ({version.commit}) is compared through {RECORDED.name}"
