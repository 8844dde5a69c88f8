"""Fan-out, align, score and verify: findings, the clusters they form, and the votes on them."""

from __future__ import annotations

from typing import Literal

from consensus.model.base import (
    Category,
    FailureKind,
    FindingSource,
    Frozen,
    Severity,
    Status,
    VerdictKind,
)
from consensus.model.reply import Citation

# Findings within this many lines of each other are at one place: where align looks for
# paraphrases of one problem, and where consensus's own scan groups adjacent credentials.
LINE_WINDOW = 3


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


class Suggestion(Frozen):
    """A model's replacement text for the new-side lines `line`..`end_line` (the reply's
    `suggestion`), as that model wrote it: never merged with another's."""

    line: int
    end_line: int
    text: str
    provider: str = ""  # who wrote it: set when a report picks one for a finding


class FindingStatement(Frozen):
    """One problem at one place, as every stage's finding states it: the file and lines,
    how severe, what kind, in what words. A model's `Finding`, the `Cluster` that aligns
    several, the report's finding and what the benchmark's judge is shown all state it so;
    the summary's stored record bounds each field as it reads it (publish/state.py)."""

    path: str
    line: int
    end_line: int
    severity: Severity
    category: Category
    title: str
    body: str


class Finding(FindingStatement):
    """A validated finding, attributed to the provider, persona and chunk that made it."""

    provider: str  # model string, e.g. "openai/gpt-5.1"
    family: str  # the voter: "openai", "anthropic", …
    persona: str
    chunk: int
    evidence: str | None = None
    confidence: float | None = None
    suggestion: Suggestion | None = None  # for the lines the model named, not re-anchored
    source: FindingSource = FindingSource.MODEL
    rule: str | None = None  # an analyzer's rule ("F821"); None for a model's finding
    # The lines the model named, before the audit anchored the finding on the diff: where
    # its claim is held to (review/grounding.py). None for the scan's and analyzers'.
    reported_line: int | None = None
    reported_end_line: int | None = None


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
    sent: bool = True  # False: never sent (budget, circuit breaker, provider unreachable)


class Cluster(FindingStatement):
    """Findings that describe the same problem, with the representative statement chosen."""

    members: tuple[Finding, ...]
    fingerprint: str
    # Why no model's report of it holds at its place ("line 88 is not on the change",
    # "evidence not found near line 88"): never posted on consensus alone (decide/score.py).
    ungrounded: str | None = None

    @property
    def families(self) -> frozenset[str]:
        return frozenset(member.family for member in self.members)

    @property
    def model_families(self) -> frozenset[str]:
        """The families of the models that reported it: the votes (the scan has none)."""
        return frozenset(m.family for m in self.members if m.source is FindingSource.MODEL)

    @property
    def from_scan(self) -> bool:
        return any(member.source is FindingSource.SCAN for member in self.members)

    @property
    def analyzer_families(self) -> frozenset[str]:
        """The static analyzers that reported it (model/analysis.py): families that never
        invent, whose rule is their evidence."""
        return frozenset(m.family for m in self.members if m.source is FindingSource.ANALYZER)

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
    reviewers: frozenset[str] = frozenset()  # the families counted in `votes_of`

    @property
    def disputed(self) -> bool:
        return self.status is not Status.CONSENSUS


class Vote(Frozen):
    """One verifier's answer on one finding. `verdict` None: the call failed (fails closed).
    `self_vote`: the verifier's family reported the finding (it judged its own claim).
    `grounded`: it cited lines, and every citation was checked against the tree and what it
    was shown (`evidence`); else it is a blind vote. `looked`: what it read, in words."""

    model: str
    family: str
    role: Literal["inspector", "voter"]
    verdict: VerdictKind | None
    reason: str
    self_vote: bool = False
    grounded: bool = False
    evidence: tuple[Citation, ...] = ()
    looked: tuple[str, ...] = ()


class Verification(Frozen):
    """How a finding was verified (the report's `verification`, plus the record behind it).

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
    belief: float | None = None  # weighed votes: the probability the claim is real, after them


ScoredCluster.model_rebuild()  # it names Verification, defined after it
