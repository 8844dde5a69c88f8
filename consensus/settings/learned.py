"""`.consensus/learned.yml`: what the maintainers' decisions on closed PRs taught, in a file
people review and may edit. Strict: unknown keys are errors that name the file and key.

```yaml
version: 1
updated_through: "2026-11-30T00:00:00Z"   # the newest closed PR counted (its closed_at)
families:
  openai:
    reporter: {fixed: 12, dismissed: 3, left: 5}
    judge: {confirmed_real: 10, missed_real: 1, refuted_false: 2, confirmed_false: 3}
personas:
  security: {fixed: 4, dismissed: 1, left: 2}
uncredited: {fixed: 1, dismissed: 0, left: 2}   # written only when some were
suppressions:
  - {path: "src/**/*.py", kind: "race", words: "lock not held when …",
     reason: "the caller holds the lock", pr: 123, by: "maintainer-login"}
fixes:
  - {path: "src/app/db.py", kind: "injection", words: "SQL injection in get_user", pr: 118}
panel:                                    # what the closed PRs' runs estimated (soft counts)
  runs: 14
  claims: [{real: 3.1, false: 41.2}, {real: 9.8, false: 2.0}, …]
  families:
    openai: {judge: {confirmed_real: 9.1, …}, reporter: {reported_real: 10.2, …}}
```

`uncredited` counts the outcomes that name no reporter: recorded by an earlier version,
which lost who reported a finding once a push fixed it. They are in no family's or
persona's counts, and `consensus learned` says how many there are.

A finding is *real* when its author fixed it and *false* when a maintainer dismissed it;
one left as it was says nothing about either. A judge's vote on a real finding is
`confirmed_real` or `missed_real` (it refuted it), on a false one `refuted_false` or
`confirmed_false`: labels, which every review's estimate of its panel counts as they are.
`panel` pools what each closed PR's last run estimated of its panel, unlabelled
(model/history.py): the next reviews start from it. The review reads the file from the
base branch, like the config.
"""

from __future__ import annotations

from typing import Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from consensus.errors import ConfigError
from consensus.model.bounds import MAX_COUNT, MAX_FAMILIES, MAX_LEARNED, MAX_PERSONAS, Name
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts, ReporterCounts
from consensus.model.history import PanelTally
from consensus.settings.problems import problem_in_words, yaml_mapping
from consensus.settings.scope import check_path_patterns
from consensus.settings.strict import Strict

LEARNED_PATH = ".consensus/learned.yml"
_WHEN = r"^(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)?$"
_LOGIN = r"^(?:[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?)?$"
_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}$"


class OutcomeCounts(Strict):
    """What became of the findings a family (or persona) reported: their outcomes."""

    fixed: int = Field(default=0, ge=0, le=MAX_COUNT)
    dismissed: int = Field(default=0, ge=0, le=MAX_COUNT)
    left: int = Field(default=0, ge=0, le=MAX_COUNT)


class FamilyLearning(Strict):
    reporter: OutcomeCounts = OutcomeCounts()
    judge: JudgeCounts = JudgeCounts()  # against what people decided


class Suppression(Strict):
    """A maintainer's dismissal as a rule: a later finding at a path matching `path`, of the
    defect kind `kind`, in words like `words`, goes to the summary only."""

    path: str = Field(min_length=1, max_length=500)
    kind: str = Field(pattern=_NAME, max_length=64)
    words: str = Field(min_length=1, max_length=300)
    reason: str = Field(default="", max_length=300)
    pr: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    by: str = Field(default="", pattern=_LOGIN, max_length=100)

    @field_validator("path")
    @classmethod
    def _pattern(cls, value: str) -> str:
        return check_path_patterns((value,))[0]


class Fix(Strict):
    """A finding an author fixed: reported again in that file later, it says so."""

    path: str = Field(min_length=1, max_length=4_096)
    kind: str = Field(pattern=_NAME, max_length=64)
    words: str = Field(min_length=1, max_length=300)
    pr: int = Field(ge=1, le=MAX_COUNT)


class Learned(Strict):
    version: Literal[1] = 1
    updated_through: str = Field(default="", pattern=_WHEN, max_length=40)
    families: dict[Name, FamilyLearning] = Field(default_factory=dict, max_length=MAX_FAMILIES)
    personas: dict[Name, OutcomeCounts] = Field(default_factory=dict, max_length=MAX_PERSONAS)
    uncredited: OutcomeCounts = OutcomeCounts()  # outcomes that name no reporter
    suppressions: tuple[Suppression, ...] = Field(default=(), max_length=MAX_LEARNED)
    fixes: tuple[Fix, ...] = Field(default=(), max_length=MAX_LEARNED)
    panel: PanelTally | None = None


def parse_learned(text: str, *, source: str = LEARNED_PATH) -> Learned:
    """The file's text as `Learned`; a ConfigError naming the file and the key otherwise."""
    data = yaml_mapping(text, source=source)
    try:
        return Learned.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or None
        fix = "see docs/conversation.md for the schema"
        raise ConfigError(source, key, problem_in_words(error), fix=fix) from exc


def dump_learned(learned: Learned) -> str:
    """The file's text: the schema's order, one suppression a line, stable across runs."""
    data = learned.model_dump(mode="json", exclude_defaults=False)
    head = yaml.safe_dump(
        {k: data[k] for k in ("version", "updated_through")}, sort_keys=False, width=100
    )
    lines = [
        "# What maintainers decided on closed PRs, counted by consensus's scheduled run.",
        "# Edit or delete any line; see docs/conversation.md.",
        head.rstrip(),
    ]
    for key in ("families", "personas"):
        block = {key: dict(sorted(data[key].items()))} if data[key] else {key: {}}
        lines.append(yaml.safe_dump(block, sort_keys=False, width=100).rstrip())
    if learned.uncredited != OutcomeCounts():
        flow = yaml.safe_dump(data["uncredited"], default_flow_style=True, sort_keys=False)
        lines.append(f"uncredited: {flow.strip()}")
    for key in ("suppressions", "fixes"):
        if not data[key]:
            lines.append(f"{key}: []")
            continue
        lines.append(f"{key}:")
        for item in data[key]:
            flow = yaml.safe_dump(item, default_flow_style=True, sort_keys=False, width=10_000)
            lines.append(f"  - {flow.strip()}")
    if data["panel"] is not None:
        lines.append(yaml.safe_dump({"panel": data["panel"]}, sort_keys=False, width=100).rstrip())
    return "\n".join(lines) + "\n"


def learned_calibration(learned: Learned) -> Calibration:
    """What every review's estimate of its panel starts from, read from the learnings:
    each family's judge counts as labels, as a reporter fixed → right, dismissed → wrong
    (left is no evidence), and the pooled `panel` of the closed PRs' runs. Labels count
    one claim each however few there are: a few of them move the estimate a little."""
    families = {}
    for family, entry in sorted(learned.families.items()):
        judge, reporter = entry.judge, entry.reporter
        judged = judge.confirmed_real + judge.missed_real + judge.refuted_false
        judged += judge.confirmed_false
        calibrated = FamilyCalibration(
            judge=judge if judged else None,
            reporter=(
                ReporterCounts(right=reporter.fixed, wrong=reporter.dismissed)
                if reporter.fixed + reporter.dismissed
                else None
            ),
        )
        if calibrated.judge is not None or calibrated.reporter is not None:
            families[family] = calibrated
    return Calibration(families=families, history=learned.panel)
