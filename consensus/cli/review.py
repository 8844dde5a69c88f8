"""`consensus review`: the diff of a branch, a file or stdin, reviewed by the configured panel."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from consensus.cli.options import (
    SEVERITIES,
    emit,
    handles_errors,
    logger,
    progress_observer,
    repo_root,
    report_options,
    split_list,
)
from consensus.errors import UsageError

if TYPE_CHECKING:
    from consensus.app.local_review import Flags
    from consensus.app.services import Services
    from consensus.model.report import Report
    from consensus.ports import Log
    from consensus.review.job import ReviewJob


@click.command()
@click.option(
    "--base",
    help="Base ref; the diff is taken from its merge-base (default: the repository's default "
    "branch, origin/HEAD; without a remote, main or master).",
)
@click.option("--head", help="Head ref (default: the working tree, uncommitted changes included).")
@click.option("--diff", "diff_path", help="Read a unified diff from a file, or '-' for stdin.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@report_options
@click.option(
    "--models",
    help="Comma-separated models to review with: configured ones (by model or name) keep "
    "their endpoint and key; others are litellm model strings.",
)
@click.option("--personas", "persona_ids", help="Comma-separated persona ids.")
@click.option("--threshold", type=click.FloatRange(0.01, 1.0), help="Agreement needed (0.75).")
@click.option("--max-cost", type=click.FloatRange(0.0), help="Cost cap of the run, US dollars.")
@click.option("--max-tokens", type=click.IntRange(0), help="Token cap of the run.")
@click.option("--no-verify", is_flag=True, help="Skip verification of disputed findings.")
@click.option(
    "--sarif",
    "sarif_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A SARIF 2.1.0 file another tool wrote (CodeQL, eslint, semgrep…): its results are "
    "one analyzer in the vote, filtered to the change. Repeatable.",
)
@click.option(
    "--workflow",
    "workflow_name",
    help="Run a saved review workflow (.consensus/workflows/NAME.md; `consensus workflows`).",
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    default="none",
    show_default=True,
    help="Exit 1 when a posted finding is at or above this severity.",
)
@click.option("--resume", "resume_id", help="Continue this run from the journal.")
@click.option("--fresh", is_flag=True, help="Start a new run: do not resume from the journal.")
@click.option("--events", "events_path", type=click.Path(path_type=Path), help="JSON Lines log.")
@click.option("--dry-run", is_flag=True, help="Print the plan and its cost; call no provider.")
@handles_errors
def review(
    base: str | None,
    head: str | None,
    diff_path: str | None,
    config_path: Path | None,
    fmt: str,
    output: Path | None,
    models: str | None,
    persona_ids: str | None,
    threshold: float | None,
    max_cost: float | None,
    max_tokens: int | None,
    no_verify: bool,
    sarif_paths: tuple[Path, ...],
    workflow_name: str | None,
    fail_on: str,
    resume_id: str | None,
    fresh: bool,
    events_path: Path | None,
    dry_run: bool,
) -> None:
    """Review a diff with several models and report what they agree on.

    Every call is kept in a journal ($CONSENSUS_HOME): a run that was killed or stopped by
    its budget continues where it stopped when run again, without paying twice.
    """
    import asyncio
    import dataclasses

    from consensus.app.journaled import run_review
    from consensus.app.local_review import LocalRequest, prepare_local
    from consensus.app.run_log import RunLog
    from consensus.app.wiring import services

    if resume_id and fresh:
        raise UsageError("--resume and --fresh contradict each other", fix="use one of them")
    if dry_run and fmt not in ("text", "json"):
        raise UsageError("--dry-run prints its plan as text or json", fix="use --format json")
    flags = _flags(models, persona_ids, threshold, max_cost, max_tokens, no_verify, sarif_paths)
    request = LocalRequest(repo_root(), config_path, diff_path, base, head, workflow_name, flags)
    log = logger()
    wired = services(os.environ, log=log)
    prepared = prepare_local(request, wired, always=dry_run)
    job = prepared.job
    if job is None:  # no file can be reviewed: the report says what was skipped and why
        _finish(prepared.nothing_to_review(log), fmt, output, fail_on, journaled=False)
    if dry_run:  # counted from litellm's data, without importing litellm
        # exit as the real run would: 3 when it cannot end as a complete consensus
        sys.exit(0 if _dry_run(job, wired, request.root, fmt, output, log) else 3)
    if job.diff.redactions:
        count = len(job.diff.redactions)
        log(f"redacted {count} secret{'s' if count > 1 else ''} before review (see the report)")
    observer = progress_observer(lambda model: wired.counter.price(model) is not None)
    shown = dataclasses.replace(wired, progress=lambda: [observer])
    events_file = events_path.open("a", encoding="utf-8") if events_path else None
    try:
        events = RunLog(events_file) if events_file else None
        run = run_review(
            job,
            shown,
            source=request.source(),
            events=events,
            fresh=fresh,
            resume=resume_id,
            trees=request.trees(),
            analyzers=request.analyzers(job.settings, wired),
        )
        report = asyncio.run(run)
    finally:
        observer.close()
        if events_file is not None:
            events_file.close()
    _finish(report, fmt, output, fail_on, journaled=True)


def _flags(
    models: str | None,
    persona_ids: str | None,
    threshold: float | None,
    max_cost: float | None,
    max_tokens: int | None,
    no_verify: bool,
    sarif_paths: tuple[Path, ...],
) -> Flags:
    """The command line's choices over the configuration."""
    from consensus.app.local_review import Flags

    return Flags(
        models=tuple(split_list(models)) if models else None,
        personas=tuple(split_list(persona_ids)) if persona_ids else None,
        threshold=threshold,
        max_cost=max_cost,
        max_tokens=max_tokens,
        verify=not no_verify,
        sarif=tuple(str(path.resolve()) for path in sarif_paths),
    )


