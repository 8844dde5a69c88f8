"""The review pipeline, in order: plan → fan out → align (asking "same problem?" where the
words cannot decide) → score → verify → report.

Takes a ReviewJob (plain data: the diff, the settings, the providers, the personas) and its
ReviewServices (the ports: a ModelClient, a TokenCounter, a clock); returns a Report. Every
face builds the job with one function (app/jobs.py) and the services in app/wiring.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from consensus.decide.align import align
from consensus.decide.analyzers import run_notes
from consensus.decide.fingerprint import namespaced
from consensus.decide.report import ReportParts, VerificationState, build_report
from consensus.decide.score import score
from consensus.ingest.chunking import plan_chunks, render_chunk
from consensus.ingest.detections import detections, settle
from consensus.ingest.risk import risk_order
from consensus.inspect.lookups import ToolBudget
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.model.analysis import AnalyzerRun
from consensus.model.base import FailureKind
from consensus.model.diff import Chunk, ReviewDiff
from consensus.model.findings import ModelFailure, ModelReview, ScoredCluster
from consensus.model.panel import PanelEstimate
from consensus.model.report import Report
from consensus.ports import (
    Analyzers,
    CompletionRequest,
    ModelClient,
    SourceReader,
    TokenCounter,
    TreeReader,
)
from consensus.review.budget import OUTPUT_TOKENS
from consensus.review.budget_plan import budget_report, plan_run_budget
from consensus.review.fanout import CallResult, FanoutObserver, ReviewCall, fan_out, unreachable
from consensus.review.guard import GuardedClient
from consensus.review.guidelines import PromptContext, path_instructions_for
from consensus.review.job import ReviewJob
from consensus.review.judge_tools import Looker
from consensus.review.ledger import Ledger
from consensus.review.prompt import review_messages, review_schema
from consensus.review.verify import Reading, needs_check
from consensus.review.verify import verify as verify_clusters
from consensus.review.vote import Ballot, align_and_score
from consensus.review.vote import anchor_reader as anchor_reader
from consensus.review.vote import coverage as coverage
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import Persona, render_persona
from consensus.settings.workflows import Workflow


class ReviewObserver(FanoutObserver, Protocol):
    """Fan-out events plus the pipeline's own: phases and the number of planned calls."""

    def phase(self, name: str, detail: str = "") -> None: ...

    def planned(self, total: int) -> None: ...


OUTPUT_RESERVE_TOKENS = OUTPUT_TOKENS  # room left for the model's answer, its max_tokens
PROMPT_RESERVE_TOKENS = 3_000  # system prompt, persona and schema around the diff
WINDOW_SHARE = 0.8  # use at most this share of a window: tokenizers disagree a little


def context_budget(provider: ProviderSettings, counter: TokenCounter, default: int) -> int:
    """Tokens of diff one call to `provider` may carry."""
    window = provider.context_window or counter.context_window(provider.model) or default
    return max(1_000, int(window * WINDOW_SHARE) - OUTPUT_RESERVE_TOKENS - PROMPT_RESERVE_TOKENS)


def plan_calls(
    diff: ReviewDiff,
    *,
    providers: Sequence[ProviderSettings],
    personas: Sequence[Persona],
    counter: TokenCounter,
    default_window: int,
    workflow: Workflow | None = None,
    context: PromptContext | None = None,
) -> list[ReviewCall]:
    """Every (provider, chunk, persona) call, in the order they should be made.

    Files are chunked riskiest first (ingest/risk.py), so that a budget stop leaves the
    least important files unreviewed. Chunk-major, then persona, then provider: each
    provider sees one chunk's personas in a row (same prefix, cache hits), all providers
    progress together (a budget that runs out leaves whole chunks unreviewed by everyone
    rather than one provider silent), and the global concurrency is shared across
    providers from the first call.
    """
    context = context or PromptContext()
    calls = []
    for provider in providers:
        chunks = plan_chunks(
            risk_order(diff.files, {r.path for r in diff.redactions}),
            budget_tokens=context_budget(provider, counter, default_window),
            count=partial(counter.count, provider.model),
        )
        for chunk in chunks:
            diff_text = render_chunk(chunk, diff)
            for persona in personas:
                calls.append(_call(provider, persona, chunk, diff_text, context, workflow))
    rank = {p.model: n for n, p in enumerate(providers)}
    order = {p.id: n for n, p in enumerate(personas)}
    return sorted(calls, key=lambda c: (c.chunk.index, order[c.persona], rank[c.provider.model]))


def _call(
    provider: ProviderSettings,
    persona: Persona,
    chunk: Chunk,
    diff_text: str,
    context: PromptContext,
    workflow: Workflow | None,
) -> ReviewCall:
    messages = review_messages(
        diff_text,
        render_persona(persona, paths=chunk.paths),
        chunk.paths,
        extra_instructions=workflow.instructions if workflow else "",
        extra_title=workflow.title if workflow else "",
        language=context.language,
        guidelines=context.guidelines.files,
        path_instructions=path_instructions_for(chunk.paths, context.path_instructions),
    )
    request = CompletionRequest(
        model=provider.model,
        messages=messages,
        response_schema=review_schema(),
        schema_name="review",
        api_base=provider.api_base,
        api_key_env=provider.api_key_env,
        timeout_s=provider.timeout_s,
        temperature=0.0,
        max_tokens=OUTPUT_TOKENS,  # the answer's bound: what the budget reserves for it
    )
    return ReviewCall(provider=provider, persona=persona.id, chunk=chunk, request=request)


