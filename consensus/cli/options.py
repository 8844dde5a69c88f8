"""What the commands share: error handling, report options and output, config loading, logging."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from consensus.errors import ConsensusError, UsageError

if TYPE_CHECKING:
    from consensus.model.report import Report
    from consensus.settings.config import LoadedConfig


F = TypeVar("F", bound=Callable[..., Any])


SEVERITIES = ("none", "info", "low", "medium", "high", "critical")


def handles_errors(func: F) -> F:
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


def report_options(func: F) -> F:
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


def emit(report: Report, fmt: str, output: Path | None, log: Callable[[str], None]) -> None:
    from consensus.render import render

    rendered = render(report, fmt, color=fmt == "text" and output is None and is_tty(sys.stdout))
    if output is not None:
        output.write_text(rendered, encoding="utf-8")
        log(f"report written to {output}")
        return
    if fmt in ("text", "markdown") and in_actions_step():  # models' words reach the runner
        from consensus.action.log import inert

        rendered = inert(rendered)
    click.echo(rendered, nl=not rendered.endswith("\n"))


def in_actions_step() -> bool:
    """Running in a GitHub Actions step: the runner reads what we print for workflow
    commands (`::error::`, `::add-mask::`, …), and a finding's words are untrusted."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def repo_root() -> Path:
    from consensus.app.wiring import repo_root as top_directory

    return top_directory(Path.cwd())


def load_config_at(config_path: Path | None, root: Path) -> LoadedConfig:
    """The configuration, its calibration file (when it names one) read from `root`."""
    from consensus.settings.calibration_file import with_local_calibration
    from consensus.settings.config import load_config

    return with_local_calibration(load_config(config_path, root=root), root)


def split_list(value: str) -> list[str]:
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise UsageError(f"expected a comma-separated list, got {value!r}")
    return items


def is_tty(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")


def logger() -> Callable[[str], None]:
    if not in_actions_step():
        return lambda line: click.echo(f"consensus: {line}", err=True)
    from consensus.action.log import inert

    return lambda line: click.echo(f"consensus: {inert(line)}", err=True)


def progress_observer(priced: Callable[[str], bool]) -> Any:
    """A live bar on a terminal (its cost is unknown once a model `priced` denies answers),
    log lines elsewhere."""
    from consensus.app.progress import LogProgress, RichProgress

    return RichProgress(sys.stderr, priced) if is_tty(sys.stderr) else LogProgress(logger())
