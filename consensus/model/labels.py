"""A labelled claim: a finding on a diff, and whether it is real (`consensus calibrate`).

One JSON object per line of a JSONL file:

    {"id": "L1", "diff": "<unified diff>", "path": "app/db.py", "line": 42, "end_line": 44,
     "title": "…", "body": "…", "real": true, "severity": "high", "category": "bug",
     "evidence": "…", "origin": "…"}

`end_line`, `body`, `severity` (default medium), `category` (default bug), `evidence` and
`origin` (where the label comes from: a bug fixed later, a reviewer's verdict) are optional.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from consensus.model.base import Category, Frozen, Severity


class LabelledClaim(Frozen):
    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._-]+$")
    diff: str = Field(min_length=1)
    path: str = Field(min_length=1, max_length=4_096)
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    title: str = Field(min_length=1, max_length=300)
    body: str = Field(default="", max_length=20_000)
    real: bool
    severity: Severity = Severity.MEDIUM
    category: Category = Category.BUG
    evidence: str | None = None
    origin: str | None = None

    @model_validator(mode="after")
    def _span(self) -> LabelledClaim:
        if self.end_line is not None and self.end_line < self.line:
            raise ValueError(f"end_line {self.end_line} is before line {self.line}")
        return self