OPENED = "error: exit 3: the review is incomplete; the report's first lines say why and what to do"


def _finish(
    report: Report, fmt: str, output: Path | None, fail_on: str, *, journaled: bool
) -> NoReturn:
    """Print the report, say what an incomplete one needs, exit with the result's code."""
    from consensus.app.exit_codes import exit_code
    from consensus.model.flow_result import FlowResult

    log = logger()
    emit(report, fmt, output, log)
    if report.incomplete is not None:
        from consensus.render.text import format_cost

        spent = report.stats.tokens_in + report.stats.tokens_out
        log(f"run {report.run_id} spent {spent:,} tokens, {format_cost(report.stats.cost_usd)}")
    posted = [f.severity for f in report.findings if f.status.posted]
    # A report printed here opens with why it is incomplete: the last line only points at it.
    opened = output is None and fmt in ("text", "markdown")
    said = (lambda line: log(OPENED)) if opened else log
    code = exit_code(FlowResult.of(report, posted), fail_on=fail_on, log=said)
    if journaled:  # the last line names the run: replay and report take its id
        log(
            f"run {report.run_id}: `consensus replay {report.run_id}` re-derives it, "
            f"`consensus report {report.run_id}` shows how it decided"
        )
    sys.exit(code)


def _dry_run(
    job: ReviewJob, wired: Services, root: Path, fmt: str, output: Path | None, log: Log
) -> bool:
    """Plan the review and print it with its cost: no provider is called. True when the
    real run could end as a complete consensus review."""
    from consensus.app.wiring import model_price
    from consensus.render.dry_run import render_dry_run_json, render_dry_run_text
    from consensus.review.dry_run_text import plan_dry_run

    plan = plan_dry_run(
        job.diff,
        providers=job.providers,
        personas=job.personas,
        unavailable=job.unavailable,
        counter=wired.counter,
        prices={p.model: model_price(p.model) for p in job.providers},
        default_window=job.settings.default_context_window,
        budget=job.settings.budget,
    ).needing(job.settings.min_providers)
    plan = plan.with_analyzers(wired.analyzer_checks(job.settings, root))
    rendered = render_dry_run_json(plan) if fmt == "json" else render_dry_run_text(plan)
    if output is None:
        click.echo(rendered, nl=False)
    else:
        output.write_text(rendered, encoding="utf-8")
        log(f"plan written to {output}")
    if plan.advisory is not None and (output is not None or fmt == "json"):
        log(plan.advisory)  # where a person sees it, whatever the format
    return plan.would_finish
