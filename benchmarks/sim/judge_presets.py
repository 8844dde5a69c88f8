"""Simulated judges as LLM judges are: a true-positive and a true-negative rate per family.

A judge asked whether a claim is real confirms a real one with its TPR and refutes a false
one with its TNR; a wrong answer is `uncertain` with probability `uncertain`, else the
opposite verdict. A self-preferring judge asked about a claim its own family made confirms
it with probability `self_preference` first, whatever the truth. In every preset a family
asked again about a claim it has judged returns its first verdict with probability
`repeat` (0.8), else answers afresh: a model asked twice mostly repeats itself (LLM
errors are correlated: Kim et al., "Correlated Errors in Large Language Models", 2025).

The presets:

- `agreeable` (what users meet most): TPR 0.96; TNR 0.45 / 0.35 / 0.25 / 0.20 for the
  openai / anthropic / google / qwen families; a wrong answer `uncertain` 10% of the
  time. LLM judges validating code-review feedback confirm nearly everything (across 14
  models TPR above 96%, TNR below 25%: arXiv 2510.11822).
- `impartial`: right 85% of the time either way, a wrong answer `uncertain` half the time.
- `discerning`: TPR 0.95, TNR 0.80, a wrong answer `uncertain` 10% of the time.
- `mixed`: the openai and google families agreeable (as above), anthropic and qwen
  discerning: which family rubber-stamps depends on the model, its version and the prompt.
- `agreeable+self-preferring` and `impartial+self-preferring`: as agreeable or impartial,
  and a judge asked about its own family's claim confirms it with probability 0.6 first
  (arXiv 2502.01534); the second are the verifiers of the quality section.

Judges that look (benchmarks/sim/looking_verifier.py) answer with their preset's rates
unless the tool results the product gave them hold the line that decides the claim, and
then with their **looking rates**: an ASSUMPTION, not a measurement. Once it has read the
deciding line, every family confirms a real claim with TPR 0.97 and refutes an invention
with TNR 0.92 (`LOOKED`; never below its blind rate, the share of `uncertain` among its
wrong answers unchanged). Nothing measured stands behind 0.92: the issue's reading is that
review bots which check each finding against the code cut false positives furthest, and
the blind agreeable TNR (0.20-0.45) is what a judge does with the diff alone. So the
benchmark prints every figure at the stated effect, at half of it (rates halfway from
blind to looked) and at none (looking helps nothing): `EFFECTS`, `looking`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts

FAMILIES = ("openai", "anthropic", "google", "qwen")
REPEAT = 0.8  # a family asked again returns its first verdict with this probability


@dataclass(frozen=True)
class Judge:
    """One family's judge: its rates, and the share of its wrong answers that are
    `uncertain` rather than the opposite verdict."""

    tpr: float
    tnr: float
    uncertain: float


@dataclass(frozen=True)
class JudgePreset:
    name: str
    judges: tuple[tuple[str, Judge], ...]  # by family; a family not named: `default`
    default: Judge
    self_preference: float = 0.0
    repeat: float = REPEAT

    def judge(self, family: str) -> Judge:
        return dict(self.judges).get(family, self.default)

    def rates(self, family: str) -> tuple[float, float]:
        judge = self.judge(family)
        return judge.tpr, judge.tnr

    def calibration(self, families: Sequence[str], cases: int = 1_000) -> Calibration:
        """What `consensus calibrate` would measure of these judges on `cases` real and
        `cases` false claims that are not their own (self-preference does not show; an
        `uncertain` counts against a claim, as the product reads it)."""
        entries = {}
        for family in families:
            judge = self.judge(family)
            doubted = judge.tnr + (1 - judge.tnr) * judge.uncertain
            real, false = round(cases * judge.tpr), round(cases * doubted)
            counts = JudgeCounts(
                confirmed_real=real,
                missed_real=cases - real,
                refuted_false=false,
                confirmed_false=cases - false,
            )
            entries[family] = FamilyCalibration(judge=counts)
        return Calibration(families=entries)

    def describe(self) -> str:
        each = (
            "; ".join(f"{f} TPR {j.tpr:g} / TNR {j.tnr:g}" for f, j in self.judges)
            or f"TPR {self.default.tpr:g} / TNR {self.default.tnr:g}"
        )
        shares = sorted({f"{j.uncertain:.0%}" for _, j in self.judges} or {"0%"})
        text = f"{each}; a wrong answer `uncertain` {' or '.join(shares)} of the time"
        if self.self_preference:
            text += f"; own family's claim confirmed with p={self.self_preference:g} first"
        return text + f"; asked again, its first verdict with p={self.repeat:g}"


AGREEABLE_JUDGES = {
    "openai": Judge(0.96, 0.45, 0.1),
    "anthropic": Judge(0.96, 0.35, 0.1),
    "google": Judge(0.96, 0.25, 0.1),
    "qwen": Judge(0.96, 0.20, 0.1),
}
DISCERNING_JUDGE = Judge(0.95, 0.80, 0.1)


def impartial(accuracy: float = 0.85) -> JudgePreset:
    """Judges right with probability `accuracy` either way."""
    judge = Judge(accuracy, accuracy, 0.5)
    return JudgePreset(
        name="impartial" if accuracy == 0.85 else f"impartial {accuracy:g}",
        judges=tuple((f, judge) for f in FAMILIES),
        default=judge,
    )


AGREEABLE = JudgePreset(
    name="agreeable", judges=tuple(AGREEABLE_JUDGES.items()), default=AGREEABLE_JUDGES["qwen"]
)
IMPARTIAL = impartial()
DISCERNING = JudgePreset(
    name="discerning",
    judges=tuple((f, DISCERNING_JUDGE) for f in FAMILIES),
    default=DISCERNING_JUDGE,
)
MIXED = JudgePreset(
    name="mixed",
    judges=(
        ("openai", AGREEABLE_JUDGES["openai"]),
        ("anthropic", DISCERNING_JUDGE),
        ("google", AGREEABLE_JUDGES["google"]),
        ("qwen", DISCERNING_JUDGE),
    ),
    default=AGREEABLE_JUDGES["qwen"],
)
SELF_PREFERRING = JudgePreset(
    name="agreeable+self-preferring",
    judges=AGREEABLE.judges,
    default=AGREEABLE.default,
    self_preference=0.6,
)
# The quality section's verifiers: impartial, and confirming their own family's claims
# first, as LLM judges do.
IMPARTIAL_SELF_PREFERRING = JudgePreset(
    name="impartial+self-preferring",
    judges=IMPARTIAL.judges,
    default=IMPARTIAL.default,
    self_preference=0.6,
)
PRESETS = {
    p.name: p
    for p in (AGREEABLE, IMPARTIAL, DISCERNING, MIXED, SELF_PREFERRING, IMPARTIAL_SELF_PREFERRING)
}


# The looking rates (an assumption: see the module docstring) and the effects printed.
LOOKED = Judge(tpr=0.97, tnr=0.92, uncertain=0.1)
EFFECTS = (("stated", 1.0), ("half", 0.5), ("none", 0.0))


def looking(judge: Judge, effect: float, looked: Judge = LOOKED) -> Judge:
    """`judge`'s rates once it has read the deciding line, at `effect` (1: the stated
    looking rates, 0: its blind rates); never below the blind rates."""
    tpr, tnr = max(judge.tpr, looked.tpr), max(judge.tnr, looked.tnr)
    return Judge(
        judge.tpr + effect * (tpr - judge.tpr),
        judge.tnr + effect * (tnr - judge.tnr),
        judge.uncertain,
    )
