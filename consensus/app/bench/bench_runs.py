"""The reviews a bench compares, each through the review pipeline and the journal.

- consensus: `run_review`, exactly as `consensus review` runs it (resumed if it was
  interrupted; read back from the journal, with no call, once it is done);
- consensus without verification, and each provider alone (a single-model review: that
  provider only, `min_providers: 1`, no verification): derived from the consensus run.
  Their review calls are the very requests the consensus run made (same model, same
  prompt), so they are served from that run's journal; anything else they ask (a "same
  problem?" question) is made once and kept in a run of their own, `<run>~<variant>`.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus.app.journal_port import RunJournal
from consensus.app.journaled import run_review
from consensus.app.services import Services
from consensus.model.report import Report
from consensus.ports import Completion, CompletionRequest, ModelClient, SourceReader
from consensus.review.guard import GuardedClient
from consensus.review.job import ReviewJob
from consensus.review.ledger import Ledger
from consensus.review.pipeline import ReviewServices, review, run_id_for
from consensus.settings.config import ProviderSettings, Settings, layered


class SharedCalls:
    """Answers a call the run `source` already answered from its journal; asks `inner`
    (journaled in a run of its own) for anything else."""

    def __init__(self, journal: RunJournal, source: str, inner: ModelClient) -> None:
        self._journal = journal
        self._source = source
        self._inner = inner

    async def complete(self, request: CompletionRequest) -> Completion:
        known = self._journal.answered(self._source, request)
        if known is not None:
            return known
        return await self._inner.complete(request)


def stored_report(journal: RunJournal, run_id: str) -> Report | None:
    """The report of a finished run, or None."""
    row = journal.run(run_id)
    if row is None or row.status != "done":
        return None
    text = journal.report(run_id)
    return Report.model_validate_json(text) if text else None


async def consensus_report(
    job: ReviewJob, services: Services, journal: RunJournal, *, source: SourceReader | None
) -> Report:
    """The consensus review of `job`: read back when done, else run (or resumed) as
    `consensus review` runs it."""
    done = stored_report(journal, run_id_for(job.diff, job.settings, job.providers, job.workflow))
    if done is not None:
        return done
    return await run_review(job, services, source=source)


def solo_settings(settings: Settings) -> Settings:
    """One provider reviews alone: its findings are not waiting for a quorum."""
    return layered(settings, {"min_providers": 1}, source="consensus bench (one provider alone)")


def variant_jobs(job: ReviewJob) -> dict[str, ReviewJob]:
    """variant name → the job it reviews: consensus without verification, each provider."""
    jobs = {"consensus-no-verify": _job(job, job.settings, job.providers)}
    for provider in job.providers:
        if provider.model not in job.unavailable:
            jobs[f"solo:{provider.model}"] = _job(job, solo_settings(job.settings), (provider,))
    return jobs


def _job(job: ReviewJob, settings: Settings, providers: Sequence[ProviderSettings]) -> ReviewJob:
    models = {p.model for p in providers}
    how = f"alone: {providers[0].model}" if len(providers) == 1 else "no verification"
    return ReviewJob(
        diff=job.diff,
        settings=settings,
        providers=tuple(providers),
        personas=job.personas,
        unavailable={m: why for m, why in job.unavailable.items() if m in models},
        verify=False,
        label=f"{job.label} ({how})",
        guidelines=job.guidelines,
    )


async def derived_report(
    name: str, job: ReviewJob, services: Services, journal: RunJournal, *, source_run: str
) -> Report:
    """The variant `name` of the run `source_run`, reviewing `job`: read back when done."""
    run_id = f"{source_run}~{name.replace(':', '-').replace('/', '-')}"
    done = stored_report(journal, run_id)
    if done is not None:
        return done
    if journal.run(run_id) is None:
        journal.start_run(run_id, run_id, job.label, job.to_json())
    ledger = Ledger(job.settings.budget)
    guarded = GuardedClient(services.models.with_patterns(job.settings.redact), ledger)
    recorded = journal.recording_client(run_id, guarded, on_served=ledger.credit)
    tools = ReviewServices(
        client=SharedCalls(journal, source_run, recorded),
        counter=services.counter,
        clock=services.clock,
        source=journal.recording_source(run_id, None),
        ledger=ledger,
    )
    report = await review(job, tools, run_id=run_id)
    status = "paused" if report.budget_exhausted else "done"
    journal.finish_run(
        run_id, status=status, report=report.model_dump_json(), cost_usd=report.stats.cost_usd
    )
    return report
