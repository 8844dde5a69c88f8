"""Judges measured, not assumed, end to end: the real `consensus action` (in process) with
the default configuration (no calibration) against the loopback GitHub and four loopback
providers of four families.

- A real bug one family saw is posted once judges that refute the inventions around it
  confirm it; judges that confirm everything leave the inventions (and that bug) unposted.
- A claim three families make on lines the change only moved is about code the pull
  request did not write: it goes to the summary, "in moved code", not inline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus_sim.github_server import FakeGitHub
from consensus_sim.provider_server import FakeProviderServer, Script, Step, prompt_text, reply
from tests.e2e.test_action_e2e import MODELS, REPO, VERIFIER_PROMPT, World, commit, config, git

ORDERS_BEFORE = '''\
"""Orders: totals."""


def total(items):
    return sum(item.price for item in items)
'''
ORDERS_AFTER = '''\
"""Orders: totals, averages, the latest prices, loading."""


def total(items):
    return sum(item.price for item in items)


def average(items):
    if not items:
        return 0.0
    return total(items) / len(items)


def last_prices(items, count):
    prices = []
    for i in range(len(items) - count, len(items) + 1):
        prices.append(items[i].price)
    return prices


async def load(store, order_id):
    query = "SELECT * FROM orders WHERE id = ?"
    rows = await store.fetch(query, (order_id,))
    if not rows:
        raise KeyError(order_id)
    return rows[0]
'''
PATH = "src/shop/orders.py"
COMPARER_PROMPT = "comparing two findings"


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def claim(line: int, title: str, body: str, severity: str = "high") -> dict[str, object]:
    return {"path": PATH, "line": line, "severity": severity, "category": "bug",
            "title": title, "body": body}  # fmt: skip


# What each model reports: one real bug only GPT sees, and one invention each from the
# others, at places nothing else points to.
REAL = "Off-by-one: last_prices reads one past the end of items"
CLAIMS = {
    "gpt-test": claim(line_of(ORDERS_AFTER, "len(items) + 1"), REAL,
                      "`range(..., len(items) + 1)` indexes `items[len(items)]`: IndexError."),
    "claude-test": claim(line_of(ORDERS_AFTER, "total(items) / len"),
                         "Division by zero in average() for an empty order",
                         "`len(items)` is 0 for an empty order."),
    "llama-test": claim(line_of(ORDERS_AFTER, "query = "), "SQL injection in load()",
                        "The order id is put into the query text."),
    "qwen-test": claim(line_of(ORDERS_AFTER, "rows = await"),
                       "store.fetch is not awaited in load()",
                       "The coroutine is never awaited, so `rows` is a coroutine object."),
}  # fmt: skip


def panel(judge: Callable[[str], str]) -> Callable[[str], Callable[[dict[str, Any]], Step]]:
    """Reviewers that report CLAIMS; judges that answer `judge(the claim's title)`."""

    def responder(model: str) -> Callable[[dict[str, Any]], Step]:
        def answer(body: dict[str, Any]) -> Step:
            prompt = prompt_text(body)
            if VERIFIER_PROMPT in prompt:
                title = prompt.rsplit("Is the finding", 1)[-1]
                return reply(json.dumps({"verdict": judge(title), "reason": "read the code"}))
            if COMPARER_PROMPT in prompt:
                return reply(json.dumps({"verdict": "different", "reason": "two defects"}))
            found = [CLAIMS[model]] if "def last_prices" in prompt else []
            return reply(json.dumps({"findings": found}))

        return answer

    return responder


def discerning(title: str) -> str:
    return "confirmed" if "Off-by-one" in title else "refuted"


def agreeable(title: str) -> str:
    return "confirmed"


def world_with(tmp: Path, judge: Callable[[str], str], before: dict[str, str],
               after: dict[str, str]) -> Iterator[World]:  # fmt: skip
    script = Script()
    responder = panel(judge)
    for model in MODELS:
        script.respond(model, responder(model))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp / "shop"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {**before, ".consensus.yml": config(providers.url, calibrated=False)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        commit(repo, after, "feature")
        world = World(tmp, repo, github, providers)
        world.open_pr()
        yield world


@pytest.fixture
def discerning_world(tmp_path: Path) -> Iterator[World]:
    yield from world_with(tmp_path, discerning, {PATH: ORDERS_BEFORE}, {PATH: ORDERS_AFTER})


@pytest.fixture
def agreeable_world(tmp_path: Path) -> Iterator[World]:
    yield from world_with(tmp_path, agreeable, {PATH: ORDERS_BEFORE}, {PATH: ORDERS_AFTER})


def inline(world: World) -> list[str]:
    return [str(c["body"]) for c in world.github.repos[REPO].review_comments]


def test_a_bug_one_family_saw_is_posted_once_judges_that_refute_inventions_confirm_it(
    discerning_world: World,
) -> None:
    run = discerning_world.run()
    assert run.code == 0, run.stderr
    [body] = inline(discerning_world)
    assert REAL in body
    # Who judged it, by family: the three that did not report it.
    assert "· verified · reported by 1 of 4 families (openai) · confirmed by " in body
    assert all(family in body for family in ("anthropic", "meta", "qwen"))
    summary = discerning_world.github.repos[REPO].issue_comments[-1]["body"]
    for title in ("Division by zero", "SQL injection in load", "not awaited"):
        assert title in summary  # kept, not posted
    assert "rejected" in summary


def test_an_invention_is_left_unposted_by_judges_that_confirm_everything(
    agreeable_world: World,
) -> None:
    run = agreeable_world.run()
    assert run.code == 0, run.stderr
    # Judges that confirm every claim, the inventions of one family included, say nothing
    # a claim one family made can rest on: none is posted (the real one neither).
    assert inline(agreeable_world) == []
    summary = agreeable_world.github.repos[REPO].issue_comments[-1]["body"]
    assert "Division by zero in average() for an empty order" in summary
    assert "undecided" in summary


# --------------------------------------------------------------------------- moved code

UTIL_BEFORE = '''\
"""Helpers for HTTP responses and for money."""


def content_disposition(filename):
    value = f'attachment; filename="{filename}"'
    return {"Content-Disposition": value}


def redirect_headers(location, permanent=False):
    status = 301 if permanent else 302
    return status, {"Location": location}


def cents(amount):
    return round(amount * 100)
'''
UTIL_AFTER = '''\
"""Helpers for money."""


def cents(amount):
    return round(amount * 100)
'''
HEADERS_AFTER = '''\
"""Helpers for HTTP responses."""


def content_disposition(filename):
    value = f'attachment; filename="{filename}"'
    return {"Content-Disposition": value}


def redirect_headers(location, permanent=False):
    status = 301 if permanent else 302
    return status, {"Location": location}
'''
VIEWS_BEFORE = """\
from shop.util import content_disposition


