"""The history a repository keeps of its panel: soft counts of claims held real or false,
and of each provider family's verdicts and reports on them.

Counts here are *soft*: a claim a run's estimate holds real with probability 0.8 adds 0.8
to the real side and 0.2 to the false side. Each run adds its own (`PanelEstimate.tally`);
the scheduled learnings run pools the closed pull requests' runs in
`.consensus/learned.yml` (`plus`); the next runs start from them, as pseudo-counts of a
prior (decide/panel_rates.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

from pydantic import BaseModel, Field

from consensus.model.base import Frozen
from consensus.model.bounds import MAX_COUNT, MAX_FAMILIES, Name

# The history a repository keeps of its panel is capped at this many claims' worth per
# family (older counts scaled down when a run adds more): judges change with the model,
# its version and the prompt, so what the last few hundred claims said is what counts.
POOL_CAP = 200.0


def _scaled(values: dict[str, float], factor: float) -> dict[str, float]:
    return {k: round(v * factor, 2) for k, v in values.items()}


def _sum(a: BaseModel, b: BaseModel) -> dict[str, float]:
    return {k: v + getattr(b, k) for k, v in a.model_dump().items()}


class JudgeTally(Frozen):
    """A family's verdicts on claims held real or false (soft counts)."""

    confirmed_real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    refuted_real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    uncertain_real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    confirmed_false: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    refuted_false: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    uncertain_false: float = Field(default=0.0, ge=0, le=MAX_COUNT)

    @property
    def total(self) -> float:
        real = self.confirmed_real + self.refuted_real + self.uncertain_real
        return real + self.confirmed_false + self.refuted_false + self.uncertain_false


class ReportTally(Frozen):
    """A family's reports on claims held real or false, and its silences on the claims of
    files it reviewed (soft counts)."""

    reported_real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    silent_real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    reported_false: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    silent_false: float = Field(default=0.0, ge=0, le=MAX_COUNT)

    @property
    def total(self) -> float:
        return self.reported_real + self.silent_real + self.reported_false + self.silent_false


class SoftCounts(NamedTuple):
    """One family's soft counts, by name: what a run adds up (decide/panel_rates.py) and what
    the history keeps (`JudgeTally`, `ReportTally`), read in and written back by their field
    names, which these carry. The last two are a run's alone: its later answers about claims
    it had judged, as copies of its first answer (`repeated`) and as fresh ones."""

    confirmed_real: float = 0.0
    refuted_real: float = 0.0
    uncertain_real: float = 0.0
    confirmed_false: float = 0.0
    refuted_false: float = 0.0
    uncertain_false: float = 0.0
    reported_real: float = 0.0
    silent_real: float = 0.0
    reported_false: float = 0.0
    silent_false: float = 0.0
    repeated: float = 0.0
    fresh: float = 0.0

    @classmethod
    def of(cls, judge: JudgeTally | None = None, reporter: ReportTally | None = None) -> SoftCounts:
        """The history's counts of a family (its verdicts, its reports) in this shape."""
        judge, reporter = judge or JudgeTally(), reporter or ReportTally()
        return cls(
            **{name: getattr(judge, name) for name in JudgeTally.model_fields},
            **{name: getattr(reporter, name) for name in ReportTally.model_fields},
        )

    @classmethod
    def total(cls, counts: Iterable[SoftCounts]) -> SoftCounts:
        """Every family's counts added up, field by field, in the order given."""
        columns = list(zip(*counts, strict=True))
        return cls._make(sum(column) for column in columns) if columns else cls()

    def judge(self) -> JudgeTally:
        """Its verdicts, as the history keeps them."""
        return JudgeTally(**{name: getattr(self, name) for name in JudgeTally.model_fields})

    def reporter(self) -> ReportTally:
        """Its reports and silences, as the history keeps them."""
        return ReportTally(**{name: getattr(self, name) for name in ReportTally.model_fields})


# The estimate weighs a family's grounded verdicts (it cited lines, and every citation held)
# apart from its blind ones, under this key: judges that rubber-stamp blind may refute once
# they have read the code, and are trusted for what they do when they look.
GROUNDED = " (read the code)"


def grounded_key(family: str) -> str:
    return family + GROUNDED


