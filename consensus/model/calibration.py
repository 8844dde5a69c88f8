"""What each provider family's word is worth: as a judge (its true-positive and
true-negative rates) and as a reporter (how often its findings were real).

Kept as counts, not rates, so that an interval can be shown beside every rate and a small
sample is seen as small. The file format (`.consensus/calibration.yml`, or a `calibration`
section of `.consensus.yml`):

    version: 1
    families:
      openai:
        judge: {confirmed_real: 48, missed_real: 2, refuted_false: 9, confirmed_false: 41}
        reporter: {right: 30, wrong: 12}

A family the calibration does not name is judged by the agreeable defaults (LLM judges
confirm nearly every claim put to them and refute few false ones), never by optimistic
ones; a reporter without counts by the defaults in `decide/evidence.py`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from consensus.model.base import Frozen

# The agreeable judge a family is assumed to be without a calibration: it confirms real
# claims 96% of the time and refutes false ones 20-45% of the time (LLM judges validating
# code-review feedback, measured across 14 models). The least sceptical figure is the
# default for a family not named here.
DEFAULT_TPR = 0.96
AGREEABLE_TNR = {"openai": 0.45, "anthropic": 0.35, "google": 0.25, "qwen": 0.20}
DEFAULT_TNR = 0.20
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

    confirmed_real: int = Field(default=0, ge=0)
    missed_real: int = Field(default=0, ge=0)
    refuted_false: int = Field(default=0, ge=0)
    confirmed_false: int = Field(default=0, ge=0)

    @property
    def tpr(self) -> Rate:
        return wilson(self.confirmed_real, self.confirmed_real + self.missed_real)

    @property
    def tnr(self) -> Rate:
        return wilson(self.refuted_false, self.refuted_false + self.confirmed_false)


class ReporterCounts(Frozen):
    """A family's findings that turned out real (`right`) or not (`wrong`)."""

    right: int = Field(default=0, ge=0)
    wrong: int = Field(default=0, ge=0)

    @property
    def precision(self) -> Rate:
        return wilson(self.right, self.right + self.wrong)


class FamilyCalibration(Frozen):
    judge: JudgeCounts | None = None
    reporter: ReporterCounts | None = None


class JudgeRates(Frozen):
    """The rates a verdict of one family is weighed by, and where they come from."""

    tpr: float = Field(gt=0, lt=1)
    tnr: float = Field(gt=0, lt=1)
    source: Literal["calibrated", "default"]


def _clamped(value: float) -> float:
    """Rates of exactly 0 or 1 would make one verdict infinitely strong: kept inside."""
    return min(max(value, 0.01), 0.99)


class Calibration(Frozen):
    """Each family's counts as a judge and as a reporter (version 1 of the file format)."""

    version: Literal[1] = 1
    families: dict[str, FamilyCalibration] = Field(default_factory=dict)

    def judge(self, family: str) -> JudgeRates:
        """The family's rates as a judge: calibrated when it has counts on both real and
        false claims, else the agreeable defaults."""
        entry = self.families.get(family)
        counts = entry.judge if entry is not None else None
        if counts is not None and counts.tpr.n and counts.tnr.n:
            return JudgeRates(
                tpr=_clamped(counts.tpr.value), tnr=_clamped(counts.tnr.value), source="calibrated"
            )
        return JudgeRates(
            tpr=DEFAULT_TPR, tnr=AGREEABLE_TNR.get(family, DEFAULT_TNR), source="default"
        )

    def reporter(self, family: str) -> float | None:
        """The family's precision as a reporter, when calibrated."""
        entry = self.families.get(family)
        if entry is None or entry.reporter is None or not entry.reporter.precision.n:
            return None
        return _clamped(entry.reporter.precision.value)
