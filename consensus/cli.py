"""The `consensus` command line: wires the adapters and maps errors to exit codes.

Exit codes: 0 done; 1 findings at or above --fail-on; 2 usage or configuration error;
3 review impossible (no provider answered, quorum not met, budget gone first).
Heavy modules (litellm, the pipeline) are imported inside the commands that need them,
so `consensus --help` answers at once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from consensus import __version__
from consensus.errors import ConsensusError, ReviewImpossible, UsageError
from consensus.model_adapters import model_client, needed_keys, token_counter

if TYPE_CHECKING:
    from consensus.config import LoadedConfig, ProviderSettings, Settings
    from consensus.models import Report
    from consensus.ports import SourceReader

F = TypeVar("F", bound=Callable[..., Any])

SEVERITIES = ("none", "info", "low", "medium", "high", "critical")


def _handles_errors(func: F) -> F:
    """Turn ConsensusError into its message and exit code; nothing else is caught here."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ConsensusError as exc:
            click.echo(f"consensus: error: {exc}", err=True)
            sys.exit(exc.exit_code)

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper  # type: ignore[return-value]


def _report_options(func: F) -> F:
    """--format and --output, shared by every command that prints a report."""
    func = click.option("--output", type=click.Path(path_type=Path), help="Write the report here.")(
        func
    )
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json", "markdown", "sarif"]),
        default="text",
        show_default=True,
    )(func)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="consensus")
def cli() -> None:
    """Multi-model consensus review: only what several independent models agree on."""