def download(name):
    return content_disposition(name)
"""
VIEWS_AFTER = VIEWS_BEFORE.replace("shop.util", "shop.headers")
INJECTION = "Header injection: the filename goes into Content-Disposition unescaped"


def moved_panel(model: str) -> Callable[[dict[str, Any]], Step]:
    """Three families report a header injection on the moved lines; the fourth judges it."""

    def answer(body: dict[str, Any]) -> Step:
        prompt = prompt_text(body)
        if VERIFIER_PROMPT in prompt:
            return reply(json.dumps({"verdict": "confirmed", "reason": "a quote would break it"}))
        if COMPARER_PROMPT in prompt:
            return reply(json.dumps({"verdict": "same", "reason": "one defect"}))
        found = []
        if model != "qwen-test" and "def content_disposition" in prompt:
            line = line_of(HEADERS_AFTER, "value = f'attachment")
            said = "A filename with a quote or a newline splits the header."
            quoted = HEADERS_AFTER.splitlines()[line - 1].strip()  # the evidence asked for
            found.append({"path": "src/shop/headers.py", "line": line, "severity": "medium",
                          "category": "security", "title": INJECTION, "body": said,
                          "evidence": quoted})  # fmt: skip
        return reply(json.dumps({"findings": found}))

    return answer


@pytest.fixture
def moved_world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, moved_panel(model))
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "shop"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        base = {"src/shop/util.py": UTIL_BEFORE, "src/shop/views.py": VIEWS_BEFORE}
        commit(repo, {**base, ".consensus.yml": config(providers.url, calibrated=False)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        after = {"src/shop/util.py": UTIL_AFTER, "src/shop/headers.py": HEADERS_AFTER,
                 "src/shop/views.py": VIEWS_AFTER}  # fmt: skip
        commit(repo, after, "Move the HTTP helpers to their own module")
        world = World(tmp_path, repo, github, providers)
        world.open_pr()
        yield world


def test_a_claim_on_lines_the_change_only_moved_goes_to_the_summary(moved_world: World) -> None:
    run = moved_world.run()
    assert run.code == 0, run.stderr
    assert inline(moved_world) == []  # three families agree, but the PR did not write it
    summary = moved_world.github.repos[REPO].issue_comments[-1]["body"]
    row = next(line for line in summary.splitlines() if line.startswith("| F1 |"))
    assert INJECTION in row
    assert row.endswith("| 3/4 | here: in moved code (from src/shop/util.py:5) |")
