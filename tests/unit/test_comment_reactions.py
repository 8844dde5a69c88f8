"""A listed review comment carries GitHub's count of its reactions: consensus reads who
gave a 👍 or 👎 only where there is one to read."""

from __future__ import annotations

from typing import Any

from consensus.adapters.github_wire import host_comment

LISTED: dict[str, Any] = {
    "id": 1894312,
    "body": "**HIGH** SQL injection: customer name interpolated into the query",
    "user": {"login": "github-actions[bot]", "type": "Bot"},
    "path": "shop/orders.py",
    "line": 21,
    "commit_id": "9f1c2ab",
    "reactions": {
        "url": "https://api.github.com/repos/acme/shop/pulls/comments/1894312/reactions",
        "total_count": 3,
        "+1": 1,
        "-1": 1,
        "laugh": 0,
        "confused": 0,
        "heart": 0,
        "hooray": 0,
        "eyes": 1,
        "rocket": 0,
    },
}


def test_the_thumbs_are_the_listing_s_plus_one_and_minus_one_counts() -> None:
    assert host_comment(LISTED).thumbs == 2


def test_a_comment_with_only_other_reactions_has_no_thumbs() -> None:
    rollup = {**LISTED["reactions"], "+1": 0, "-1": 0, "total_count": 1}
    assert host_comment({**LISTED, "reactions": rollup}).thumbs == 0


def test_a_listing_without_counts_says_nothing_so_the_reactions_are_read() -> None:
    assert host_comment({k: v for k, v in LISTED.items() if k != "reactions"}).thumbs is None


def test_counts_that_are_not_numbers_are_no_counts() -> None:
    rollup = {**LISTED["reactions"], "+1": "many"}
    assert host_comment({**LISTED, "reactions": rollup}).thumbs is None
