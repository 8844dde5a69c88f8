"""The `consensus` command line: parse, ask app/wiring.py for services, call app/, map
outcomes (app/exit_codes.py) and errors to exit codes.

Exit codes: 0 done; 1 findings at or above --fail-on; 2 usage or configuration error;
3 review impossible (no provider answered, quorum not met, budget gone first).
Heavy modules (litellm, PyGithub, the pipeline) are imported inside the commands that
need them, so `consensus --help` answers at once.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import click

from consensus import __version__
from consensus.cli.bench import bench
from consensus.cli.calibrate import calibrate
from consensus.cli.config import config
from consensus.cli.demo import demo
from consensus.cli.options import handles_errors, load_config_at, logger, repo_root, split_list
from consensus.cli.review import review
from consensus.cli.runs import replay, report, runs
from consensus.errors import ReviewImpossible, UsageError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="consensus")
def cli() -> None:
    """Multi-model consensus review: only what several independent models agree on."""


@cli.command()
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@handles_errors
def personas(config_path: Path | None) -> None:
    """List built-in and repository personas."""
    from consensus.settings.personas import load_personas

    root = repo_root()
    settings = load_config_at(config_path, root).settings
    found = load_personas([root / d for d in settings.persona_dirs])
    width = max(len(p) for p in found)
    for pid in sorted(found):
        persona = found[pid]
        mark = "*" if pid in settings.personas else " "
        click.echo(f"{mark} {pid:<{width}}  {persona.title:<28}  {persona.source}")
    click.echo("\n* = used in reviews (the 'personas' key of .consensus.yml)")


@cli.command()
@handles_errors
def workflows() -> None:
    """List the repository's saved review workflows (.consensus/workflows/*.md)."""
    from consensus.settings.workflows import (
        WORKFLOW_DIR,
        describe,
        load_workflows,
        reserved_names,
    )

    root = repo_root()
    found = load_workflows(root / WORKFLOW_DIR, reserved=reserved_names(), root=root)
    if not found:
        click.echo(f"No saved review workflows: add one as {WORKFLOW_DIR}/<name>.md.")
        return
    rows = describe(found)
    name_width = max(len(name) for name, _, _ in rows)
    path_width = max(len(path) for _, path, _ in rows)
    for name, path, description in rows:
        click.echo(f"{name:<{name_width}}  {path:<{path_width}}  {description}")
    click.echo("\nRun one with `consensus review --workflow NAME`, or `/consensus NAME` on a PR.")


@cli.command()
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@click.option(
    "--models",
    help="Comma-separated models to check instead: configured ones keep their settings.",
)
@handles_errors
def doctor(config_path: Path | None, models: str | None) -> None:
    """Check config, keys and that each provider answers."""
    import asyncio

    from consensus.app.doctor import check_providers
    from consensus.app.local_review import providers_for
    from consensus.app.wiring import services
    from consensus.settings.config import duplicate_model_warnings

    root = repo_root()
    loaded = load_config_at(config_path, root)
    click.echo(f"config: {loaded.source}")
    wired = services(os.environ, log=logger(), attempts=1)
    listed = tuple(split_list(models)) if models else None
    providers = providers_for(loaded.settings, listed, wired)
    for warning in duplicate_model_warnings(providers):
        click.echo(f"warning: {warning}")
    checks = asyncio.run(check_providers(providers, wired))
    answered = set()
    for check in checks:
        status = "ok  " if check.ok else "FAIL"
        click.echo(f"{status} {check.named}: {check.detail}")
        if check.ok:
            answered.add(check.family)
    need = loaded.settings.min_providers
    families = "1 family" if len(answered) == 1 else f"{len(answered)} families"
    click.echo(f"{families} answered; reviews need {need}.")
    for analyzer in wired.analyzer_checks(loaded.settings, root):  # never a failure: a note
        status = "ok  " if analyzer.ready else "miss"
        later = "" if analyzer.ready else "; reviews go on without it"
        click.echo(f"{status} analyzer {analyzer.name}: {analyzer.detail}{later}")
    if len(answered) < need:
        sys.exit(ReviewImpossible.exit_code)


