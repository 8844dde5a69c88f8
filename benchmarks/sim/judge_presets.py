"""Simulated judges as LLM judges are: a true-positive and a true-negative rate per family.

A judge asked whether a claim is real confirms a real one with its TPR and refutes a false
one with its TNR; a wrong answer is `uncertain` with probability `uncertain`, else the
opposite verdict. A self-preferring judge asked about a claim its own family made confirms
it with probability `self_preference` first, whatever the truth.

Three presets, reported side by side:

- `agreeable` (the headline: what users meet): TPR 0.96; TNR 0.45 / 0.35 / 0.25 / 0.20 for
  the openai / anthropic / google / qwen families; a wrong answer `uncertain` 10% of the
  time. LLM judges validating code-review feedback confirm nearly everything (across 14
  models TPR above 96%, TNR below 25%: arXiv 2510.11822).
- `impartial`: right 85% of the time either way, a wrong answer `uncertain` half the time.
- `agreeable+self-preferring`: as agreeable, and a judge asked about its own family's claim
  confirms it with probability 0.6 first (arXiv 2502.01534).
- `impartial+self-preferring`: as impartial, with the same self-preference (the verifiers
  of the quality section's one-problem-one-comment figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts

FAMILIES = ("openai", "anthropic", "google", "qwen")


@dataclass(frozen=True)
class JudgePreset:
    name: str
    tpr: float
    tnr: tuple[tuple[str, float], ...]  # (family, TNR); a family not named: `default_tnr`
    uncertain: float  # of the wrong answers, the share that are `uncertain`
    self_preference: float = 0.0
    default_tnr: float = field(default=0.20)

    def rates(self, family: str) -> tuple[float, float]:
        return self.tpr, dict(self.tnr).get(family, self.default_tnr)

    def calibration(self, families: Sequence[str], cases: int = 1_000) -> Calibration:
        """What `consensus calibrate` would measure of these judges on `cases` real and
        `cases` false claims that are not their own (self-preference does not show)."""
        entries = {}
        for family in families:
            tpr, tnr = self.rates(family)
            real, false = round(cases * tpr), round(cases * tnr)
            counts = JudgeCounts(
                confirmed_real=real,
                missed_real=cases - real,
                refuted_false=false,
                confirmed_false=cases - false,
            )
            entries[family] = FamilyCalibration(judge=counts)
        return Calibration(families=entries)

    def describe(self) -> str:
        tnr = " / ".join(f"{f} {v:g}" for f, v in self.tnr)
        text = f"TPR {self.tpr:g}, TNR {tnr}; a wrong answer `uncertain` {self.uncertain:.0%}"
        if self.self_preference:
            text += f"; own family's claim confirmed with p={self.self_preference:g} first"
        return text


def impartial(accuracy: float = 0.85) -> JudgePreset:
    """Judges right with probability `accuracy` either way."""
    return JudgePreset(
        name="impartial" if accuracy == 0.85 else f"impartial {accuracy:g}",
        tpr=accuracy,
        tnr=tuple((f, accuracy) for f in FAMILIES),
        uncertain=0.5,
        default_tnr=accuracy,
    )


AGREEABLE = JudgePreset(
    name="agreeable",
    tpr=0.96,
    tnr=(("openai", 0.45), ("anthropic", 0.35), ("google", 0.25), ("qwen", 0.20)),
    uncertain=0.1,
)
IMPARTIAL = impartial()
SELF_PREFERRING = JudgePreset(
    name="agreeable+self-preferring",
    tpr=AGREEABLE.tpr,
    tnr=AGREEABLE.tnr,
    uncertain=AGREEABLE.uncertain,
    self_preference=0.6,
)
# The quality section's verifiers (measured before votes were weighed): impartial, and
# confirming their own family's claims first, as LLM judges do.
IMPARTIAL_SELF_PREFERRING = JudgePreset(
    name="impartial+self-preferring",
    tpr=IMPARTIAL.tpr,
    tnr=IMPARTIAL.tnr,
    uncertain=IMPARTIAL.uncertain,
    self_preference=0.6,
    default_tnr=IMPARTIAL.default_tnr,
)
PRESETS = {p.name: p for p in (AGREEABLE, IMPARTIAL, SELF_PREFERRING, IMPARTIAL_SELF_PREFERRING)}
