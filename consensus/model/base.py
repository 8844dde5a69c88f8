"""The vocabulary every stage shares: the frozen base model and the enums."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Severity(str, Enum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is more severe: info=0 … critical=4."""
        return _SEVERITY_RANK[self]

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


_SEVERITY_RANK = {
    Severity.INFO: 0,
    Severity.LOW: 1,
    Severity.MEDIUM: 2,
    Severity.HIGH: 3,
    Severity.CRITICAL: 4,
}


class Category(str, Enum):
    BUG = "bug"
    SECURITY = "security"
    PERFORMANCE = "performance"
    CONCURRENCY = "concurrency"
    API = "api"
    MAINTAINABILITY = "maintainability"
    TEST = "test"
    DOCS = "docs"


class FindingSource(str, Enum):
    """Who reported a finding: a reviewing model, consensus's own scan of the diff
    (committed credentials, text addressed to AI reviewers, retargeted links), or a
    static analyzer (ruff, semgrep, a SARIF file's tool).

    A scan finding is shown under the name `SCAN_NAME`, and stored with its source:
    reports and the summary's state write `"source": "scan"` on its members (`SOURCE_FIELD`
    leaves a model's members as they always were). `source_by_name` reads the members
    stored before the source was, by the name alone."""

    MODEL = "model"
    SCAN = "scan"
    ANALYZER = "analyzer"  # a static analyzer's result (model/analysis.py)


SCAN_NAME = "consensus"  # the provider and family name a scan finding is shown under


def _from_a_model(source: FindingSource) -> bool:
    return source is FindingSource.MODEL


# A stored member's `source`: written for the scan's members only, so a model's members
# (nearly all of them) read as they did before the field was stored.
SOURCE_FIELD: Any = Field(default=FindingSource.MODEL, exclude_if=_from_a_model)


def _no_rule(rule: str | None) -> bool:
    return rule is None


# A stored member's analyzer `rule` (no blanks, at most 100 characters: the vote makes it
# so, model/analysis.py): written for an analyzer's members only.
RULE_FIELD: Any = Field(default=None, pattern=r"^\S{1,100}$", exclude_if=_no_rule)


def source_by_name(data: object) -> object:
    """For a member stored before its source was (a summary's state on an open pull request,
    a saved report): SCAN when it is listed under `SCAN_NAME`. A `mode="before"` validator."""
    if isinstance(data, dict) and "source" not in data and data.get("provider") == SCAN_NAME:
        return {**data, "source": FindingSource.SCAN}
    return data


class Status(str, Enum):
    """What became of a cluster: consensus, verified, disputed, unverified or refuted."""

    CONSENSUS = "consensus"  # posted inline
    VERIFIED = "verified"  # posted inline, marked verified
    REJECTED = "rejected"  # kept for audit, never posted
    UNDECIDED = "undecided"  # voting cap reached: summary only
    UNVERIFIED = "unverified"  # low-severity singleton, or not verified: summary only

    @property
    def posted(self) -> bool:
        return self in (Status.CONSENSUS, Status.VERIFIED)


class FileStatus(str, Enum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"


class FailureKind(str, Enum):
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    NOT_FOUND = "not_found"  # the server has no such model: every call to it fails alike
    CONNECTION = "connection"
    INVALID_REPLY = "invalid_reply"  # still invalid after the repair turn
    CIRCUIT_OPEN = "circuit_open"  # provider failed too often this run: not called
    BUDGET = "budget"  # budget reached: not called
    NO_TOOLS = "no_tools"  # offered tools, which the model cannot call: ask without them
    OTHER = "other"


class VerdictKind(str, Enum):
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    UNCERTAIN = "uncertain"