def split_key(name: str) -> tuple[str, bool]:
    """A key of the estimate as (family, grounded)."""
    if name.endswith(GROUNDED):
        return name[: -len(GROUNDED)], True
    return name, False


def _unless_empty(tally: JudgeTally) -> bool:
    return not tally.total


class FamilyTally(Frozen):
    """A family's counts: its blind verdicts (`judge`), its grounded ones, its reports.
    A history written before grounded verdicts were counted apart reads as all blind."""

    judge: JudgeTally = JudgeTally()
    grounded: JudgeTally = Field(default=JudgeTally(), exclude_if=_unless_empty)
    reporter: ReportTally = ReportTally()


class ClaimTally(Frozen):
    """Claims reported by one number of families, held real or false (soft counts)."""

    real: float = Field(default=0.0, ge=0, le=MAX_COUNT)
    false: float = Field(default=0.0, ge=0, le=MAX_COUNT)


AGREEMENTS = 4  # claims are told apart by the share of the reviewing families that reported
# them: a quarter or less, half, three quarters, more (1, 2, 3, 4 of four families)


def agreement(reporters: int, reviewers: int) -> int:
    """The index in `PanelTally.claims` of a claim `reporters` of `reviewers` families
    reported: 1 of 4 → 0, 2 of 4 → 1, 3 of 4 → 2, 4 of 4 → 3; 1 of 2 → 1, 2 of 3 → 2."""
    share = reporters / max(reviewers, reporters, 1)
    return min(max(math.ceil(AGREEMENTS * share - 1e-9), 1), AGREEMENTS) - 1


class PanelTally(Frozen):
    """Soft counts of claims and of each family's verdicts and reports: what one run adds
    to the history, and the history itself (`plus`)."""

    runs: int = Field(default=0, ge=0, le=MAX_COUNT)
    # Claims by the share of their file's reviewers that reported them (`agreement`).
    claims: tuple[ClaimTally, ...] = Field(
        default=(ClaimTally(),) * AGREEMENTS, min_length=AGREEMENTS, max_length=AGREEMENTS
    )
    families: dict[Name, FamilyTally] = Field(default_factory=dict, max_length=MAX_FAMILIES)

    @property
    def empty(self) -> bool:
        """Nothing counted: no claim, and no family's verdict, report or silence."""
        claims = sum(c.real + c.false for c in self.claims)
        return not claims and not any(
            f.judge.total or f.grounded.total or f.reporter.total for f in self.families.values()
        )

    def rounded(self) -> PanelTally:
        """The counts to two decimals: what a summary's state and the learnings keep."""
        return PanelTally().plus(self, cap=float("inf"))

    def plus(self, other: PanelTally, cap: float = POOL_CAP) -> PanelTally:
        """The two pooled, each family's judge and reporter counts (and the claims) scaled
        down to `cap` claims' worth when they pass it."""
        families = {}
        for name in sorted({*self.families, *other.families}):
            a = self.families.get(name, FamilyTally())
            b = other.families.get(name, FamilyTally())
            judge = _sum(a.judge, b.judge)
            grounded = _sum(a.grounded, b.grounded)
            reporter = {k: v + getattr(b.reporter, k) for k, v in a.reporter.model_dump().items()}
            judged, looked = sum(judge.values()), sum(grounded.values())
            # A reporter count is per file reviewed: four silences for one claim of a file
            # four families reviewed, so it is capped at four times the claims' cap.
            seen = sum(reporter.values())
            families[name] = FamilyTally(
                judge=JudgeTally(**_scaled(judge, min(1.0, cap / judged) if judged else 1.0)),
                grounded=JudgeTally(**_scaled(grounded, min(1.0, cap / looked) if looked else 1)),
                reporter=ReportTally(**_scaled(reporter, min(1.0, 4 * cap / seen) if seen else 1)),
            )
        pairs = [
            (a.real + b.real, a.false + b.false)
            for a, b in zip(self.claims, other.claims, strict=True)
        ]
        total = sum(real + false for real, false in pairs)
        factor = min(1.0, cap / total) if total else 1.0
        claims = tuple(
            ClaimTally(real=round(real * factor, 2), false=round(false * factor, 2))
            for real, false in pairs
        )
        return PanelTally(runs=self.runs + other.runs, claims=claims, families=families)
