"""The edge that runs a review with its journal: resume, record, replay.

`run_review` composes the real clients around the pure pipeline: litellm behind the
budget guard behind the journal, the head-file reader behind the journal, and the
observers. `replay_run` runs the same pipeline on a journal alone: no provider, no key,
no network, the same decisions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from consensus.app.journal_port import RunJournal, not_a_review
from consensus.app.run_log import RunLog, Tee
from consensus.app.services import Services
from consensus.ingest.redact import RedactedSource
from consensus.inspect.snapshot import RedactedTrees
from consensus.model.report import Report
from consensus.ports import Analyzers, SourceReader, TokenCounter, TreeReader
from consensus.review.fanout import CallResult, ReviewCall
from consensus.review.guard import GuardedClient
from consensus.review.job import ReviewJob
from consensus.review.ledger import Ledger
from consensus.review.pipeline import ReviewObserver, ReviewServices, review, run_id_for


class _JournalPhase:
    """Keeps the run's phase in the journal, for `consensus runs` and crash forensics."""

    def __init__(self, journal: RunJournal, run_id: str) -> None:
        self._journal = journal
        self._run_id = run_id

    def phase(self, name: str, detail: str = "") -> None:
        self._journal.set_phase(self._run_id, name)

    def planned(self, total: int) -> None:
        return None

    def call_started(self, call: ReviewCall) -> None:
        return None

    def call_finished(self, call: ReviewCall, result: CallResult) -> None:
        return None


async def run_review(
    job: ReviewJob,
    services: Services,
    *,
    source: SourceReader | None,
    events: RunLog | None = None,
    fresh: bool = False,
    resume: str | None = None,
    trees: TreeReader | None = None,
    analyzers: Analyzers | None = None,
) -> Report:
    """Review with the journal: resume the latest unfinished run of the same inputs. With
    `trees` (the pull request's base and head commits), the judges read the repository;
    with `analyzers`, their runs are a family in the vote (recorded: a resumed run and a
    replay read them from the journal)."""
    journal = services.journal()
    try:
        base_id = run_id_for(job.diff, job.settings, job.providers, job.workflow)
        run_id, resuming = journal.resolve_run(base_id, fresh=fresh, resume=resume)
        if resume is not None:  # the journal keeps no password: the live endpoints have it
            job = ReviewJob.from_json(journal.inputs(run_id)).with_endpoints_of(job.providers)
        if resuming:
            answered = sum(1 for call in journal.calls(run_id) if call.ok)
            services.log(
                f"resuming run {run_id}: {answered} calls already answered are not paid again"
            )
        else:
            services.log(f"run {run_id} (journal: {journal.path})")
        journal.start_run(run_id, base_id, job.label, job.to_json())
        if events is not None:
            events.run_created(run_id, resumed=resuming, label=job.label)
        reads = _Reads(source, trees, analyzers)
        report = await _journaled(job, services, journal, run_id, reads, events)
    finally:
        journal.close()
    return report


async def _journaled(
    job: ReviewJob,
    services: Services,
    journal: RunJournal,
    run_id: str,
    reads: _Reads,
    events: RunLog | None,
) -> Report:
    """The review, its calls and its file reads recorded under `run_id`."""
    source = reads.source
    ledger = Ledger(job.settings.budget)
    models = services.models.with_patterns(job.settings.redact)
    recorded = journal.recording_client(
        run_id,
        GuardedClient(models, ledger, services.counter),
        on_served=ledger.credit,
    )
    everyone: list[ReviewObserver] = [*services.progress(), _JournalPhase(journal, run_id)]
    if events is not None:
        everyone.append(events)
    redacted = RedactedSource(source, job.settings.redact) if source else None
    tools = ReviewServices(
        client=recorded,
        counter=services.counter,
        clock=services.clock,
        observer=Tee(*everyone),
        source=journal.recording_source(run_id, redacted),
        ledger=ledger,
        trees=_recorded_trees(
            journal,
            run_id,
            RedactedTrees(reads.trees, job.settings.redact) if reads.trees else None,
        ),
        analyzers=journal.recording_analyzers(run_id, reads.analyzers) if reads.analyzers else None,
    )
    report = await review(job, tools, run_id=run_id)
    status = run_status(report)
    journal.finish_run(
        run_id,
        status=status,
        report=report.model_dump_json(),
        cost_usd=report.stats.cost_usd,
    )
    if events is not None:
        events.run_ended(report, status=status)
    return report


def run_status(report: Report) -> str:
    """How `consensus runs` lists a finished run: `paused` (its budget stopped it: run it
    again with the advised cap), `incomplete` (a file no model reviewed, or too few families
    answered: running it again resumes it, answered calls are not paid again), else `done`."""
    if report.budget_exhausted:
        return "paused"
    if report.incomplete is not None or not report.quorum.met:
        return "incomplete"
    return "done"


async def replay_run(run_id: str, *, journal: RunJournal, counter: TokenCounter) -> Report:
    """Derive every decision of `run_id` again from its journal, calling no model."""
    job = _recorded_job(run_id, journal)
    # No guard: every outcome, refusals included, comes from the journal; the caps are
    # the run's own, for the report.
    ledger = Ledger(job.settings.budget)
    tools = ReviewServices(
        client=journal.recording_client(run_id, None),
        counter=counter,
        clock=time.monotonic,
        source=journal.recording_source(run_id, None),
        ledger=ledger,
        trees=_replayed_trees(journal, run_id),
        analyzers=journal.recording_analyzers(run_id, None),
    )
    return await review(job, tools, run_id=run_id)


@dataclass(frozen=True)
class _Reads:
    """What a run may read of the code: the head's files, and the pull request's trees."""

    source: SourceReader | None
    trees: TreeReader | None
    analyzers: Analyzers | None = None


def _recorded_trees(
    journal: RunJournal, run_id: str, trees: TreeReader | None
) -> TreeReader | None:
    """The trees, every read kept; the head's listing is read at once, so that the journal
    says the run read the trees (its judges were offered tools) even when none was used."""
    if trees is None:
        return None
    recorded = journal.recording_trees(run_id, trees)
    recorded.paths("head")
    return recorded


def _replayed_trees(journal: RunJournal, run_id: str) -> TreeReader | None:
    """The trees as the run read them, for a run that read them; None for one that did not
    (its judges were asked without tools, and are again)."""
    known, _ = journal.tree_read(run_id, "head", "paths", "")
    return journal.recording_trees(run_id, None) if known else None


def _recorded_job(run_id: str, journal: RunJournal) -> ReviewJob:
    """The review `run_id` recorded; a run that recorded none (a bench judge's run) or one a
    different version of consensus recorded is an error that says which."""
    inputs = journal.inputs(run_id)
    try:
        return ReviewJob.from_json(inputs)
    except (KeyError, TypeError, ValueError):  # pydantic's ValidationError is a ValueError
        row = journal.run(run_id)
        raise not_a_review(run_id, row.label if row is not None else "?") from None
