"""The report: what a run found, who agreed, and what it cost."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from consensus.model.base import (
    RULE_FIELD,
    SOURCE_FIELD,
    FindingSource,
    Frozen,
    Status,
    source_by_name,
)
from consensus.model.diff import Redaction, SkippedFile
from consensus.model.findings import DroppedFinding, FindingStatement, Suggestion, Verification
from consensus.model.panel import PanelEstimate


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
    source: FindingSource = SOURCE_FIELD  # written for the scan's and analyzers' members
    rule: str | None = RULE_FIELD  # an analyzer's rule ("F821"), written for its members

    @model_validator(mode="before")
    @classmethod
    def _scan_by_name(cls, data: object) -> object:
        return source_by_name(data)


class ReportFinding(FindingStatement):
    """A finding as the report gives it: its id in this run, its fingerprint across runs, and
    the votes, status and members behind it."""

    id: str
    fingerprint: str
    agreement: float
    votes: Votes
    providers: list[str]
    personas: list[str]
    status: Status
    verification: Verification | None = None
    reason: str = ""
    members: tuple[FindingMember, ...] = ()  # the cluster's findings, one per report
    suggestion: Suggestion | None = None  # one reporting provider's, for line..end_line
    # The head this decision was made on, when an earlier run made it on the same code and
    # this run carried it (no model was asked again); None when this run decided it.
    carried_from: str | None = None
    # Where its lines were moved from ("src/old.py:12"), when the change only moved them:
    # code the pull request did not write (ingest/moved.py).
    moved_from: str | None = None
    # Why it is ungrounded, when it is: its line is not on the change, or its evidence is
    # not in the head file near it (review/grounding.py). Never posted on consensus alone.
    ungrounded: str | None = None

    @property
    def found_by_scan(self) -> bool:
        return any(member.source is FindingSource.SCAN for member in self.members)

    @property
    def model_providers(self) -> list[str]:
        """`providers` without the scan and the analyzers: the models that reported it."""
        other = {m.provider for m in self.members if m.source is not FindingSource.MODEL}
        return [p for p in self.providers if p not in other]

    @property
    def analyzed_by(self) -> tuple[str, ...]:
        """The analyzers that reported it, each with its rule: ("ruff F821", …), sorted."""
        return tuple(
            sorted(
                {
                    f"{m.family} {m.rule}" if m.rule else m.family
                    for m in self.members
                    if m.source is FindingSource.ANALYZER
                }
            )
        )

    @property
    def found_by_models(self) -> bool:
        return any(m.source is FindingSource.MODEL for m in self.members)

    @property
    def also_reported(self) -> str:
        """How an analyzer corroborates a model's finding: "also reported by ruff F821";
        "" when no analyzer did, or no model (the finding's title names the rule)."""
        named = self.analyzed_by
        if not named or not self.found_by_models:
            return ""
        return f"also reported by {' and '.join(named)}"


class DecisionChange(Frozen):
    """A decision this run made differently from the one an earlier run made on the same
    code (a fresh look: `/consensus review`, `full-review`, or changed settings)."""

    fingerprint: str
    id: str  # this run's id for the finding; "" when this run did not report it
    path: str
    line: int
    title: str
    before: str  # e.g. "rejected (refuted by openai)", "not reported"
    before_head: str
    after: str  # e.g. "verified (confirmed by qwen)", "not reported"


class ProviderReport(Frozen):
    model: str
    family: str
    status: Literal["ok", "failed", "skipped"]
    error: str | None = None
    calls: int = 0  # calls sent (answered or failed)
    failed_calls: int = 0  # sent and failed; never a call that was not sent
    not_sent: int = 0  # planned review calls never sent (budget, circuit breaker, no key)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0  # None: the model has no known price
    latency_s: float = 0.0
    files_seen: list[str] = []  # files of a chunk this provider returned a valid review of
    chunks: int = 0


class Stats(Frozen):
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0  # None: a provider called has no known price
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


class CarriedFiles(Frozen):
    """How many of the diff's files this run carried the decisions of, and the heads they
    were decided on (publish/carry.py)."""

    files: int
    of: int
    heads: list[str]
    paths: list[str] = []


class FileCoverage(Frozen):
    """Who reviewed one changed file: per provider (model), `reviewed`, `failed` (calls
    were sent and none gave a valid review), or `not asked: <why>` (budget, circuit
    breaker, no key: no call about it was sent)."""

    path: str
    providers: dict[str, str]

    @property
    def reviewed(self) -> bool:
        return "reviewed" in self.providers.values()


class BudgetReport(Frozen):
    """The caps the run held to, where they came from, which one stopped it, and what
    would finish the review (the plan's worst case, or more for a stop in verification)."""

    max_tokens: int | None
    max_cost_usd: float | None
    tokens_source: Literal["set", "auto", "none", "unknown", "pr"]
    cost_source: Literal["set", "auto", "none", "unknown", "pr"]
    needed_tokens: int
    needed_cost_usd: float | None
    stopped_by: list[Literal["max_tokens", "max_cost_usd"]] = []
    unpriced: list[str] = []


class Incomplete(Frozen):
    """Why the review is incomplete, in the words every output starts with, and the flag
    or setting that completes it."""

    headline: str
    fix: str
    unreviewed: list[str] = []  # files no model reviewed, least risky last


class Report(Frozen):
    """The JSON report (findings, providers, stats), plus the audit trail a user needs to
    trust it."""

    version: int = 1
    run_id: str
    incomplete: Incomplete | None = None  # set when the review is incomplete: say it first
    workflow: str | None = None  # the saved review workflow this run was, None for the default
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
    decision_changes: list[DecisionChange] = []  # on a fresh look at code decided before
    carried: CarriedFiles | None = None  # files whose earlier decisions this run carried
    coverage: list[FileCoverage] = []  # each reviewable file, riskiest first
    budget: BudgetReport | None = None
    panel: PanelEstimate | None = None  # each family's rates, as this run's votes show them
