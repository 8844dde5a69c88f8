"""What the runs on one pull request have spent together, as the summary's state keeps it."""

from __future__ import annotations

from pydantic import Field

from consensus.model.base import Frozen


class Spent(Frozen):
    """What every run on this PR spent together (the per-PR budget, publish/spend.py):
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
