"""End to end, on both hosts: a push that touches another file posts nothing twice.

A merge request (a pull request) commits a Stripe key in `src/shop/settings.py` beside a
change the models have findings on. It is reviewed once; then a push touches another file
only. The second job carries the decisions of the untouched files: the key's discussion
(review thread) stays the one open about it, with the fingerprint it was posted with, and
no new one is posted with the same title at the same line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.publish.state import decode_state
from consensus_sim.github_server import FakeGitHub
from consensus_sim.gitlab import FakeGitLab
from consensus_sim.provider_server import FakeProviderServer, Script
from tests.e2e import test_action_e2e as github
from tests.e2e.gitlab_world import IID, INVOICE_AFTER, MODELS, PROJECT, World, responder

# Line 2 holds the key; nothing in this file changes after the first review.
SETTINGS = '''\
"""Shop settings."""
STRIPE_SECRET = "sk_live_51Hq8ZxK2mP9vR4tW7yB3nD6fJ0cL"
CURRENCY = "EUR"
'''
KEY_TITLE = "Committed credential (stripe-key) in src/shop/settings.py"
MARKER = re.compile(r"<!-- consensus:fp=([0-9a-f-]+)")


def fingerprints(bodies: list[str]) -> list[str]:
    return [m.group(1) for body in bodies if (m := MARKER.search(body))]


# ---------------------------------------------------------------------------- GitLab


@pytest.fixture
def gitlab_world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, responder(model))
    with FakeGitLab() as gitlab, FakeProviderServer(script) as providers:
        yield World(tmp_path, gitlab, providers)


def key_notes(world: World) -> list[dict[str, object]]:
    return [n for n in world.ours() if KEY_TITLE in str(n["body"]).split("\n", 1)[0]]


def test_a_push_to_another_file_posts_no_second_discussion_on_gitlab(
    gitlab_world: World,
) -> None:
    world = gitlab_world
    head = {**world.base, "billing/invoice.py": INVOICE_AFTER, "src/shop/settings.py": SETTINGS}
    world.open(head)
    first = world.review()
    assert first.code == 0, first.log
    [posted] = key_notes(world)
    assert posted["position"]["new_line"] == 2  # type: ignore[index]
    before = {n["id"] for n in world.ours()}
    world.gitlab.push(PROJECT, IID, {**head, "README.md": "# billing\n\nInvoices, tax.\n"})
    second = world.review()
    assert second.code == 0, second.log
    assert not [w for w in second.writes if w[0] == "POST" and w[1].endswith("/discussions")]
    assert {n["id"] for n in world.ours()} == before
    [still] = key_notes(world)
    assert still["id"] == posted["id"]
    assert not world.thread_of(still)["notes"][0]["resolved"]
    [summary] = world.summaries()
    state = decode_state(str(summary["body"]))
    assert state is not None
    [tracked] = [t for t in state.findings if t.path == "src/shop/settings.py"]
    assert fingerprints([str(posted["body"])]) == [tracked.fingerprint]
    assert not tracked.resolved


# ---------------------------------------------------------------------------- GitHub


@pytest.fixture
def github_world(tmp_path: Path) -> Iterator[github.World]:
    script = Script()
    for model in github.MODELS:
        script.respond(model, github.responder(model))  # type: ignore[arg-type]
    with FakeGitHub() as host, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        config = github.config(providers.url)
        files = {"src/app/db.py": github.DB_BEFORE, ".consensus.yml": config, "README.md": "#\n"}
        github.git(repo, "init", "-q", "-b", "main")
        github.commit(repo, files, "base")
        github.git(repo, "checkout", "-q", "-b", "feature")
        changed = {"src/app/db.py": github.DB_AFTER, "src/shop/settings.py": SETTINGS}
        github.commit(repo, changed, "feature")
        yield github.World(tmp_path, repo, host, providers)


def key_comments(world: github.World) -> list[dict[str, object]]:
    comments = world.github.repos[github.REPO].review_comments
    return [c for c in comments if KEY_TITLE in str(c["body"]).split("\n", 1)[0]]


def test_a_push_to_another_file_posts_no_second_review_comment_on_github(
    github_world: github.World,
) -> None:
    world = github_world
    world.open_pr()
    first = world.run(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert first.code == 0, first.stderr
    [posted] = key_comments(world)
    assert posted["line"] == 2
    comments = len(world.github.repos[github.REPO].review_comments)
    github.commit(world.repo, {"README.md": "# service\n"}, "touch only the readme")
    world.open_pr()
    second = world.run("synchronize", CONSENSUS_HOME=str(world.tmp / "runner-2"))
    assert second.code == 0, second.stderr
    assert github.review_posts(second) == []
    assert len(world.github.repos[github.REPO].review_comments) == comments
    assert key_comments(world) == [posted]
    state = decode_state(world.bot_summary())
    assert state is not None
    [tracked] = [t for t in state.findings if t.path == "src/shop/settings.py"]
    assert fingerprints([str(posted["body"])]) == [tracked.fingerprint]
    assert not tracked.resolved