@cli.command()
@click.option("--base", help="Base ref; the diff is taken from its merge-base (default: main).")
@click.option("--head", help="Head ref (default: the working tree, uncommitted changes included).")
@click.option("--diff", "diff_path", help="Read a unified diff from a file, or '-' for stdin.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@_report_options
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
@_handles_errors
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

    from consensus.chunking import split_large_hunks
    from consensus.config import duplicate_model_warnings, unavailable_providers
    from consensus.events import EventLog
    from consensus.ingest import ingest
    from consensus.personas import load_personas, select_personas
    from consensus.runner import ReviewJob, open_journal, run_review

    if resume_id and fresh:
        raise UsageError("--resume and --fresh contradict each other", fix="use one of them")

    root = _repo_root()
    loaded = _load(config_path, root)
    settings = _override(loaded.settings, persona_ids, threshold, max_cost)
    raw = _read_diff(root, diff_path, base, head)
    diff = split_large_hunks(
        ingest(
            raw,
            include=settings.paths,
            exclude=settings.exclude,
            redact_patterns=settings.redact,
            gitattributes=_gitattributes(root),
        )
    )
    log = _logger()
    if not diff.files:
        skipped = f" ({len(diff.skipped)} files skipped: see --format json)" if diff.skipped else ""
        log(f"Nothing to review: the diff has no reviewable changes{skipped}.")
        return
    providers = _providers(settings, models)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = unavailable_providers(providers, os.environ, needed_keys)
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
    )
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    observer = _observer()
    events_file = events_path.open("a", encoding="utf-8") if events_path else None
    try:
        report = asyncio.run(
            run_review(
                job,
                journal=journal,
                client=model_client(os.environ),
                counter=token_counter(),
                source=_source(root, head, diff_path),
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
    _emit(report, fmt, output, log)
    if report.budget_exhausted:
        log(
            f"budget reached: spent ${report.stats.cost_usd:.4f} and "
            f"{report.stats.tokens_in + report.stats.tokens_out:,} tokens; the review is "
            f"incomplete. Run again with a higher --max-cost (or budget in .consensus.yml) "
            f"to continue run {report.run_id} without paying again for finished calls."
        )
    sys.exit(exit_code(report, fail_on))


def _emit(report: Report, fmt: str, output: Path | None, log: Callable[[str], None]) -> None:
    from consensus.render import render

    rendered = render(report, fmt, color=fmt == "text" and output is None and _tty(sys.stdout))
    if output is not None:
        output.write_text(rendered, encoding="utf-8")
        log(f"report written to {output}")
    else:
        click.echo(rendered, nl=not rendered.endswith("\n"))


def exit_code(report: Report, fail_on: str) -> int:
    """0, 1 (findings at or above fail_on) or 3 (no quorum, or the budget left the review
    incomplete: it must not look like a clean one)."""
    from consensus.models import Severity

    if not report.quorum.met or report.budget_exhausted:
        return ReviewImpossible.exit_code
    if fail_on == "none":
        return 0
    floor = Severity(fail_on)
    posted = [f for f in report.findings if f.status.posted]
    return 1 if any(f.severity.at_least(floor) for f in posted) else 0


@cli.command()
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@_handles_errors
def personas(config_path: Path | None) -> None:
    """List built-in and repository personas."""
    from consensus.personas import load_personas

    root = _repo_root()
    settings = _load(config_path, root).settings
    found = load_personas([root / d for d in settings.persona_dirs])
    width = max(len(p) for p in found)
    for pid in sorted(found):
        persona = found[pid]
        mark = "*" if pid in settings.personas else " "
        click.echo(f"{mark} {pid:<{width}}  {persona.title:<28}  {persona.source}")
    click.echo("\n* = used in reviews (the 'personas' key of .consensus.yml)")


@cli.command()
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@click.option("--models", help="Comma-separated litellm models to check instead.")
@_handles_errors
def doctor(config_path: Path | None, models: str | None) -> None:
    """Check config, keys and that each provider answers."""
    import asyncio

    from consensus.config import duplicate_model_warnings
    from consensus.doctor import check_providers

    root = _repo_root()
    loaded = _load(config_path, root)
    click.echo(f"config: {loaded.source}")
    providers = _providers(loaded.settings, models)
    for warning in duplicate_model_warnings(providers):
        click.echo(f"warning: {warning}")
    checks = asyncio.run(check_providers(providers, os.environ))
    answered = set()
    for check in checks:
        status = "ok  " if check.ok else "FAIL"
        click.echo(f"{status} {check.model} (family {check.family}): {check.detail}")
        if check.ok:
            answered.add(check.family)
    need = loaded.settings.min_providers
    click.echo(f"{len(answered)} provider families answered; reviews need {need}.")
    if len(answered) < need:
        sys.exit(ReviewImpossible.exit_code)


@cli.command()
@_handles_errors
def action() -> None:
    """Review and publish a pull request from a GitHub Actions step (reads GITHUB_*)."""
    from consensus.action import run

    sys.exit(run(os.environ, log=_logger()))


@cli.command()
@click.option("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY, else the origin remote).")
@click.option("--apply", "apply_", is_flag=True, help="Write labels, review requests, comments.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for scripts.")
@click.option(
    "--config",
    "config_name",
    default=".consensus.yml",
    show_default=True,
    help="Config file in the repository, read from its default branch.",
)
@_handles_errors
def queue(repo: str | None, apply_: bool, as_json: bool, config_name: str) -> None:
    """Show the agent-PR queue; --apply reconciles it on GitHub.

    Reads GITHUB_TOKEN and GITHUB_API_URL. Without --apply nothing is changed: the table
    shows where each agent PR stands and the changes --apply would make.
    """
    import datetime
    import json

    from consensus.queue_edge import github_host, reconcile, repo_from_remote
    from consensus.queue_plan import queue_json, render_queue_table

    name = repo or os.environ.get("GITHUB_REPOSITORY", "").strip() or repo_from_remote(Path.cwd())
    if not name or name.count("/") != 1:
        raise UsageError("which repository?", fix="pass --repo OWNER/NAME")
    if apply_ and not os.environ.get("GITHUB_TOKEN"):
        raise UsageError("--apply needs GITHUB_TOKEN", fix="export a token that can write PRs")
    log = _logger()
    interval = float(os.environ.get("CONSENSUS_POST_INTERVAL") or 1.0)
    host = github_host(os.environ, name, log, interval)
    viewer = host.viewer_login()  # a personal token writes as its user: those are ours too
    run = reconcile(
        host, apply=apply_, log=log, config=config_name, trusted=[viewer] if viewer else []
    )
    now = datetime.datetime.now(datetime.timezone.utc)
    if as_json:
        data = queue_json(run.view, run.changes, applied=apply_, now=now)
        click.echo(json.dumps({"repo": name, **data}, indent=2))
        return
    click.echo(render_queue_table(run.view, now))
    if apply_:
        click.echo(f"{run.applied} change(s) written.")
    elif run.changes:
        click.echo(f"\n--apply would make {len(run.changes)} change(s):")
        for change in run.changes:
            click.echo(f"  {change.describe()}")


# --------------------------------------------------------------------------- edges


def _repo_root() -> Path:
    from consensus.gitdiff import repo_root

    cwd = Path.cwd()
    return repo_root(cwd) or cwd


def _load(config_path: Path | None, root: Path) -> LoadedConfig:
    from consensus.config import load_config

    return load_config(config_path, root=root)


def _override(
    settings: Settings, persona_ids: str | None, threshold: float | None, max_cost: float | None
) -> Settings:
    update: dict[str, Any] = {}
    if persona_ids:
        update["personas"] = tuple(_split(persona_ids))
    if threshold is not None:
        update["threshold"] = threshold
    if max_cost is not None:
        update["budget"] = settings.budget.model_copy(update={"max_cost_usd": max_cost})
    return settings.model_copy(update=update)


def _providers(settings: Settings, models: str | None) -> tuple[ProviderSettings, ...]:
    from consensus.config import ProviderSettings, resolve_providers
    from consensus.discovery import ollama_models

    if models:
        return tuple(ProviderSettings(model=m) for m in _split(models))
    local = () if settings.providers else ollama_models(os.environ)
    return resolve_providers(settings, os.environ, ollama_models=local)


def _split(value: str) -> list[str]:
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise UsageError(f"expected a comma-separated list, got {value!r}")
    return items


def _read_diff(root: Path, diff_path: str | None, base: str | None, head: str | None) -> bytes:
    from consensus.gitdiff import default_base, git_diff

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
    return git_diff(root, base or default_base(root), head)


def _label(root: Path, diff_path: str | None, base: str | None, head: str | None) -> str:
    """What a run reviewed, in words, for `consensus runs`."""
    if diff_path is not None:
        return "diff from stdin" if diff_path == "-" else f"diff {diff_path}"
    where = root.name
    return f"{where}: {base or 'default base'}...{head or 'working tree'}"


def _source(root: Path, head: str | None, diff_path: str | None) -> SourceReader | None:
    """Where verifiers read the code around a finding: the head commit, or the working tree."""
    from consensus.sources import GitRevision, WorkingTree

    if head is not None:
        return GitRevision(root, head)
    return WorkingTree(root) if diff_path is None else None


def _gitattributes(root: Path) -> str:
    from consensus.gitdiff import read_gitattributes

    return read_gitattributes(root)


def _tty(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")


def _logger() -> Callable[[str], None]:
    return lambda line: click.echo(f"consensus: {line}", err=True)


def _observer() -> Any:
    from consensus.progress import LogProgress, RichProgress

    return RichProgress(sys.stderr) if _tty(sys.stderr) else LogProgress(sys.stderr)


# The journal's commands (replay, runs, report) live beside it; importing registers them.
from consensus import cli_journal  # noqa: E402, F401


def main() -> None:
    cli()
