"""The Action's money gates on a pull request: a superseded head, and the per-PR budget.

A run whose head is no longer the PR's head (a newer push) stops before its model phase:
the newer push's run reviews the settled head. Automatic runs stop once the PR's runs have
spent `budget.max_cost_usd_per_pr` (publish/spend.py), with one comment, edited in place
on later pushes, that says so and what a maintainer can do.
"""

from __future__ import annotations

from consensus.model.host import HostWords
from consensus.ports import Conversation, PullReader
from consensus.publish.spend import SPEND_MARKER, PrAllowance, Spent, allowance, cap_comment
from consensus.publish.state import PublishState
from consensus.publish.thread import Identity
from consensus.settings.config import BudgetSettings


class Superseded(Exception):
    """The PR's head moved on while this run was on its way to the models."""

    def __init__(self, head_sha: str, current: str) -> None:
        super().__init__(f"head {head_sha[:12]} was superseded by {current[:12]}")
        self.head_sha = head_sha
        self.current = current


def check_head(host: PullReader, number: int, head_sha: str) -> None:
    """Raise Superseded when the PR's head is no longer `head_sha`."""
    current = host.pull_request(number).head_sha
    if current != head_sha:
        raise Superseded(head_sha, current)


def stopped_by_pr_budget(
    host: Conversation,
    number: int,
    *,
    state: PublishState,
    budget: BudgetSettings,
    head: str,
    ours: Identity,
    words: HostWords,
) -> PrAllowance | None:
    """What automatic runs may still spend on this PR; None when they must stop (the
    comment that says so is posted, or edited in place)."""
    left = allowance(budget, state.spent)
    if not left.exhausted:
        return left
    body = cap_comment(state.spent or Spent(), left, head, words)
    posted = [
        c for c in host.issue_comments(number) if SPEND_MARKER in c.body and ours.owns(c.author)
    ]
    if not posted:
        host.create_issue_comment(number, body)
    elif posted[0].body != body:
        host.edit_issue_comment(number, posted[0].id, body)
    return None
