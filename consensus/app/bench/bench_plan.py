"""`consensus bench --dry-run`: each PR planned as `consensus review --dry-run` plans it,
from its diff when it can be had without a model (inline, cached, or read from GitHub),
else from the assumptions bench/estimate.py states."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from consensus.app.bench.bench import BenchPanel, BenchServices, review_job
from consensus.app.bench.bench_source import LoadedSuite, pull_source
from consensus.bench.estimate import BenchEstimate, PRPlan, assumed_plan, judge_plan
from consensus.errors import GitHubError
from consensus.ports import ModelPrice
from consensus.review.dry_run_text import OUTPUT_TOKENS_PER_CALL, plan_dry_run
from consensus.review.prompt import template


def plan_bench(
    loaded: LoadedSuite,
    panel: BenchPanel,
    services: BenchServices,
    price: Callable[[str], ModelPrice | None],
    *,
    fetch: bool,
) -> BenchEstimate:
    """What the bench will send and what it will cost; no model is called."""
    unavailable = services.core.keys.unavailable(panel.providers)
    prices: Mapping[str, ModelPrice | None] = {p.model: price(p.model) for p in panel.providers}
    planned = [p for p in panel.providers if p.model not in unavailable]
    pairs: list[tuple[float, float] | None] = []
    for provider in planned:
        known = prices[provider.model]
        pairs.append((known.input_per_token, known.output_per_token) if known else None)
    plans = []
    for pr in loaded.suite.prs:
        try:
            source = pull_source(pr, open_pulls=services.pulls, home=services.home, fetch=fetch)
        except GitHubError as exc:
            services.log(f"{pr.key}: diff not read ({exc.message}); estimating the rest")
            fetch = False  # GitHub is not answering: cached diffs and assumptions from here
            source = None
        if source is None:
            plans.append(
                assumed_plan(
                    pr.key,
                    calls_per_provider=len(panel.personas),
                    prices=pairs,
                    output_tokens=OUTPUT_TOKENS_PER_CALL,
                )
            )
            continue
        job = review_job(pr, source.diff, panel, services.core)
        plan = plan_dry_run(
            job.diff,
            providers=panel.providers,
            personas=panel.personas,
            unavailable=unavailable,
            counter=services.core.counter,
            prices=prices,
            default_window=panel.settings.default_context_window,
        )
        plans.append(
            PRPlan(
                pr=pr.key,
                calls=plan.calls,
                prompt_tokens=plan.prompt_tokens,
                cost_usd=plan.cost_usd,
                max_cost_usd=plan.max_cost_usd,
                assumed=False,
            )
        )
    judge = panel.judge.model
    judge_price = price(judge)
    count = services.core.counter.count
    system = count(judge, template("bench/judge_system.j2").render(nonce="0" * 12))
    judged = [pr for pr in loaded.suite.prs if pr.goldens]  # a clean PR is not judged
    goldens = [count(judge, "\n".join(g.comment for g in pr.goldens)) for pr in judged]
    return BenchEstimate(
        suite=loaded.suite.name,
        prs=plans,
        judge=judge_plan(
            judge,
            goldens,
            system,
            (judge_price.input_per_token, judge_price.output_per_token) if judge_price else None,
        ),
        providers=[p.model for p in panel.providers],
        personas=[p.id for p in panel.personas],
        unavailable=dict(unavailable),
        clean_prs=len(loaded.suite.prs) - len(judged),
    )
