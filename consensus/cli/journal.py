"""The journal's commands: `replay`, `runs` and `report` (registered in consensus.cli.main)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from consensus.cli.options import emit, handles_errors, logger, report_options
from consensus.errors import JournalError, UsageError


@click.command()
@click.argument("run_id")
@report_options
@handles_errors
def replay(run_id: str, fmt: str, output: Path | None) -> None:
    """Re-derive every decision of a run from its journal, calling no model."""
    import asyncio

    from consensus.app.runner import replay_run
    from consensus.app.wiring import open_journal, token_counter

    log = logger()
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    try:
        report = asyncio.run(replay_run(run_id, journal=journal, counter=token_counter()))
    finally:
        journal.close()
    emit(report, fmt, output, log)


@click.command()
@click.option("--limit", default=20, show_default=True, help="How many runs to list.")
@handles_errors
def runs(limit: int) -> None:
    """List recent runs in the journal."""
    import datetime

    from consensus.app.wiring import open_journal

    log = logger()
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    try:
        rows = journal.runs(limit)
        path = journal.path
    finally:
        journal.close()
    if not rows:
        click.echo(f"No runs in {path} yet.")
        return
    click.echo(f"{'RUN':<16} {'WHEN':<16} {'STATUS':<8} {'COST':>9}  WHAT")
    for row in rows:
        when = datetime.datetime.fromtimestamp(row.created).strftime("%Y-%m-%d %H:%M")
        status = row.status if row.status != "running" else f"{row.phase}?"
        cost = "unknown" if row.cost_usd is None else f"${row.cost_usd:.4f}"
        click.echo(f"{row.run_id:<16} {when:<16} {status:<8} {cost:>9}  {row.label}")
    click.echo(f"\njournal: {path}")


@click.command()
@click.argument("run_id")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Write the run report here: one self-contained HTML file.",
)
@handles_errors
def report(run_id: str, html_path: Path) -> None:
    """Show how a run decided: votes, verification, timeline, cost, as one HTML page."""
    from consensus.app.wiring import open_journal
    from consensus.model.report import Report
    from consensus.render.html import render_html
    from consensus.review.job import ReviewJob

    log = logger()
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    try:
        row = journal.run(run_id)
        if row is None:
            raise JournalError(
                f"no run {run_id} in the journal {journal.path}",
                fix="`consensus runs` lists the runs it holds",
            )
        final = journal.report(run_id)
        if final is None:
            raise JournalError(
                f"run {run_id} has no final report yet (it stopped in phase {row.phase!r})",
                fix="run the same review again (or `consensus review --resume "
                f"{run_id}`) to finish it, then ask for its report",
            )
        calls, phases = journal.calls(run_id), journal.phases(run_id)
        inputs = journal.inputs(run_id)
    finally:
        journal.close()
    try:
        job: ReviewJob | None = ReviewJob.from_json(inputs)
    except (ValueError, KeyError) as exc:  # inputs of an older version: report without them
        log(f"warning: the inputs of run {run_id} could not be read ({exc}); labels omitted")
        job = None
    page = render_html(Report.model_validate_json(final), calls, phases, job)
    try:
        html_path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {html_path}: {exc.strerror}") from exc
    log(f"HTML report of run {run_id} written to {html_path}")
