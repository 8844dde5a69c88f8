"""`consensus review`: the diff of a branch, a file or stdin, reviewed by the configured panel."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from consensus.cli.options import (
    SEVERITIES,
    emit,
    exit_code,
    handles_errors,
    load_config_at,
    logger,
    override,
    progress_observer,
    providers_for,
    repo_root,
    report_options,
)
from consensus.errors import UsageError

if TYPE_CHECKING:
    pass


@click.command()
@click.option("--base", help="Base ref; the diff is taken from its merge-base (default: main).")
@click.option("--head", help="Head ref (default: the working tree, uncommitted changes included).")
@click.option("--diff", "diff_path", help="Read a unified diff from a file, or '-' for stdin.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@report_options
@click.option("--models", help="Comma-separated litellm models, replacing the configured ones.")
@click.option("--personas", "persona_ids", help="Comma-separated persona ids.")
@click.option("--threshold", type=click.FloatRange(0.01, 1.0), help="Agreement needed (0.75).")
@click.option("--max-cost", type=click.FloatRange(0.0), help="Budget in US dollars.")
@click.option("--no-verify", is_flag=True, help="Skip verification of disputed findings.")
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
    no_verify: bool,
    fail_on: str,
    resume_id: str | None,
    fresh: bool,
    events_path: Path | None,
) -> None:
    """Review a diff with several models and report what they agree on.

    Every call is kept in a journal ($CONSENSUS_HOME): a run that was killed or stopped by
    its budget continues where it stopped when run again, without paying twice.
    """
    import asyncio

    from consensus.app.events import EventLog
    from consensus.app.runner import run_review
    from consensus.app.wiring import (
        gitattributes,
        guidelines_source,
        local_source,
        model_client,
        open_journal,
        token_counter,
        unavailable_providers,
    )
    from consensus.ingest.chunking import split_large_hunks
    from consensus.ingest.review_diff import ingest
    from consensus.review.guidelines import collect_guidelines
    from consensus.review.job import ReviewJob
    from consensus.settings.config import duplicate_model_warnings
    from consensus.settings.personas import load_personas, select_personas

    if resume_id and fresh:
        raise UsageError("--resume and --fresh contradict each other", fix="use one of them")

    root = repo_root()
    loaded = load_config_at(config_path, root)
    settings = override(loaded.settings, persona_ids, threshold, max_cost)
    raw = _read_diff(root, diff_path, base, head)
    diff = split_large_hunks(
        ingest(
            raw,
            include=settings.paths,
            exclude=settings.exclude,
            redact_patterns=settings.redact,
            gitattributes=gitattributes(root),
        )
    )
    log = logger()
    if not diff.files:
        skipped = f" ({len(diff.skipped)} files skipped: see --format json)" if diff.skipped else ""
        log(f"Nothing to review: the diff has no reviewable changes{skipped}.")
        return
    providers = providers_for(settings, models)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = unavailable_providers(providers, os.environ)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    personas = select_personas(
        load_personas([root / d for d in settings.persona_dirs]),
        settings.personas,
        source="--personas" if persona_ids else loaded.source,
    )
    if diff.redactions:
        count = len(diff.redactions)
        log(f"redacted {count} secret{'s' if count > 1 else ''} before review (see the report)")
    job = ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(personas),
        unavailable=unavailable,
        verify=not no_verify,
        label=_label(root, diff_path, base, head),
        guidelines=collect_guidelines(
            guidelines_source(root, base, from_diff_file=diff_path is not None).read,
            settings.context,
            settings.redact,
        ),
    )
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    observer = progress_observer()
    events_file = events_path.open("a", encoding="utf-8") if events_path else None
    try:
        report = asyncio.run(
            run_review(
                job,
                journal=journal,
                client=model_client(os.environ),
                counter=token_counter(),
                source=local_source(root, head, from_diff_file=diff_path is not None),
                observers=[observer],
                events=EventLog(events_file) if events_file else None,
                fresh=fresh,
                resume=resume_id,
                log=log,
            )
        )
    finally:
        observer.close()
        journal.close()
        if events_file is not None:
            events_file.close()
    emit(report, fmt, output, log)
    if report.budget_exhausted:
        log(
            f"budget reached: spent ${report.stats.cost_usd:.4f} and "
            f"{report.stats.tokens_in + report.stats.tokens_out:,} tokens; the review is "
            f"incomplete. Run again with a higher --max-cost (or budget in .consensus.yml) "
            f"to continue run {report.run_id} without paying again for finished calls."
        )
    sys.exit(exit_code(report, fail_on))


def _read_diff(root: Path, diff_path: str | None, base: str | None, head: str | None) -> bytes:
    from consensus.app.wiring import branch_diff

    if diff_path is not None:
        if base or head:
            raise UsageError(
                "--diff cannot be combined with --base/--head", fix="use one or the other"
            )
        if diff_path == "-":
            return sys.stdin.buffer.read()
        path = Path(diff_path)
        if not path.is_file():
            raise UsageError(f"--diff {diff_path}: no such file")
        return path.read_bytes()
    return branch_diff(root, base, head)


def _label(root: Path, diff_path: str | None, base: str | None, head: str | None) -> str:
    """What a run reviewed, in words, for `consensus runs`."""
    if diff_path is not None:
        return "diff from stdin" if diff_path == "-" else f"diff {diff_path}"
    where = root.name
    return f"{where}: {base or 'default base'}...{head or 'working tree'}"
