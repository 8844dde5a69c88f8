"""`consensus report RUN_ID`: a finished run's HTML page, from the journal alone.

Kept apart from the runner so that the page costs no pipeline import (the command answers
in well under a second).
"""

from __future__ import annotations

from collections.abc import Callable

from consensus.app.journal_port import RunJournal, not_a_review
from consensus.errors import JournalError
from consensus.model.journal import BENCH_JUDGE_LABEL, RUNS_FIX
from consensus.model.report import Report
from consensus.render.html import render_html
from consensus.review.job import ReviewJob


def html_report(
    journal: RunJournal, run_id: str, *, warn: Callable[[str], None], notice: str | None = None
) -> str:
    """The HTML page of a finished run: votes, verification, timeline, cost (render/html.py)."""
    row = journal.run(run_id)
    if row is None:
        raise JournalError(f"no run {run_id} in the journal {journal.path}", fix=RUNS_FIX)
    if row.label.startswith(BENCH_JUDGE_LABEL):
        raise not_a_review(run_id, row.label)
    final = journal.report(run_id)
    if final is None:
        raise JournalError(
            f"run {run_id} has no final report yet (it stopped in phase {row.phase!r})",
            fix="run the same review again (or `consensus review --resume "
            f"{run_id}`) to finish it, then ask for its report",
        )
    try:
        job: ReviewJob | None = ReviewJob.from_json(journal.inputs(run_id))
    except (ValueError, KeyError) as exc:  # inputs of an older version: report without them
        warn(f"warning: the inputs of run {run_id} could not be read ({exc}); labels omitted")
        job = None
    report = Report.model_validate_json(final)
    return render_html(report, journal.calls(run_id), journal.phases(run_id), job, notice)
