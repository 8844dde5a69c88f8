"""What a judge is asked about: one claim, whoever made it and wherever it was kept.

A `Claim` is built the same way from a live cluster (review/verify.py) and from a finding
a run recorded in the summary comment's state (publish/state.py), so that
`/consensus verify F3` asks the judges exactly what the run that found F3 would have.
"""

from __future__ import annotations

from pydantic import Field

from consensus.model.base import Category, Frozen, Severity


class Claim(Frozen):
    """A finding as a judge needs it: the place, what is claimed, and who claimed it."""

    fingerprint: str = Field(min_length=1)
    path: str = Field(min_length=1)
    line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    title: str
    body: str
    evidence: str | None = None
    category: Category
    severity: Severity
    families: frozenset[str]  # provider families that reported it (never the scan)
    providers: tuple[str, ...]  # the models that reported it
    scanned: bool = False  # consensus's own scan of the diff found it too
    reviewing: int = Field(default=0, ge=0)  # families with a valid review of its file
    # Which families those are, when known (a recorded finding keeps only their number).
    reviewers: frozenset[str] = frozenset()
    # Why its reports do not hold at its place (review/grounding.py): its judges are told.
    ungrounded: str | None = None

    @property
    def model_families(self) -> frozenset[str]:
        """The families whose votes it has, as for a cluster: all of `families`."""
        return self.families

    @property
    def reported_by(self) -> str:
        """ "1 of 4 families", or "2 families" when the reviewing count is not known."""
        n = len(self.families)
        noun = "family" if n == 1 and not self.reviewing else "families"
        return f"{n} of {self.reviewing} families" if self.reviewing else f"{n} {noun}"
