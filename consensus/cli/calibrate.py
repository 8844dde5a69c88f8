"""`consensus calibrate --labels FILE`: each provider's TPR/TNR as a judge, with 95%
intervals and the calls it cost, written as the calibration weighed votes use."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from consensus.cli.options import handles_errors, load_config_at, logger, repo_root, split_list
from consensus.errors import ReviewImpossible, UsageError

DEFAULT_OUTPUT = Path(".consensus") / "calibration.yml"


@click.command()
@click.option(
    "--labels", "labels_path", required=True, type=click.Path(path_type=Path),
    help="JSONL file of labelled findings (docs/calibration.md).",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Print the plan and its cost; call nobody.")
@click.option(
    "--output", type=click.Path(path_type=Path),
    help=f"Where to write the calibration (default: {DEFAULT_OUTPUT} at the repository root).",
)  # fmt: skip
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@click.option("--models", help="Comma-separated litellm models to calibrate instead.")
@handles_errors
def calibrate(
    labels_path: Path,
    dry_run: bool,
    output: Path | None,
    config_path: Path | None,
    models: str | None,
) -> None:
    """Measure each provider as a judge on labelled findings; write the calibration."""
    import asyncio

    import yaml

    from consensus.app.bench.judge_rates import calibrate as run_calibration
    from consensus.app.bench.judge_rates import calibration_yaml, plan, prepared, read_labels
    from consensus.app.local_review import providers_for
    from consensus.app.wiring import model_price, services
    from consensus.model.calibration import Calibration

    if not labels_path.is_file():
        raise UsageError(f"{labels_path}: no such file", fix="pass --labels FILE (JSONL)")
    root = repo_root()
    settings = load_config_at(config_path, root).settings
    source = str(labels_path)
    labelled = prepared(read_labels(labels_path.read_text("utf-8"), source=source), settings,
                        source)  # fmt: skip
    log = logger()
    wired = services(os.environ, log=log)
    providers = providers_for(settings, tuple(split_list(models)) if models else None, wired)
    unavailable = wired.keys.unavailable(providers)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    panel = [p for p in providers if p.model not in unavailable]
    if not panel:
        raise ReviewImpossible("no provider can be called", fix="set a provider's key")
    the_plan = plan(labelled, panel, wired.counter, {p.model: model_price(p.model) for p in panel})
    click.echo(
        f"{the_plan.claims} labelled findings ({the_plan.real} real, "
        f"{the_plan.claims - the_plan.real} false) × {len(panel)} "
        f"provider{'s' if len(panel) != 1 else ''} = "
        f"{the_plan.calls} calls, about {_dollars(the_plan.cost_usd)}"
    )
    for p in the_plan.providers:
        click.echo(f"  {p.model} (family {p.family}): {p.calls} calls, "
                   f"{p.tokens_in:,} tokens in, {_dollars(p.cost_usd)}")  # fmt: skip
    if dry_run:
        return
    target = output or root / DEFAULT_OUTPUT
    earlier = None
    if target.is_file():
        earlier = Calibration.model_validate(yaml.safe_load(target.read_text("utf-8")))
    run = asyncio.run(run_calibration(labelled, panel, settings, wired, earlier))
    for result in run.results:
        c = result.counts
        failed = f", {result.failed} failed" if result.failed else ""
        click.echo(
            f"{result.model} (family {result.family}): TPR {c.tpr} · TNR {c.tnr} · "
            f"{result.usage.calls} calls{failed}, {_dollars(result.usage.cost_usd)}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(calibration_yaml(run.calibration), encoding="utf-8")
    click.echo(f"calibration written to {target} (run {run.run_id})")
    if run.note:
        click.echo(f"incomplete: {run.note}; the calibration counts only what was judged")
        sys.exit(ReviewImpossible.exit_code)


def _dollars(cost: float | None) -> str:
    return "an unknown cost (no price known)" if cost is None else f"${cost:.4f}"
