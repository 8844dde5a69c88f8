"""Money per pull request: what all runs on one PR spent, and when automatic reviews stop.

Pure. The summary comment's state keeps the cumulative spend of every run on the PR
(`Spent`). `budget.max_cost_usd_per_pr` (default `auto`: 5 × the run's cost cap) is a hard
cap on what automatic reviews (`pull_request` events) spend there together: a run may
spend at most what is left of it (`PrAllowance`), and once it is reached further automatic
reviews stop, with one comment that says so; `/consensus review` still runs, on purpose.
Where a model has no known price the dollars cannot be counted, and the cap falls back to
tokens: 5 × the run's token cap.
"""

from __future__ import annotations

from pydantic import Field

from consensus.model.base import Frozen
from consensus.model.host import HostWords
from consensus.model.report import Report
from consensus.review.budget import Ceiling
from consensus.settings.config import BudgetSettings

SPEND_MARKER = "<!-- consensus:pr-budget -->"
PER_PR_RUNS = 5  # max_cost_usd_per_pr auto: this many runs' caps


class Spent(Frozen):
    """What every run on this PR spent together (the per-PR budget, below):
    dollars where priced, tokens always, runs that called a model with no known price."""

    cost_usd: float = Field(default=0.0, ge=0)
    tokens: int = Field(default=0, ge=0)
    runs: int = Field(default=0, ge=0)
    unpriced_runs: int = Field(default=0, ge=0)
    # The latest run's caps: the per-PR cap's default is a multiple of them.
    run_cap_usd: float | None = Field(default=None, ge=0)
    run_cap_tokens: int | None = Field(default=None, ge=0)
    # The per-PR cap that stopped a run: until it is raised, automatic reviews stay stopped.
    stopped_at_usd: float | None = Field(default=None, ge=0)


class PrAllowance(Frozen):
    """What automatic reviews may still spend on this PR (None: no limit that way)."""

    cost_usd: float | None
    tokens: int | None
    cap_usd: float | None
    cap_tokens: int | None
    stopped: bool = False  # a run was stopped by this very cap: what is left pays no call

    @property
    def exhausted(self) -> bool:
        return (
            self.stopped
            or (self.cost_usd is not None and self.cost_usd <= 0)
            or (self.tokens is not None and self.tokens <= 0)
        )

    def ceiling(self) -> Ceiling:
        """What the next run may spend at most."""
        return Ceiling(tokens=self.tokens, cost_usd=self.cost_usd)


def allowance(settings: BudgetSettings, spent: Spent | None) -> PrAllowance:
    """The per-PR caps and what is left of them, from the setting and the state's spend."""
    spent = spent or Spent()
    setting = settings.max_cost_usd_per_pr
    if setting == "auto":
        cap_usd = None if spent.run_cap_usd is None else spent.run_cap_usd * PER_PR_RUNS
    else:
        cap_usd = setting
    # Unpriced runs spend dollars nobody can count: tokens hold the line for them.
    cap_tokens = None
    if spent.unpriced_runs and spent.run_cap_tokens is not None and setting is not None:
        cap_tokens = spent.run_cap_tokens * PER_PR_RUNS
    return PrAllowance(
        cost_usd=None if cap_usd is None else round(cap_usd - spent.cost_usd, 6),
        tokens=None if cap_tokens is None else cap_tokens - spent.tokens,
        cap_usd=cap_usd,
        cap_tokens=cap_tokens,
        stopped=cap_usd is not None and spent.stopped_at_usd == cap_usd,
    )


def spent_after(spent: Spent | None, report: Report, left: PrAllowance | None = None) -> Spent:
    """The PR's spend with this run's added (a run whose cost is unknown adds its tokens),
    this run's caps (the per-PR default is a multiple of them), and whether what was `left`
    of the per-PR cap stopped it."""
    before = spent or Spent()
    stats, budget = report.stats, report.budget
    pr_stopped = (
        budget is not None
        and bool(budget.stopped_by)
        and "pr" in (budget.tokens_source, budget.cost_source)
    )
    own = budget is not None and budget.cost_source != "pr"
    caps = {
        "run_cap_usd": budget.max_cost_usd if own and budget else before.run_cap_usd,
        "run_cap_tokens": budget.max_tokens if own and budget else before.run_cap_tokens,
        "stopped_at_usd": left.cap_usd if pr_stopped and left else before.stopped_at_usd,
    }
    if not stats.calls:
        return Spent.model_validate(before.model_dump() | caps)
    return Spent(
        cost_usd=round(before.cost_usd + (stats.cost_usd or 0.0), 6),
        tokens=before.tokens + stats.tokens_in + stats.tokens_out,
        runs=before.runs + 1,
        unpriced_runs=before.unpriced_runs + (stats.cost_usd is None),
        **caps,
    )


def spend_text(spent: Spent | None, words: HostWords) -> str:
    """ "$1.23 on this PR over 4 runs" ("this MR" on GitLab), saying where a run's cost is
    unknown."""
    if spent is None or not spent.runs:
        return f"nothing spent on this {words.short} yet"
    runs = f"{spent.runs} run{'s' if spent.runs != 1 else ''}"
    unknown = f" + {spent.tokens:,} tokens at unknown prices" if spent.unpriced_runs else ""
    return f"${spent.cost_usd:.2f}{unknown} on this {words.short} over {runs}"


def cap_comment(spent: Spent, left: PrAllowance, head_sha: str, words: HostWords) -> str:
    """The one comment that says automatic reviews of this PR stopped, and what to do, in
    the host's `words`."""
    caps = []
    if left.cap_usd is not None:
        caps.append(f"${left.cap_usd:.2f}")
    if left.cap_tokens is not None:
        caps.append(f"{left.cap_tokens:,} tokens (prices unknown)")
    return "\n".join(
        [
            SPEND_MARKER,
            f"**consensus: automatic reviews of this {words.pull_request} are stopped.** Its "
            f"runs have spent {spend_text(spent, words)}, which reached the per-{words.short} "
            "budget "
            f"(`budget.max_cost_usd_per_pr`: {' / '.join(caps)}).",
            "",
            f"Head `{head_sha[:12]}` was not reviewed. A maintainer can run one review now "
            "with `/consensus review`, or raise `budget.max_cost_usd_per_pr` in "
            "`.consensus.yml` on the base branch.",
        ]
    )
