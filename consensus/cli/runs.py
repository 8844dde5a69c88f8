"""The journal's commands: `replay`, `runs` and `report` (registered in consensus.cli.main)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from consensus.cli.options import emit, handles_errors, logger, report_options
from consensus.errors import UsageError


@click.command()
@click.argument("run_id")
@report_options
@handles_errors
def replay(run_id: str, fmt: str, output: Path | None) -> None:
    """Re-derive every decision of a run from its journal, calling no model."""
    import asyncio

    from consensus.app.journaled import replay_run
    from consensus.app.wiring import open_journal, planning_counter

    log = logger()
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    try:
        report = asyncio.run(
            replay_run(run_id, journal=journal, counter=planning_counter(os.environ))
        )
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
    click.echo(f"{'RUN':<16} {'WHEN':<16} {'STATUS':<10} {'COST':>9}  WHAT")
    for row in rows:
        when = datetime.datetime.fromtimestamp(row.created).strftime("%Y-%m-%d %H:%M")
        status = row.status if row.status != "running" else f"{row.phase}?"
        cost = "unknown" if row.cost_usd is None else f"${row.cost_usd:.4f}"
        click.echo(f"{row.run_id:<16} {when:<16} {status:<10} {cost:>9}  {row.label}")
    click.echo(f"\njournal: {path}")


@click.command()
@click.argument("run_id")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the page (default: reports/RUN_ID.html beside the journal).",
)
@handles_errors
def report(run_id: str, html_path: Path | None) -> None:
    """Show how a run decided: votes, verification, timeline, cost, as one HTML page."""
    from consensus.app.run_page import html_report
    from consensus.app.wiring import consensus_home, open_journal

    log = logger()
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    try:
        page = html_report(journal, run_id, warn=log)
    finally:
        journal.close()
    # Not in the working directory by default: a review of the working tree would read it.
    path = html_path or consensus_home(os.environ) / "reports" / f"{run_id}.html"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    log(f"HTML report of run {run_id} written to {path}")
