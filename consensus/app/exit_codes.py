"""Flow results to exit codes: the one rule every face uses (`consensus review`, the Action).

0 done (or skipped, with its reason logged where it was decided); 1 a posted finding at or
above `fail-on` (on GitLab, which has no review object, also one that asks for changes:
`changes_fail`); 3 a review that is incomplete (quorum not met, budget reached first): it
must not look like a clean one, unless the Action's `on-no-review: warn` makes it a
warning. Usage and configuration errors (2) are raised, and mapped where they are caught.
"""

from __future__ import annotations

from consensus.errors import ReviewImpossible
from consensus.model.base import Severity
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.ports import Log


def exit_code(
    result: FlowResult,
    *,
    fail_on: str,
    log: Log,
    on_no_review: str = "fail",
    warn: Log | None = None,
    changes_fail: bool = False,
) -> int:
    """The exit code of `result`. `warn` puts a warning on the run (the Action's own
    annotation, written by its log); without it a warning is a log line. `changes_fail`:
    a review that asks for changes fails (GitLab's job status stands for the review event)."""
    if result.kind is ResultKind.INCOMPLETE:
        if on_no_review == "warn":
            (warn or (lambda line: log(f"warning: {line}")))(result.reason)
            return 0
        log(f"error: {result.reason}")
        return ReviewImpossible.exit_code
    if result.kind is not ResultKind.REVIEWED:
        return 0
    if changes_fail and result.changes_requested:
        log("a posted finding asks for changes (publish.request_changes_on): the job fails")
        return 1
    if fail_on == "none":
        return 0
    floor = Severity(fail_on)
    return 1 if any(severity.at_least(floor) for severity in result.posted) else 0
