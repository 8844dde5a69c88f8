"""Money per pull request: what all runs on one PR spent, and when automatic reviews stop.

Pure. The summary comment's state keeps the cumulative spend of every run on the PR
(`Spent`); `budget.max_cost_usd_per_pr` (default: 5 × the run's cost cap) stops further
automatic reviews (`pull_request` events) once reached, with one comment that says so and
what a maintainer can do; `/consensus review` still runs, on purpose.
"""

from __future__ import annotations

from consensus.model.report import Report
from consensus.publish.state import Spent

SPEND_MARKER = "<!-- consensus:pr-budget -->"


def spent_after(spent: Spent | None, report: Report) -> Spent:
    """The PR's spend with this run's added (a run whose cost is unknown adds its tokens)."""
    before = spent or Spent()
    stats = report.stats
    if not stats.calls:
        return before
    return Spent(
        cost_usd=round(before.cost_usd + (stats.cost_usd or 0.0), 6),
        tokens=before.tokens + stats.tokens_in + stats.tokens_out,
        runs=before.runs + 1,
        unpriced_runs=before.unpriced_runs + (stats.cost_usd is None),
    )


def over_pr_cap(spent: Spent | None, cap: float | None) -> bool:
    """Whether automatic reviews of this PR must stop: its runs reached the per-PR cap."""
    return cap is not None and spent is not None and spent.cost_usd >= cap


def spend_text(spent: Spent | None) -> str:
    """ "$1.23 on this PR over 4 runs", saying where a run's cost is unknown."""
    if spent is None or not spent.runs:
        return "nothing spent on this PR yet"
    runs = f"{spent.runs} run{'s' if spent.runs != 1 else ''}"
    unknown = (
        f" (+ unknown for {spent.unpriced_runs} run{'s' if spent.unpriced_runs != 1 else ''}"
        " with unpriced models)"
        if spent.unpriced_runs
        else ""
    )
    return f"${spent.cost_usd:.2f}{unknown} on this PR over {runs}"


def cap_comment(spent: Spent, cap: float, head_sha: str) -> str:
    """The one comment that says automatic reviews of this PR stopped, and what to do."""
    return "\n".join(
        [
            SPEND_MARKER,
            "**consensus: automatic reviews of this pull request are stopped.** Its runs have "
            f"spent {spend_text(spent)}, which reached the per-PR budget "
            f"(`budget.max_cost_usd_per_pr`: ${cap:.2f}).",
            "",
            f"Head `{head_sha[:12]}` was not reviewed. A maintainer can run one review now "
            "with `/consensus review`, or raise `budget.max_cost_usd_per_pr` in "
            "`.consensus.yml` on the base branch.",
        ]
    )
