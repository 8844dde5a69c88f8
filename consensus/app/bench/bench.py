"""`consensus bench`: review each PR of a suite, judge every finding, score, write it out.

The table of contents: load the suite (bench_source) → for each pull request: its diff,
the consensus review and its variants (bench_runs), the judge's answers (bench/judge.py,
journaled) → the figures (bench/results.py) → the files (markdown, JSON, HTML, labels).

Everything a model answers is kept in the run journal: a bench that was interrupted
resumes without paying again, and a finished one re-scores without a single model call.
The flow takes its services as parameters; the face builds them (app/wiring.py).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from consensus.app.bench.bench_runs import consensus_report, derived_report, variant_jobs
from consensus.app.bench.bench_source import LoadedSuite, pull_source
from consensus.app.jobs import JobRequest, RawDiff, prepare_job
from consensus.app.journal_port import RunJournal
from consensus.app.local_review import Flags, providers_for, with_flags
from consensus.app.services import Services
from consensus.bench.judge import BenchFinding, judge_all, nearby_hunks
from consensus.bench.labelled import Labelled, jsonl, label_findings
from consensus.bench.page import render_bench_html
from consensus.bench.results import (
    CONSENSUS,
    NO_VERIFY,
    BenchResult,
    PRRun,
    Tally,
    build_result,
)
from consensus.bench.suite import SuitePR
from consensus.bench.tables import render_markdown
from consensus.ingest.pull_diff import git_sections
from consensus.model.base import Status
from consensus.model.journal import BENCH_JUDGE_LABEL
from consensus.model.report import Report
from consensus.ports import Log, PullReader, SourceReader
from consensus.review.guidelines import Guidelines
from consensus.review.job import ReviewJob
from consensus.settings.config import (
    ProviderSettings,
    Settings,
    duplicate_model_warnings,
    load_config,
)
from consensus.settings.personas import Persona, load_personas, select_personas


@dataclass(frozen=True)
class BenchServices:
    """What the bench reaches the world through, built once by the face: the face's
    Services (models, token counter, keys, journal, log) and GitHub, repository by
    repository (a bench reads many), and where downloads are cached."""

    core: Services
    pulls: Callable[[str], PullReader]  # OWNER/NAME → its pull requests
    sources: Callable[[str, str], SourceReader]  # (OWNER/NAME, head sha) → its files
    home: Path

    @property
    def log(self) -> Log:
        return self.core.log


@dataclass(frozen=True)
class BenchRequest:
    """Who reviews and who judges, as the command line asks."""

    root: Path
    config: Path | None
    models: tuple[str, ...] | None
    personas: tuple[str, ...] | None
    judge: str
    judge_api_base: str | None = None
    judge_key_env: str | None = None


@dataclass(frozen=True)
class BenchPanel:
    """Who reviews and who judges, resolved: the settings layered, the providers, the
    personas, each provider's missing key (`unavailable`), the judge's own."""

    settings: Settings
    providers: tuple[ProviderSettings, ...]
    personas: tuple[Persona, ...]
    personas_from: str
    unavailable: Mapping[str, str]  # reviewer → why it will not be called
    judge: ProviderSettings
    judge_missing: str | None = None  # why the judge cannot be called


@dataclass(frozen=True)
class BenchOutput:
    result: BenchResult
    labels: Labelled


def bench_panel(request: BenchRequest, services: Services) -> BenchPanel:
    """The reviewers as configured (the file, then --models and --personas, layered as
    `consensus review` layers them), and the judge: a configured provider of that model,
    else the model with the endpoint and key given."""
    loaded = load_config(request.config, root=request.root)
    settings = with_flags(loaded.settings, Flags(personas=request.personas))
    providers = providers_for(settings, request.models, services)
    source = "--personas" if request.personas else loaded.source
    available = load_personas([request.root / d for d in settings.persona_dirs])
    personas = tuple(select_personas(available, settings.personas, source=source))
    configured = {p.model: p for p in providers}.get(request.judge)
    judge = configured or ProviderSettings(model=request.judge)
    if request.judge_api_base or request.judge_key_env:
        judge = ProviderSettings(
            model=request.judge,
            api_base=request.judge_api_base or judge.api_base,
            api_key_env=request.judge_key_env or judge.api_key_env,
        )
    for warning in duplicate_model_warnings(providers):
        services.warn(warning)
    unavailable = services.keys.unavailable(providers)
    for model, why in unavailable.items():
        services.warn(f"{model} will not be called: {why}")
    missing = services.keys.unavailable((judge,)).get(judge.model)
    return BenchPanel(settings, providers, personas, source, unavailable, judge, missing)


def review_job(pr: SuitePR, diff_text: str, panel: BenchPanel, services: Services) -> ReviewJob:
    """The job `consensus review` would prepare for this diff (prepare_job), verified."""
    settings = panel.settings
    request = JobRequest(
        settings=settings,
        providers=lambda: panel.providers,
        personas=lambda chosen, source: panel.personas,
        personas_from=panel.personas_from,
        guidelines=lambda chosen: Guidelines(),  # the PR's repository is not checked out
        label=f"bench: {pr.key}",
    )
    # The panel's warnings (a missing key, one model twice) were said once, up front.
    return prepare_job(RawDiff(diff_text), request, services.keys, log=lambda line: None)


def posted(report: Report) -> list[BenchFinding]:
    return [BenchFinding.of(f) for f in report.findings if f.status.posted]


def reported(report: Report) -> list[BenchFinding]:
    """What a single model said: everything it reported (nothing was rejected)."""
    return [BenchFinding.of(f) for f in report.findings if f.status is not Status.REJECTED]


async def run_bench(loaded: LoadedSuite, panel: BenchPanel, services: BenchServices) -> BenchOutput:
    """Review, judge and score every pull request of the suite."""
    suite = loaded.suite
    tally = Tally(posted={CONSENSUS: {}, NO_VERIFY: {}})
    journal = services.core.journal()
    try:
        for n, pr in enumerate(suite.prs, 1):
            services.log(f"[{n}/{len(suite.prs)}] {pr.key}")
            await _one_pr(pr, suite.name, panel, services, journal, tally)
    finally:
        journal.close()
    result = build_result(
        suite,
        judge=panel.judge.model,
        tally=tally,
        published_judge=loaded.published_judge,
        published=loaded.published,
    )
    return BenchOutput(result, label_findings(tally.reviewed, tally.judgements))


async def _one_pr(
    pr: SuitePR,
    suite: str,
    panel: BenchPanel,
    services: BenchServices,
    journal: RunJournal,
    into: Tally,
) -> None:
    started = time.monotonic()
    source = pull_source(pr, open_pulls=services.pulls, home=services.home)
    assert source is not None  # fetched when not cached
    into.notes.extend(f"{pr.key}: {note}" for note in source.notes)
    job = review_job(pr, source.diff, panel, services.core)
    files = services.sources(pr.repo, source.head_sha) if pr.repo and source.head_sha else None
    report = await consensus_report(job, services.core, journal, source=files)
    wall = report.stats.wall_s or time.monotonic() - started
    variants = {CONSENSUS: report}
    for name, variant in variant_jobs(job).items():
        variants[name] = await derived_report(
            name, variant, services.core, journal, source_run=report.run_id
        )
    for name, found in variants.items():
        chosen = reported(found) if name.startswith("solo:") else posted(found)
        into.posted.setdefault(name, {})[pr.key] = chosen
        into.costs.setdefault(name, {})[pr.key] = found.stats.cost_usd
    asked: dict[str, BenchFinding] = {}
    for finding in [BenchFinding.of(f) for f in report.findings]:
        asked.setdefault(finding.key, finding)
    for by_pr in into.posted.values():
        for finding in by_pr.get(pr.key, []):
            asked.setdefault(finding.key, finding)
    judge_run = _judge_run(journal, pr, panel.judge, report.run_id)
    judged = await judge_all(
        [(f, nearby_hunks(job.diff, f)) for f in asked.values()],
        pr,
        judge=panel.judge,
        # the judge's prompts redacted with the suite's `redact:` patterns, as the reviews'
        client=journal.recording_client(
            judge_run, services.core.models.with_patterns(panel.settings.redact)
        ),
        concurrency=panel.settings.concurrency,
    )
    for judgement in judged:
        into.judgements[(pr.key, judgement.finding.key)] = judgement
    calls = journal.calls(judge_run)
    judge_cost = round(sum(c.cost_usd for c in calls if c.ok), 6)
    row = journal.run(judge_run)
    if row is not None and row.status != "done":
        journal.finish_run(judge_run, status="done", report="", cost_usd=judge_cost)
    into.runs.append(
        PRRun(
            pr=pr.key,
            group=pr.group,
            run_id=report.run_id,
            cost_usd=report.stats.cost_usd,
            wall_s=round(wall, 3),
            calls=report.stats.calls,
            judge_cost_usd=judge_cost,
            judge_calls=len(calls),
            incomplete=report.budget_exhausted or not report.quorum.met,
        )
    )
    origin = f"{suite}:{pr.key}"
    into.reviewed.append((pr.key, origin, report.findings, git_sections(source.diff)))
    tally = sum(1 for j in judged if j.hit)
    services.log(f"  {len(report.findings)} findings, {tally} of {len(judged)} judged a match")


def _judge_run(journal: RunJournal, pr: SuitePR, judge: ProviderSettings, run_id: str) -> str:
    """The journal run holding the judge's answers for one PR's review."""
    key = f"{pr.key}\0{judge.model_dump_json()}\0{run_id}"
    ident = "judge-" + hashlib.sha256(key.encode()).hexdigest()[:12]
    if journal.run(ident) is None:
        journal.start_run(ident, ident, f"{BENCH_JUDGE_LABEL} {judge.model}: {pr.key}", "{}")
    return ident


def write_outputs(outcome: BenchOutput, directory: Path) -> list[Path]:
    """bench.md, bench.json (every judgement), bench.html, labels.jsonl, votes.jsonl."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "bench.md": render_markdown(outcome.result),
        "bench.json": outcome.result.model_dump_json(indent=2) + "\n",
        "bench.html": render_bench_html(outcome.result),
        "labels.jsonl": jsonl(outcome.labels.claims),
        "votes.jsonl": jsonl(outcome.labels.votes),
    }
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
