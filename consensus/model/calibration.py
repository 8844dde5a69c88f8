"""What the repository knows of each provider family's word, on labelled claims: as a
judge (its true-positive and true-negative rates) and as a reporter (how often its
findings were real); and, unlabelled, what earlier runs' votes said (`history`).

Kept as counts, not rates, so that an interval can be shown beside every rate and a small
sample is seen as small. The file format (`.consensus/calibration.yml`, or a `calibration`
section of `.consensus.yml`):

    version: 1
    families:
      openai:
        judge: {confirmed_real: 48, missed_real: 2, refuted_false: 9, confirmed_false: 41}
        reporter: {right: 30, wrong: 12}

None of it is needed: each run estimates every family's rates from its own votes
(decide/panel_rates.py), and these counts join the estimate's prior as pseudo-counts, a
labelled claim counting as one claim seen.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from consensus.model.base import Frozen
from consensus.model.bounds import MAX_COUNT, MAX_FAMILIES, Name
from consensus.model.history import PanelTally

Z95 = 1.959964


class Rate(Frozen):
    """A rate measured on `n` cases, with its 95% Wilson interval."""

    value: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}] (n={self.n})"


def wilson(successes: int, n: int) -> Rate:
    """The rate `successes / n` and its 95% Wilson score interval (n 0: unknown, 0–1)."""
    if n <= 0:
        return Rate(value=0.0, low=0.0, high=1.0, n=0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Rate(value=p, low=max(0.0, centre - half), high=min(1.0, centre + half), n=n)


class JudgeCounts(Frozen):
    """A family's verdicts on labelled claims: real ones confirmed or missed (refuted or
    uncertain), false ones refuted or confirmed."""

    confirmed_real: int = Field(default=0, ge=0, le=MAX_COUNT)
    missed_real: int = Field(default=0, ge=0, le=MAX_COUNT)
    refuted_false: int = Field(default=0, ge=0, le=MAX_COUNT)
    confirmed_false: int = Field(default=0, ge=0, le=MAX_COUNT)

    @property
    def tpr(self) -> Rate:
        return wilson(self.confirmed_real, self.confirmed_real + self.missed_real)

    @property
    def tnr(self) -> Rate:
        return wilson(self.refuted_false, self.refuted_false + self.confirmed_false)


class ReporterCounts(Frozen):
    """A family's findings that turned out real (`right`) or not (`wrong`)."""

    right: int = Field(default=0, ge=0, le=MAX_COUNT)
    wrong: int = Field(default=0, ge=0, le=MAX_COUNT)

    @property
    def precision(self) -> Rate:
        return wilson(self.right, self.right + self.wrong)


class FamilyCalibration(Frozen):
    judge: JudgeCounts | None = None
    reporter: ReporterCounts | None = None


class Calibration(Frozen):
    """Each family's labelled counts as a judge and as a reporter (version 1 of the file
    format), and the pooled counts of earlier runs (`history`: the learnings' `panel`)."""

    version: Literal[1] = 1
    families: dict[Name, FamilyCalibration] = Field(default_factory=dict, max_length=MAX_FAMILIES)
    history: PanelTally | None = None

    def with_knowledge(self, other: Calibration) -> Calibration:
        """Both calibrations' labels added up, and their histories pooled."""
        families = dict(self.families)
        for name, entry in other.families.items():
            mine = families.get(name, FamilyCalibration())
            families[name] = FamilyCalibration(
                judge=_sum_judge(mine.judge, entry.judge),
                reporter=_sum_reporter(mine.reporter, entry.reporter),
            )
        history = self.history
        if other.history is not None:
            history = other.history if history is None else history.plus(other.history)
        return Calibration(families=families, history=history)


def _sum_judge(a: JudgeCounts | None, b: JudgeCounts | None) -> JudgeCounts | None:
    if a is None or b is None:
        return a or b
    return JudgeCounts(**{k: v + getattr(b, k) for k, v in a.model_dump().items()})


def _sum_reporter(a: ReporterCounts | None, b: ReporterCounts | None) -> ReporterCounts | None:
    if a is None or b is None:
        return a or b
    return ReporterCounts(right=a.right + b.right, wrong=a.wrong + b.wrong)
