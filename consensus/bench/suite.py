"""A benchmark suite: pull requests with their known defects (golden comments).

Our own format is JSON Lines, one pull request a line, so that a team can benchmark on
its own PRs (docs/benchmarks.md, "How good is it?"):

    {"repo": "acme/shop", "number": 812, "goldens": [{"comment": "…", "severity": "high"}]}
    {"id": "local-1", "diff": "diff --git a/x.py b/x.py\\n…", "goldens": [...]}

Keys: `goldens` (required: each `comment` and `severity` low|medium|high|critical; `[]`
for a clean pull request, where every finding counts as a false positive), and either
`repo` + `number` (the diff is read through the GitHub API) or `diff` (a unified diff,
inline); optional `id` (default `repo#number`), `title`, `url` and `project` (what the
results are grouped by; default the repository, or "local").
Unknown keys are errors that name the line and the key. Pure: text in, a Suite out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pydantic import Field, ValidationError, field_validator, model_validator

from consensus.errors import ConfigError
from consensus.model.base import Frozen, Severity

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
GOLDEN_SEVERITIES = ("low", "medium", "high", "critical")


class Golden(Frozen):
    """One known defect of a pull request, as a human reviewer wrote it."""

    comment: str = Field(min_length=1, max_length=20_000)
    severity: Severity

    @field_validator("severity", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in GOLDEN_SEVERITIES:
            return value.strip().lower()
        if isinstance(value, str):
            raise ValueError(f"severity must be one of {', '.join(GOLDEN_SEVERITIES)}")
        return value


class SuitePR(Frozen):
    """One pull request of a suite: where its diff comes from, and its goldens."""

    id: str = ""
    repo: str | None = None
    number: int | None = Field(default=None, ge=1)
    diff: str | None = None
    title: str = ""
    url: str = ""
    project: str = ""
    goldens: tuple[Golden, ...]  # required; empty for a clean PR

    @model_validator(mode="after")
    def _source(self) -> SuitePR:
        if self.repo is not None and not _REPO.match(self.repo):
            raise ValueError(f"repo must be OWNER/NAME, not {self.repo!r}")
        if self.diff is None and (self.repo is None or self.number is None):
            raise ValueError("give either repo and number (read from GitHub) or diff")
        if self.diff is not None and self.number is not None:
            raise ValueError("give either number (read from GitHub) or diff, not both")
        return self

    @property
    def key(self) -> str:
        """The PR's name in results: `id`, else `repo#number`."""
        if self.id:
            return self.id
        return f"{self.repo}#{self.number}" if self.number else (self.repo or "local")

    @property
    def group(self) -> str:
        """What results are grouped by ("by repository")."""
        return self.project or self.repo or "local"


class Suite(Frozen):
    """A named list of pull requests, where it came from and under what licence."""

    name: str
    source: str  # where the goldens were read: a path, or a repository at a commit
    licence: str = ""
    prs: tuple[SuitePR, ...]

    def limited(self, limit: int | None) -> Suite:
        """The first `limit` pull requests (all with None)."""
        if limit is None:
            return self
        return Suite.model_validate({**self.model_dump(), "prs": self.prs[:limit]})


def load_suite(text: str, *, source: str) -> Suite:
    """Parse a JSONL suite; a ConfigError names the line and the key of the first problem."""
    prs: list[SuitePR] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{source}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(where, None, f"not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise ConfigError(where, None, "each line is one JSON object (a pull request)")
        try:
            prs.append(SuitePR.model_validate(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or None
            problem = str(first["msg"]).removeprefix("Value error, ")
            raise ConfigError(where, key, problem, fix=SUITE_FIX) from None
    return suite_of(source.rsplit("/", 1)[-1], source, prs, where=source)


SUITE_FIX = (
    'each line: {"repo": "OWNER/NAME", "number": N, "goldens": [{"comment": "…", '
    '"severity": "high"}]} or {"id": "…", "diff": "…", "goldens": […]}'
)


def suite_of(
    name: str, source: str, prs: Sequence[SuitePR], *, where: str, licence: str = ""
) -> Suite:
    """A suite, refused when it is empty or two pull requests share a key."""
    if not prs:
        raise ConfigError(where, None, "the suite holds no pull request", fix=SUITE_FIX)
    seen: set[str] = set()
    for pr in prs:
        if pr.key in seen:
            raise ConfigError(where, "id", f"two pull requests are both {pr.key!r}")
        seen.add(pr.key)
    return Suite(name=name, source=source, licence=licence, prs=tuple(prs))