@cli.command()
@handles_errors
def action() -> None:
    """Review and publish a pull request from a GitHub Actions step (reads GITHUB_*)."""
    from consensus.action.log import ActionLog
    from consensus.action.main import main

    sys.exit(main(os.environ, ActionLog()))


@cli.command()
@handles_errors
def gitlab() -> None:
    """Review and publish a merge request from a GitLab CI job (reads CI_*), or answer the
    comment a pipeline trigger delivered (TRIGGER_PAYLOAD)."""
    from consensus.action.gitlab import main
    from consensus.action.gitlab_log import GitLabLog

    sys.exit(main(os.environ, GitLabLog()))


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
@handles_errors
def queue(repo: str | None, apply_: bool, as_json: bool, config_name: str) -> None:
    """Show the agent-PR queue; --apply reconciles it on GitHub.

    Reads GITHUB_TOKEN and GITHUB_API_URL. Without --apply nothing is changed: the table
    shows where each agent PR stands and the changes --apply would make.
    """
    import datetime
    import json

    from consensus.app.wiring import github_host, origin_repository
    from consensus.publish.thread import Identity
    from consensus.queue.reconcile import reconcile
    from consensus.queue.writes import queue_json, render_queue_table

    name = repo or os.environ.get("GITHUB_REPOSITORY", "").strip() or origin_repository(Path.cwd())
    if not name or name.count("/") != 1:
        raise UsageError("which repository?", fix="pass --repo OWNER/NAME")
    if not os.environ.get("GITHUB_TOKEN", "").strip():
        # Checked before any request: without a token GitHub's answers would be rate-limited
        # guesses, and an offline machine would spend its retries on DNS first.
        needs = "a token that can write pull requests" if apply_ else "a token that can read"
        raise UsageError(
            "GITHUB_TOKEN is not set",
            fix=f"export GITHUB_TOKEN with {needs} {name} (e.g. `gh auth token`)",
        )
    log = logger()
    interval = float(os.environ.get("CONSENSUS_POST_INTERVAL") or 1.0)
    host = github_host(os.environ, log=log, write_interval_s=interval, repo=name)
    try:
        # A personal token writes as its user; an App as the login configured for it.
        login = os.environ.get("CONSENSUS_TRUSTED_LOGIN", "")
        identity = Identity.of(host.viewer_login(), login)
        run = reconcile(host, apply=apply_, log=log, config=config_name, identity=identity)
    finally:
        host.close()
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


@cli.command()
@click.option(
    "--file",
    "path",
    type=click.Path(path_type=Path),
    help="The learnings file (default: .consensus/learned.yml in the repository).",
)
@handles_errors
def learned(path: Path | None) -> None:
    """What .consensus/learned.yml holds: counts and rates with 95% intervals."""
    from consensus.render.learned_tables import render_learned
    from consensus.settings.learned import LEARNED_PATH, parse_learned

    where = path or repo_root() / LEARNED_PATH
    if not where.is_file():
        raise UsageError(
            f"{where}: no learnings file",
            fix="the scheduled run of the Action writes it (docs/conversation.md)",
        )
    text = where.read_text(encoding="utf-8")
    click.echo(render_learned(parse_learned(text, source=str(where)), source=str(where)))


# --------------------------------------------------------------------------- edges


for command in (review, replay, runs, report, config, bench, calibrate, demo):
    cli.add_command(command)


def main() -> None:
    try:
        cli()
    except SystemExit as done:
        leave(done.code)
    leave(0)


def leave(code: str | int | None) -> None:
    """Exit with `code` as `sys.exit` would, but without the interpreter's teardown when
    nothing else is running: freeing what a command built costs more than it is worth at
    exit (two tokenizers' tables alone, about 0.15 s of a dry run's second). Our own files
    and connections are closed by then (the journal in a `finally`); the streams are
    flushed here. With another thread still alive, the ordinary exit waits for it."""
    if threading.active_count() > 1:
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`consensus runs | head -1`)
            status = status or 1
    os._exit(status)
