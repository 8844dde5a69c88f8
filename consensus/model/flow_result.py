"""What a flow did, as the faces turn it into an exit code (app/exit_codes.py, the one place)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from consensus.model.base import Frozen, Severity
from consensus.model.report import Report


class ResultKind(str, Enum):
    REVIEWED = "reviewed"
    INCOMPLETE = "incomplete"  # reviewed, but not to be read as complete: no quorum, budget
    SKIPPED = "skipped"  # nothing was reviewed, on purpose (a draft, a pause, a rule…)
    DONE = "done"  # a run that reviews nothing by design: slash commands, the queue


class FlowResult(Frozen):
    """A flow's result: reviewed, incomplete or skipped, with the reason in words; for a
    review, the severities of the findings it posted (what `fail-on` is checked against), and
    whether one of them asks for changes (at or above `publish.request_changes_on`: GitHub's
    review says so; GitLab has no review object, and its job fails instead)."""

    kind: ResultKind
    reason: str = ""
    quorum_met: bool = True
    posted: tuple[Severity, ...] = ()
    changes_requested: bool = False

    @classmethod
    def skipped(cls, reason: str) -> FlowResult:
        return cls(kind=ResultKind.SKIPPED, reason=reason)

    @classmethod
    def of(
        cls, report: Report, posted: Iterable[Severity], changes_floor: Severity | None = None
    ) -> FlowResult:
        """A review's result: incomplete when its quorum was not met, or when it says so
        itself (the budget stopped it, a file no model reviewed): its own words and fix.
        `changes_floor`: the severity from which a posted finding asks for changes."""
        severities = tuple(posted)
        quorum = report.quorum
        reasons = []
        if report.incomplete is not None:  # what was not reviewed, and what finishes it
            reasons.append(f"{report.incomplete.headline} {report.incomplete.fix}")
        if not quorum.met:
            reasons.append(
                f"quorum not met: {quorum.families_answered} provider families answered, "
                f"{quorum.min_providers} needed; the summary is advisory"
            )
        if not reasons and report.budget_exhausted:
            reasons.append(
                "budget reached before every file was reviewed: the review is incomplete"
            )
        reason = " ".join(reasons)
        kind = ResultKind.INCOMPLETE if reason else ResultKind.REVIEWED
        asks = changes_floor is not None and any(s.at_least(changes_floor) for s in severities)
        return cls(
            kind=kind,
            reason=reason,
            quorum_met=quorum.met,
            posted=severities,
            changes_requested=asks,
        )
