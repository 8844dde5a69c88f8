"""The Action's inputs: what action.yml passes to `consensus action` in the environment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, ValidationError

from consensus.errors import UsageError
from consensus.model.base import Severity
from consensus.settings.strict import Strict

# field → environment variable; action.yml maps its inputs onto these (a test checks both).
ENV_INPUTS = {
    "config": "CONSENSUS_CONFIG",
    "fail_on": "CONSENSUS_FAIL_ON",
    "min_severity": "CONSENSUS_MIN_SEVERITY",
    "max_inline_comments": "CONSENSUS_MAX_INLINE_COMMENTS",
    "sarif": "CONSENSUS_SARIF",
    "analyzer_sarif": "CONSENSUS_ANALYZER_SARIF",
    "on_no_review": "CONSENSUS_ON_NO_REVIEW",
    "review_drafts": "CONSENSUS_REVIEW_DRAFTS",
    "post_interval_s": "CONSENSUS_POST_INTERVAL",  # not an input: tests set 0
    "trusted_login": "CONSENSUS_TRUSTED_LOGIN",  # a GitHub App's name[bot] (publish/thread.py)
    "full_review": "CONSENSUS_FULL_REVIEW",
    "workflow": "CONSENSUS_WORKFLOW",
    "learnings": "CONSENSUS_LEARNINGS",
}


class ActionInputs(Strict):
    """The action's inputs, as action.yml passes them in the environment."""

    config: str = ".consensus.yml"
    fail_on: Literal["none", "info", "low", "medium", "high", "critical"] = "none"
    min_severity: Severity | None = None
    max_inline_comments: int | None = Field(default=None, ge=0)
    sarif: str = ""  # where the review's own SARIF is written (an output)
    # SARIF files an earlier step wrote, read as analyzers in the vote: paths in the
    # workspace, one a line or comma-separated
    analyzer_sarif: str = Field(default="", max_length=20_000)
    on_no_review: Literal["fail", "warn"] = "fail"
    review_drafts: bool = False
    post_interval_s: float = Field(default=1.0, ge=0)
    trusted_login: str = ""
    full_review: bool = False  # on synchronize, review the whole PR, not only what changed
    # a saved review workflow (.consensus/workflows/<name>.md on the base branch) to run
    workflow: str = Field(default="", pattern=r"^(?:[a-z0-9][a-z0-9-]{0,39})?$")
    # on schedule / workflow_dispatch: propose .consensus/learned.yml from closed PRs
    learnings: bool = False

    @property
    def analyzer_sarif_paths(self) -> tuple[str, ...]:
        """The `analyzer-sarif` input's paths, in order, each once."""
        paths = (p.strip() for line in self.analyzer_sarif.splitlines() for p in line.split(","))
        return tuple(dict.fromkeys(p for p in paths if p))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionInputs:
        names = ENV_INPUTS
        given = {key: env[var].strip() for key, var in names.items() if env.get(var, "").strip()}
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            error = exc.errors()[0]
            var = names[str(error["loc"][0])]
            raise UsageError(f"{var}: {error['msg']} (got {error.get('input')!r})") from exc
