"""`consensus review`: the diff of a branch, a file or stdin, reviewed by the configured panel."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
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
    from consensus.model.diff import ReviewDiff
    from consensus.settings.config import ProviderSettings, Settings
    from consensus.settings.personas import Persona
    from consensus.settings.workflows import Workflow


@click.command()
@click.option("--base", help="Base ref; the diff is taken from its merge-base (default: main).")
@click.option("--head", help="Head ref (default: the working tree, uncommitted changes included).")
@click.option("--diff", "diff_path", help="Read a unified diff from a file, or '-' for stdin.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@report_options
@click.option("--models", help="Comma-separated litellm models, replacing the configured ones.")
@click.option("--personas", "persona_ids", help="Comma-separated persona ids.")
@click.option("--threshold", type=click.FloatRange(0.01, 1.0), help="Agreement needed (0.75).")
@click.option("--max-cost", type=click.FloatRange(0.0), help="Cost cap of the run, US dollars.")
@click.option("--max-tokens", type=click.IntRange(0), help="Token cap of the run.")
@click.option("--no-verify", is_flag=True, help="Skip verification of disputed findings.")
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
    from consensus.review.pipeline import nothing_to_review, run_id_for
    from consensus.settings.config import duplicate_model_warnings
    from consensus.settings.personas import load_personas, select_personas
    from consensus.settings.workflows import VerifyMode, narrow_providers, narrow_settings

    if resume_id and fresh:
        raise UsageError("--resume and --fresh contradict each other", fix="use one of them")
    if dry_run and fmt not in ("text", "json"):
        raise UsageError("--dry-run prints its plan as text or json", fix="use --format json")

    root = repo_root()
    loaded = load_config_at(config_path, root)
    workflow = load_workflow_at(root, workflow_name) if workflow_name else None
    settings = narrow_settings(workflow, loaded.settings) if workflow else loaded.settings
    settings = override(settings, persona_ids, threshold, max_cost, max_tokens)
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
    if not diff.files and not dry_run:
        count = len(diff.skipped)
        log(f"Nothing to review: no changed file can be sent to a model ({count} skipped).")
        run_id = run_id_for(diff, settings, (), workflow)
        report = nothing_to_review(diff, settings=settings, run_id=run_id, workflow=workflow)
        emit(report, fmt, output, log)
        sys.exit(exit_code(report, fail_on))
    providers = providers_for(settings, models)
    if workflow is not None:
        settings, providers = narrow_providers(workflow, settings, providers)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = unavailable_providers(providers, os.environ)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    personas = select_personas(
        load_personas([root / d for d in settings.persona_dirs]),
        settings.personas,
        source="--personas"
        if persona_ids
        else workflow.path
        if workflow and workflow.personas
        else loaded.source,
    )
    if dry_run:
        _dry_run(diff, settings, providers, personas, unavailable, fmt, output, log)
        return
    if diff.redactions:
        count = len(diff.redactions)
        log(f"redacted {count} secret{'s' if count > 1 else ''} before review (see the report)")
    job = ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(personas),
        unavailable=unavailable,
        verify=not no_verify and (workflow is None or workflow.verify is not VerifyMode.NONE),
        label=_label(root, diff_path, base, head)
        + (f" (workflow {workflow.name})" if workflow else ""),
        workflow=workflow,
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
    if report.incomplete is not None:
        from consensus.render.text import format_cost

        spent = report.stats.tokens_in + report.stats.tokens_out
        log(f"{report.incomplete.headline} {report.incomplete.fix}")
        log(f"run {report.run_id} spent {spent:,} tokens, {format_cost(report.stats.cost_usd)}")
    sys.exit(exit_code(report, fail_on))


def _dry_run(
    diff: ReviewDiff,
    settings: Settings,
    providers: tuple[ProviderSettings, ...],
    personas: list[Persona],
    unavailable: dict[str, str],
    fmt: str,
    output: Path | None,
    log: Callable[[str], None],
) -> None:
    """Plan the review and print it with its cost: no provider is called."""
    from consensus.app.wiring import model_price, token_counter
    from consensus.render.dry_run import render_dry_run_json, render_dry_run_text
    from consensus.review.dry_run import plan_dry_run

    plan = plan_dry_run(
        diff,
        providers=providers,
        personas=personas,
        unavailable=unavailable,
        counter=token_counter(),
        prices={p.model: model_price(p.model) for p in providers},
        default_window=settings.default_context_window,
        budget=settings.budget,
    )
    rendered = render_dry_run_json(plan) if fmt == "json" else render_dry_run_text(plan)
    if output is None:
        click.echo(rendered, nl=False)
        return
    output.write_text(rendered, encoding="utf-8")
    log(f"plan written to {output}")


def load_workflow_at(root: Path, name: str) -> Workflow:
    """The workflow NAME of the repository at `root`; a ConfigError naming what is there."""
    from consensus.settings.workflows import (
        WORKFLOW_DIR,
        check_name,
        load_workflow_file,
        reserved_names,
        unknown_workflow,
        workflow_files,
    )

    check_name(name, path="--workflow")  # a name, never a path
    directory = root / WORKFLOW_DIR
    path = directory / f"{name}.md"
    if not path.is_file():
        known = [p.stem for p in workflow_files(directory)]
        raise unknown_workflow(name, known, where=f"--workflow {name}")
    return load_workflow_file(path, reserved=reserved_names(), shown=str(path.relative_to(root)))


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
