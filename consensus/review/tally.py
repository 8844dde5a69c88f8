"""One finding's verification so far: its votes, the calls it may still make, what was
discarded, and the note (the budget) that stopped it; and the judgement it ends in."""

from __future__ import annotations

from dataclasses import dataclass

from consensus.decide.ahead_by import tally_votes
from consensus.decide.evidence import WEIGHED_CAP
from consensus.decide.judgement import Judgement
from consensus.model.base import Status
from consensus.model.findings import Verification, Vote

RESAMPLES = 2  # a malformed verdict is asked again at most this many times a slot
# Calls one finding's verification may make, resamples included: its vote cap plus this.
EXTRA_CALLS_PER_FINDING = RESAMPLES
# At the default settings' vote cap (the weighed rule's; ahead-by-k's is at most 2 × 4 + 3).
MAX_CALLS_PER_FINDING = WEIGHED_CAP + EXTRA_CALLS_PER_FINDING


@dataclass
class Tally:
    votes: list[Vote]
    calls_left: int  # the finding's call cap, resamples included
    discarded: int = 0
    note: str = ""

    @property
    def spent(self) -> bool:
        return self.calls_left <= 0

    def out_of_calls(self) -> Status | None:
        """UNDECIDED once the finding's calls are spent, else None: voting goes on."""
        return Status.UNDECIDED if self.spent else None

    def malformed(self) -> str:
        return f"; verdicts malformed ({self.discarded} discarded)" if self.discarded else ""


def judgement_of(
    outcome: Status | None, tally: Tally, ahead_by: int, level: float | None, reason: str
) -> Judgement:
    """The judgement a finding's tally ends in, with the record behind it."""
    confirmed, refuted, uncertain = tally_votes(tally.votes)
    record = Verification(
        confirmed=confirmed,
        refuted=refuted,
        uncertain=uncertain,
        ahead_by=ahead_by,
        votes=tuple(tally.votes),
        discarded=tally.discarded,
        note=tally.note,
        budget_stopped=outcome is None and "budget reached" in tally.note,
        belief=level,
    )
    return Judgement(outcome=outcome, verification=record, reason=reason)
