"""The `budget:` section of `.consensus.yml`: what one run, and one pull request, may spend."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from consensus.model.bounds import MAX_TOKENS, MAX_USD
from consensus.settings.strict import Strict

Auto = Literal["auto"]


class BudgetSettings(Strict):
    """What one run may spend, and what automatic runs on one pull request may spend.

    `auto` (the default): derived from the review's plan (review/budget.py): the worst case
    of the planned calls, for a change of up to 2,000 changed lines, so that the default
    panel finishes such a review; `max_cost_usd_per_pr` auto is 5 × the run's cost cap.
    A number is a hard cap; null is no limit.
    """

    max_cost_usd: Annotated[float, Field(ge=0, le=MAX_USD)] | Auto | None = "auto"
    """US dollars one run may spend: a number, null (no cap) or auto (the plan's worst case)."""
    max_tokens: Annotated[int, Field(ge=0, le=MAX_TOKENS)] | Auto | None = "auto"
    """Tokens one run may spend: a number, null (no cap) or auto (the plan's worst case)."""
    max_cost_usd_per_pr: Annotated[float, Field(ge=0, le=MAX_USD)] | Auto | None = "auto"
    """US dollars automatic reviews of one pull request may spend together; auto: 5 × the run's cost
    cap."""
