"""Figures the benchmarks produced at named commits, so that a run prints what it measures
beside what was measured then, without running old code.

`benchmarks/results/recorded.json` holds, per benchmark, the setting its figures are for and
one record per commit: the commit, what the code did then, and each figure by name. A
benchmark computes the same named figures now and `compare` sets them side by side. To
record a new point, run the benchmark at a commit and add its figures under that commit:
the history of the code stays in git, its measured behaviour here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[1] / "results" / "recorded.json"


@dataclass(frozen=True)
class Record:
    commit: str
    what: str
    figures: Mapping[str, float]


@dataclass(frozen=True)
class Recorded:
    setting: str
    records: tuple[Record, ...]


def load(benchmark: str, path: Path = RECORDED) -> Recorded:
    """The recorded figures of one benchmark (a KeyError names a benchmark never recorded)."""
    entry = json.loads(path.read_text(encoding="utf-8"))[benchmark]
    records = tuple(Record(r["commit"], r["what"], r["figures"]) for r in entry["records"])
    return Recorded(entry["setting"], records)


def _cell(value: float | None, digits: int) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if float(value).is_integer() and digits == 0 else f"{value:.{digits}f}"


def compare(recorded: Recorded, now: Mapping[str, float], digits: Mapping[str, int]) -> str:
    """A markdown table: one row per figure measured now, one column per recorded commit,
    then this run's value. `digits` gives each figure's decimals (3 when absent)."""
    heads = " | ".join(f"`{r.commit}`" for r in recorded.records)
    rows = [
        f"| figure | {heads} | this run |",
        "|---|" + "---:|" * (len(recorded.records) + 1),
    ]
    for name, value in now.items():
        places = digits.get(name, 3)
        then = " | ".join(_cell(r.figures.get(name), places) for r in recorded.records)
        rows.append(f"| {name} | {then} | {_cell(value, places)} |")
    legend = [f"- `{r.commit}`: {r.what}" for r in recorded.records]
    return "\n".join([f"Recorded figures ({recorded.setting}):", "", *rows, "", *legend])