def run_id_for(
    diff: ReviewDiff,
    settings: Settings,
    providers: Sequence[ProviderSettings],
    workflow: Workflow | None = None,
) -> str:
    """Derived from content: the same diff and configuration give the same run id. The
    budget and the concurrency change no decision, so raising them continues a run."""
    digest = hashlib.sha256()
    digest.update(diff.model_dump_json().encode())
    digest.update(settings.model_dump_json(exclude={"budget", "concurrency"}).encode())
    digest.update(json.dumps([p.model_dump(mode="json") for p in providers]).encode())
    if workflow is not None:
        digest.update(workflow.model_dump_json(exclude={"budget"}).encode())
    return digest.hexdigest()[:12]


@dataclass(frozen=True)
class _Run:
    """What every phase of one review shares."""

    diff: ReviewDiff
    settings: Settings
    providers: Sequence[ProviderSettings]
    client: ModelClient
    ledger: Ledger
    observer: ReviewObserver | None
    namespace: str  # the saved workflow's name: its findings' fingerprints are its own

    def phase(self, name: str, detail: str = "") -> None:
        if self.observer is not None:
            self.observer.phase(name, detail)


@dataclass(frozen=True)
class ReviewServices:
    """What a review calls through: the model, the token counter, the clock; what it tells
    of its progress (`observer`), where it reads the head's files (`source`) and the pull
    request's trees, for judges that read the repository (`trees`).

    Without `ledger`, the client is guarded here by a fresh budget and breaker. A caller
    that passes its `ledger` has guarded the client itself (a journal wraps the guard, so
    that the guard's refusals are recorded and replayed like any outcome)."""

    client: ModelClient
    counter: TokenCounter
    clock: Callable[[], float] = time.monotonic
    observer: ReviewObserver | None = None
    source: SourceReader | None = None
    ledger: Ledger | None = None
    trees: TreeReader | None = None
    analyzers: Analyzers | None = None  # static analyzers, a family in the vote (#45)


async def review(job: ReviewJob, services: ReviewServices, *, run_id: str | None = None) -> Report:
    """Review the job's diff; providers named in `job.unavailable` (model → why) abstain
    uncalled. A saved workflow adds its instructions to every prompt and names the report."""
    started = services.clock()
    diff, settings, workflow = job.diff, job.settings, job.workflow
    run_id = run_id or run_id_for(diff, settings, job.providers, workflow)
    if not diff.files:
        return nothing_to_review(diff, settings=settings, run_id=run_id, workflow=workflow)
    client, ledger = services.client, services.ledger
    if ledger is None:
        ledger = Ledger(settings.budget)
        client = GuardedClient(client, ledger, services.counter)
    namespace = workflow.name if workflow else ""
    run = _Run(diff, settings, job.providers, client, ledger, services.observer, namespace)
    calls = plan_calls(
        diff,
        providers=job.providers,
        personas=job.personas,
        counter=services.counter,
        default_window=settings.default_context_window,
        workflow=workflow,
        context=PromptContext(
            language=settings.response_language,
            guidelines=job.guidelines,
            path_instructions=settings.path_instructions,
        ),
    )
    sent = [c for c in calls if c.provider.model not in job.unavailable]
    budget = plan_run_budget(ledger.budget, sent, services.counter, diff, job.ceiling)
    ledger.hold_to(budget.limits())
    results, analyzed = await _reviews(run, calls, job.unavailable, len(job.personas), services)
    ballot = Ballot(diff, settings, client, ledger, _answered(run, results), namespace)
    run.phase("align and score")
    scored, asked = await align_and_score(ballot, results, analyzed, ask=job.verify)
    panel = None
    if job.verify:
        reading = Reading(services.source, looker(services.trees, settings), analyzed)
        scored, state, panel = await _verify(run, scored, results, reading)
    else:
        state = "skipped"
    return build_report(
        ReportParts(
            run_id=run_id,
            workflow=namespace or None,
            diff=diff,
            scored=scored,
            results=results,
            models=[(p.model, p.voting_family) for p in job.providers],
            threshold=settings.threshold,
            min_providers=settings.min_providers,
            wall_s=services.clock() - started,
            notes=[
                *_notes(results),
                *run_notes(analyzed),
                *asked,
                *job.guidelines.notes,
                *budget.notes(),
            ],
            verification=state,
            verification_usage=run.ledger.verification,
            budget_exhausted=_budget_stopped(results, scored),
            budget=budget_report(budget, ledger, results, scored),
            panel=panel,
        )
    )


