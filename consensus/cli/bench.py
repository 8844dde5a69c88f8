"""`consensus bench`: precision and recall on pull requests with known defects."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from consensus.cli.options import (
    handles_errors,
    load_config_at,
    logger,
    override,
    providers_for,
    repo_root,
)
from consensus.errors import UsageError

if TYPE_CHECKING:
    from consensus.app.bench import BenchPanel


@click.command()
@click.option(
    "--suite",
    "suite_spec",
    required=True,
    help="martian-offline (Martian's Code Review Bench, downloaded) or a JSONL suite file.",
)
@click.option("--judge", "judge_model", required=True, help="litellm model that judges matches.")
@click.option("--judge-api-base", help="The judge's endpoint (default: the provider's own).")
@click.option("--judge-key-env", help="Environment variable holding the judge's API key.")
@click.option("--limit", type=click.IntRange(1), help="Only the first N pull requests.")
@click.option("--dry-run", is_flag=True, help="Print calls, tokens and cost; call no model.")
@click.option(
    "--output",
    "output_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("consensus-bench"),
    show_default=True,
    help="Directory for bench.md, bench.json, bench.html, labels.jsonl, votes.jsonl.",
)
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@click.option("--models", help="Comma-separated litellm models, replacing the configured ones.")
@click.option("--personas", "persona_ids", help="Comma-separated persona ids.")
@handles_errors
def bench(
    suite_spec: str,
    judge_model: str,
    judge_api_base: str | None,
    judge_key_env: str | None,
    limit: int | None,
    dry_run: bool,
    output_dir: Path,
    config_path: Path | None,
    models: str | None,
    persona_ids: str | None,
) -> None:
    """Review a suite of real pull requests with known defects and score the findings.

    Each PR is reviewed by the configured panel (as `consensus review` would), by each
    provider alone and without verification; an LLM judge (--judge) matches every finding
    to the PR's golden comments. Prints precision, recall and F1 with 95% intervals, and
    writes them with every judgement to --output. Every call is journaled: an interrupted
    bench continues where it stopped, and running it again re-scores without model calls.
    Reads GITHUB_TOKEN (needed for GitHub's rate limits: about two requests per PR) and
    GITHUB_API_URL.
    """
    import asyncio

    from consensus.app.bench import BenchServices, run_bench, write_outputs
    from consensus.app.bench_plan import plan_bench
    from consensus.app.bench_source import load_suite_spec
    from consensus.app.wiring import (
        BenchHosts,
        consensus_home,
        model_client,
        model_price,
        open_journal,
        token_counter,
        unavailable_providers,
    )
    from consensus.bench.estimate import render_estimate
    from consensus.bench.tables import render_markdown

    panel = _panel(config_path, models, persona_ids, judge_model, judge_api_base, judge_key_env)
    missing = unavailable_providers((panel.judge,), os.environ)
    if missing and not dry_run:
        raise UsageError(f"the judge {judge_model} cannot be called: {missing[judge_model]}")
    log = logger()
    hosts = BenchHosts(os.environ, log=log)
    journal = open_journal(os.environ, warn=lambda line: log(f"warning: {line}"))
    home = consensus_home(os.environ)
    try:
        services = BenchServices(
            client=model_client(os.environ),
            counter=token_counter(),
            journal=journal,
            pulls=hosts.pulls,
            sources=hosts.source,
            home=home,
            log=log,
        )
        loaded = load_suite_spec(
            suite_spec, open_data=hosts.data, home=home, judge=judge_model, log=log
        )
        loaded = replace(loaded, suite=loaded.suite.limited(limit))
        if dry_run:
            estimate = plan_bench(loaded, panel, services, model_price, fetch=True)
            click.echo(render_estimate(estimate), nl=False)
            return
        reviewers = [p for p in panel.providers if p.model not in panel.unavailable]
        if not reviewers:
            raise UsageError("no provider of the panel can be called", fix="set their API keys")
        outcome = asyncio.run(run_bench(loaded, panel, services))
    finally:
        journal.close()
        hosts.close()
    written = write_outputs(outcome, output_dir)
    click.echo(render_markdown(outcome.result))
    log("written: " + ", ".join(str(p) for p in written))
    incomplete = [r.pr for r in outcome.result.runs if r.incomplete]
    if incomplete:
        log(f"{len(incomplete)} review(s) incomplete (budget or quorum): {', '.join(incomplete)}")
    sys.exit(0)


def _panel(
    config_path: Path | None,
    models: str | None,
    persona_ids: str | None,
    judge_model: str,
    judge_api_base: str | None,
    judge_key_env: str | None,
) -> BenchPanel:
    """The reviewers as configured (the file, then --models and --personas), and the judge:
    a configured provider of that model, else the model with the endpoint and key given.
    `unavailable` names each reviewer whose key is missing."""
    from consensus.app.bench import BenchPanel
    from consensus.app.wiring import unavailable_providers
    from consensus.settings.config import ProviderSettings
    from consensus.settings.personas import load_personas, select_personas

    root = repo_root()
    loaded_config = load_config_at(config_path, root)
    settings = override(loaded_config.settings, persona_ids, None, None)
    providers = providers_for(settings, models)
    personas = select_personas(
        load_personas([root / d for d in settings.persona_dirs]),
        settings.personas,
        source="--personas" if persona_ids else loaded_config.source,
    )
    configured = {p.model: p for p in providers}.get(judge_model)
    judge = ProviderSettings(
        model=judge_model,
        api_base=judge_api_base or (configured.api_base if configured else None),
        api_key_env=judge_key_env or (configured.api_key_env if configured else None),
    )
    unavailable = unavailable_providers(providers, os.environ)
    return BenchPanel(
        settings=settings,
        providers=providers,
        personas=tuple(personas),
        unavailable=unavailable,
        judge=configured if configured and not (judge_api_base or judge_key_env) else judge,
    )
