"""`consensus bench`: precision and recall on pull requests with known defects."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import click

from consensus.cli.options import handles_errors, logger, repo_root, split_list
from consensus.errors import UsageError


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
    Reads GITHUB_TOKEN (for GitHub's rate limits: a few requests a PR) and GITHUB_API_URL.
    """
    import asyncio

    from consensus.app.bench.bench import (
        BenchRequest,
        BenchServices,
        bench_panel,
        run_bench,
        write_outputs,
    )
    from consensus.app.bench.bench_plan import plan_bench
    from consensus.app.bench.bench_source import load_suite_spec
    from consensus.app.wiring import BenchHosts, consensus_home, model_price, services
    from consensus.bench.estimate import render_estimate
    from consensus.bench.tables import render_markdown

    log = logger()
    wired = services(os.environ, log=log)
    request = BenchRequest(
        root=repo_root(),
        config=config_path,
        models=tuple(split_list(models)) if models else None,
        personas=tuple(split_list(persona_ids)) if persona_ids else None,
        judge=judge_model,
        judge_api_base=judge_api_base,
        judge_key_env=judge_key_env,
    )
    panel = bench_panel(request, wired)
    if panel.judge_missing and not dry_run:
        raise UsageError(f"the judge {judge_model} cannot be called: {panel.judge_missing}")
    hosts = BenchHosts(os.environ, log=log)
    home = consensus_home(os.environ)
    bench_services = BenchServices(wired, hosts.pulls, hosts.source, home)
    try:
        loaded = load_suite_spec(
            suite_spec, open_data=hosts.pulls, home=home, judge=judge_model, log=log
        )
        loaded = replace(loaded, suite=loaded.suite.limited(limit))
        if dry_run:
            estimate = plan_bench(loaded, panel, bench_services, model_price, fetch=True)
            click.echo(render_estimate(estimate), nl=False)
            return
        if len(panel.unavailable) == len(panel.providers):
            raise UsageError("no provider of the panel can be called", fix="set their API keys")
        outcome = asyncio.run(run_bench(loaded, panel, bench_services))
    finally:
        hosts.close()
    written = write_outputs(outcome, output_dir)
    click.echo(render_markdown(outcome.result))
    log("written: " + ", ".join(str(p) for p in written))
    incomplete = [r.pr for r in outcome.result.runs if r.incomplete]
    if incomplete:
        log(f"{len(incomplete)} review(s) incomplete (budget or quorum): {', '.join(incomplete)}")
    sys.exit(0)