def nothing_to_review(
    diff: ReviewDiff, *, settings: Settings, run_id: str, workflow: Workflow | None = None
) -> Report:
    """The report of a diff without a reviewable file: no model is called, the skipped
    files are listed with their reasons, and consensus's own scan still reports (a link
    that leaves the repository is in no reviewed file). A workflow's findings keep its
    fingerprint namespace here too."""
    namespace = workflow.name if workflow else ""
    clusters = [
        c.model_copy(update={"fingerprint": namespaced(c.fingerprint, namespace)})
        for c in align(detections(diff), anchor_text=anchor_reader(diff))
    ]
    scored = score(
        clusters,
        {},
        threshold=settings.threshold,
        verify_min_severity=settings.verify_min_severity,
        check_min_severity=settings.inspector.check_consensus_min_severity,
    )
    skipped = len(diff.skipped)
    return build_report(
        ReportParts(
            run_id=run_id,
            diff=diff,
            scored=settle(scored),
            results=[],
            models=[],
            threshold=settings.threshold,
            min_providers=settings.min_providers,
            wall_s=0.0,
            notes=[
                f"nothing to review: {skipped} changed file{'s' if skipped != 1 else ''} skipped, "
                "no model was called"
            ],
            verification="not_needed",
            reviewed=False,
            workflow=namespace or None,
        )
    )


async def _reviews(
    run: _Run,
    calls: Sequence[ReviewCall],
    unavailable: Mapping[str, str],
    personas: int,
    services: ReviewServices,
) -> tuple[list[CallResult], tuple[AnalyzerRun, ...]]:
    """The models' reviews and the analyzers' runs, side by side: the analyzers run once
    per review, while the models are asked."""
    if services.analyzers is None:
        return await _fan_out(run, calls, unavailable, personas), ()
    results, analyzed = await asyncio.gather(
        _fan_out(run, calls, unavailable, personas), services.analyzers.analyze(run.diff)
    )
    return results, analyzed


async def _fan_out(
    run: _Run, calls: Sequence[ReviewCall], unavailable: Mapping[str, str], personas: int
) -> list[CallResult]:
    to_call = [c for c in calls if c.provider.model not in unavailable]
    chunks = max((c.chunk.index + 1 for c in calls), default=0)
    run.phase(
        "fan-out",
        f"{len(to_call)} calls: {len(run.providers) - len(unavailable)} providers × "
        f"{personas} personas × {'up to ' if chunks > 1 else ''}{chunks} "
        f"chunk{'s' if chunks > 1 else ''} of {len(run.diff.files)} files",
    )
    if run.observer is not None:
        run.observer.planned(len(to_call))
    results = await fan_out(
        to_call,
        run.client,
        run.diff,
        concurrency=run.settings.concurrency,
        observer=run.observer,
    )
    return results + [
        unreachable(c, unavailable[c.provider.model])
        for c in calls
        if c.provider.model in unavailable
    ]


def _answered(run: _Run, results: Sequence[CallResult]) -> list[ProviderSettings]:
    """The providers that returned a valid review: the panel for verification."""
    answered = {r.provider for r in results if isinstance(r, ModelReview)}
    return [p for p in run.providers if p.model in answered]


async def _verify(
    run: _Run,
    scored: list[ScoredCluster],
    results: Sequence[CallResult],
    reading: Reading,
) -> tuple[list[ScoredCluster], VerificationState, PanelEstimate | None]:
    wanted = sum(needs_check(s, run.settings.inspector) for s in scored)
    if not wanted:
        return scored, "not_needed", None
    run.phase("verify", f"{wanted} finding{'s' if wanted > 1 else ''}")
    checked = await verify_clusters(
        scored,
        diff=run.diff,
        panel=_answered(run, results),
        settings=run.settings,
        client=run.client,
        ledger=run.ledger,
        reading=reading,
    )
    return checked.items, "done", checked.panel


def looker(trees: TreeReader | None, settings: Settings) -> Looker | None:
    """The judges' way into the trees, when the run has them: one snapshot for every claim
    and judge (each file read and redacted once), the tools confined to what the
    configuration reviews, `inspector.tool_budget` calls a claim."""
    if trees is None:
        return None
    policy = PathPolicy(include=settings.paths, exclude=settings.exclude)
    snapshot = Snapshot(trees, redactor(settings.redact), policy)
    return Looker(snapshot, ToolBudget(calls=settings.inspector.tool_budget))


def _budget_stopped(results: Sequence[CallResult], scored: Sequence[ScoredCluster]) -> bool:
    """Did the budget leave any work undone? Read from outcomes, so a replay agrees."""
    refused = any(isinstance(r, ModelFailure) and r.kind is FailureKind.BUDGET for r in results)
    return refused or any(s.verification and s.verification.budget_stopped for s in scored)


def _notes(results: Sequence[CallResult]) -> list[str]:
    repaired = sum(1 for r in results if isinstance(r, ModelReview) and r.repaired)
    if not repaired:
        return []
    replies = "reply was" if repaired == 1 else "replies were"
    return [f"{repaired} {replies} invalid at first and accepted after one repair turn"]
