"""Typed data handed from stage to stage, named for the stage that makes it.

ingest  -> DiffLine, Hunk, ChangedFile, SkippedFile, Redaction, ReviewDiff
fan-out -> Chunk, ModelReview | ModelFailure (each holding Finding / DroppedFinding)
align   -> Cluster
score   -> ScoredCluster
report  -> Report (the JSON report of PRODUCT.md §5)

The model I/O contract of PRODUCT.md §4 is ReviewReply / ReplyFinding / VerdictReply.
Everything here is frozen: stages return new values, they never edit old ones.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- enums


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


class Status(str, Enum):
    """What became of a cluster (PRODUCT.md §5)."""

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


class FailureKind(str, Enum):
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    CONNECTION = "connection"
    INVALID_REPLY = "invalid_reply"  # still invalid after the repair turn
    CIRCUIT_OPEN = "circuit_open"  # provider failed too often this run: not called
    BUDGET = "budget"  # budget reached: not called
    OTHER = "other"


# --------------------------------------------------------------------------- ingest


class DiffLine(Frozen):
    """One line of a hunk. `new_line` is set for added and context lines."""

    kind: Literal["+", "-", " "]
    text: str
    old_line: int | None = None
    new_line: int | None = None


class Hunk(Frozen):
    old_start: int
    old_length: int
    new_start: int
    new_length: int
    section: str = ""
    lines: tuple[DiffLine, ...] = ()


class ChangedFile(Frozen):
    """A reviewable file of the diff, as the new side sees it."""

    path: str
    old_path: str | None = None  # set for renames
    status: FileStatus
    hunks: tuple[Hunk, ...] = ()
    added: int = 0
    removed: int = 0

    @property
    def commentable_lines(self) -> frozenset[int]:
        """New-side lines present in the diff (added or context): where a comment may go."""
        return frozenset(
            line.new_line for hunk in self.hunks for line in hunk.lines if line.new_line is not None
        )

    @property
    def added_lines(self) -> frozenset[int]:
        return frozenset(
            line.new_line
            for hunk in self.hunks
            for line in hunk.lines
            if line.kind == "+" and line.new_line is not None
        )


class SkippedFile(Frozen):
    """A file of the diff that no model sees, and why (binary, lockfile, excluded …)."""

    path: str
    reason: str


class Redaction(Frozen):
    """A secret replaced before any provider saw the diff. Never holds the value."""

    path: str
    line: int | None
    kind: str
    added: bool = False  # on a line the change adds: a credential this change commits


class ReviewDiff(Frozen):
    """The ingested diff: what is reviewed, what is skipped, what was redacted."""

    files: tuple[ChangedFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    redactions: tuple[Redaction, ...] = ()

    def file(self, path: str) -> ChangedFile | None:
        for changed in self.files:
            if changed.path == path:
                return changed
        return None


# --------------------------------------------------------------------------- model I/O (§4)


class ReplyFinding(BaseModel):
    """One finding as a model must write it. Unknown extra keys are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = Field(min_length=1, max_length=1000)
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    severity: Severity
    category: Category
    title: str = Field(min_length=1, max_length=200, description="one line, under 100 characters")
    body: str = Field(max_length=20_000, description="why it is a problem and how to fix it")
    evidence: str | None = Field(
        default=None,
        max_length=5_000,
        description="optional: the exact code from the diff that shows the problem",
    )
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    @field_validator("severity", "category", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("title", mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        return " ".join(value.split()) if isinstance(value, str) else value


class ReviewReply(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    findings: list[ReplyFinding]


class SameProblemReply(BaseModel):
    """A verifier's answer to an open question of alignment: one defect or two?"""

    model_config = ConfigDict(extra="ignore", frozen=True)

    verdict: Literal["same", "different"]
    reason: str = Field(default="", max_length=4_000)

    @field_validator("verdict", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class VerdictReply(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    verdict: Literal["confirmed", "refuted", "uncertain"]
    reason: str = Field(max_length=4_000)

    @field_validator("verdict", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


# --------------------------------------------------------------------------- fan-out


class Usage(Frozen):
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    calls: int = 0
    from_journal: int = 0  # of `calls`, how many were served from the run journal

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cost_usd=self.cost_usd + other.cost_usd,
            latency_s=self.latency_s + other.latency_s,
            calls=self.calls + other.calls,
            from_journal=self.from_journal + other.from_journal,
        )


class ChunkPart(Frozen):
    """A file, or a slice of its hunks, inside a chunk."""

    path: str
    hunks: tuple[int, ...]  # indexes into ChangedFile.hunks
    whole: bool = True  # False when the file was split across chunks


class Chunk(Frozen):
    """What one call shows one provider: whole files where they fit."""

    index: int
    parts: tuple[ChunkPart, ...]
    tokens: int

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(part.path for part in self.parts)


class Finding(Frozen):
    """A validated finding, attributed to the provider, persona and chunk that made it."""

    provider: str  # model string, e.g. "openai/gpt-5.1"
    family: str  # the voter: "openai", "anthropic", …
    persona: str
    chunk: int
    path: str
    line: int
    end_line: int
    severity: Severity
    category: Category
    title: str
    body: str
    evidence: str | None = None
    confidence: float | None = None


class DroppedFinding(Frozen):
    """A finding a model reported that failed the audit: counted and reported, not scored."""

    provider: str
    persona: str
    path: str
    line: int
    title: str
    reason: str


class ModelReview(Frozen):
    """A valid review of one chunk by one (provider, persona) pair."""

    provider: str
    family: str
    persona: str
    chunk: int
    paths: tuple[str, ...]
    findings: tuple[Finding, ...] = ()
    dropped: tuple[DroppedFinding, ...] = ()
    usage: Usage = Usage()
    repaired: bool = False


class ModelFailure(Frozen):
    """A (provider, persona, chunk) call that gave no valid review. The provider abstains."""

    provider: str
    family: str
    persona: str
    chunk: int
    paths: tuple[str, ...]
    kind: FailureKind
    message: str
    usage: Usage = Usage()


# --------------------------------------------------------------------------- align & score


class Cluster(Frozen):
    """Findings that describe the same problem, with the representative fields chosen."""

    path: str
    line: int
    end_line: int
    severity: Severity
    category: Category
    title: str
    body: str
    members: tuple[Finding, ...]
    fingerprint: str

    @property
    def families(self) -> frozenset[str]:
        return frozenset(member.family for member in self.members)

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(sorted({member.provider for member in self.members}))

    @property
    def personas(self) -> tuple[str, ...]:
        return tuple(sorted({member.persona for member in self.members}))


class ScoredCluster(Frozen):
    cluster: Cluster
    votes_for: int  # distinct families that reported it
    votes_of: int  # families with a valid review of its file
    agreement: float
    needed: int  # families needed for consensus at this denominator
    status: Status
    reason: str  # one line: why this status
    needs_verification: bool = False  # disputed and severe enough for the verify phase
    verification: Verification | None = None

    @property
    def disputed(self) -> bool:
        return self.status is not Status.CONSENSUS


# --------------------------------------------------------------------------- report (§5)


class VerdictKind(str, Enum):
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    UNCERTAIN = "uncertain"


class Vote(Frozen):
    """One verifier's answer on one finding. `verdict` None: the call failed (fails closed).
    `self_vote`: the verifier's family reported the finding (it judged its own claim)."""

    model: str
    family: str
    role: Literal["inspector", "voter"]
    verdict: VerdictKind | None
    reason: str
    self_vote: bool = False


class Verification(Frozen):
    """How a finding was verified (PRODUCT.md §5 `verification`, plus the record behind it).

    `confirmed`/`refuted`/`uncertain` count every counted vote, the inspector's included;
    failed calls count as uncertain: a verifier error never confirms anything.
    """

    confirmed: int = 0
    refuted: int = 0
    uncertain: int = 0
    ahead_by: int = 0
    votes: tuple[Vote, ...] = ()
    discarded: int = 0  # red-flagged verdicts (malformed, over-long) resampled, not counted
    note: str = ""
    budget_stopped: bool = False  # the budget ran out before the rule decided


# The name PRODUCT.md §5 shows; kept for readers of the first reports.
VerificationCounts = Verification

ScoredCluster.model_rebuild()


class Votes(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    for_: int = Field(alias="for", serialization_alias="for")
    of: int


class FindingMember(Frozen):
    """One provider's report inside a finding's cluster: who said it, and in what words."""

    provider: str
    family: str
    persona: str
    line: int
    title: str


class ReportFinding(Frozen):
    id: str
    fingerprint: str
    path: str
    line: int
    end_line: int
    severity: Severity
    category: Category
    title: str
    body: str
    agreement: float
    votes: Votes
    providers: list[str]
    personas: list[str]
    status: Status
    verification: Verification | None = None
    reason: str = ""
    members: tuple[FindingMember, ...] = ()  # the cluster's findings, one per report


class ProviderReport(Frozen):
    model: str
    family: str
    status: Literal["ok", "failed", "skipped"]
    error: str | None = None
    calls: int = 0
    failed_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    files_seen: list[str] = []
    chunks: int = 0


class Stats(Frozen):
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0
    clusters: int = 0
    consensus: int = 0
    verified: int = 0
    rejected: int = 0
    undecided: int = 0
    unverified: int = 0
    dropped: int = 0


class Quorum(Frozen):
    families_answered: int
    min_providers: int
    met: bool


class Report(Frozen):
    """The JSON report of PRODUCT.md §5, plus the audit trail a user needs to trust it."""

    version: int = 1
    run_id: str
    findings: list[ReportFinding] = []
    providers: list[ProviderReport] = []
    stats: Stats = Stats()
    quorum: Quorum
    threshold: float
    verification: Literal["done", "skipped", "not_needed", "not_available"] = "not_available"
    skipped_files: list[SkippedFile] = []
    redactions: list[Redaction] = []
    dropped_findings: list[DroppedFinding] = []
    budget_exhausted: bool = False  # the budget stopped calls: the review is incomplete
    notes: list[str] = []
