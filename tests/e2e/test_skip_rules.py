"""Skip rules (`ignore: {authors, labels, title}`) and dependency-bot PRs without secrets:
the rule as a table, then the real Action against the loopback GitHub."""

from __future__ import annotations

import pytest

from consensus.errors import ConfigError
from consensus.settings.config import parse_settings
from consensus.settings.scope import IgnoreSettings
from consensus_sim.github_server import human
from tests.e2e import test_action_e2e as e2e

world = e2e.world  # the loopback GitHub and providers around a git repository

DEPENDABOT = {"login": "dependabot[bot]", "id": 49699333, "type": "Bot"}
RENOVATE = {"login": "renovate[bot]", "id": 29139614, "type": "Bot"}
RULES = IgnoreSettings(
    authors=("dependabot[bot]", "@Some-Bot[bot]"),
    labels=("no-review",),
    title=(r"^WIP\b", r"(?i)\[skip review\]"),
)


@pytest.mark.parametrize(
    ("author", "labels", "title", "why"),
    [
        ("dev", (), "Fix the parser", None),
        ("dependabot[bot]", (), "Bump x", "its author dependabot[bot] is in ignore.authors"),
        ("some-bot[bot]", (), "x", "its author some-bot[bot] is in ignore.authors"),
        ("dev", ("bug", "no-review"), "x", "it has the label 'no-review' (ignore.labels)"),
        ("dev", ("No-Review",), "x", None),  # labels are compared exactly
        ("dev", (), "WIP: parser", "its title matches '^WIP\\\\b' (ignore.title)"),
        ("dev", (), "WIPE the cache", None),  # \b: a word, not a prefix
        ("dev", (), "Fix the parser [Skip Review]", "its title matches"),
        ("dev", (), "Not WIP yet", None),  # ^ anchors: only a title that starts with it
    ],
)
def test_a_pr_is_skipped_when_one_rule_matches(
    author: str, labels: tuple[str, ...], title: str, why: str | None
) -> None:
    got = RULES.reason(author=author, labels=labels, title=title)
    if why is None:
        assert got is None
    else:
        assert got is not None and got.startswith(why)


def test_no_rules_skip_nothing() -> None:
    assert IgnoreSettings().reason(author="dependabot[bot]", labels=("x",), title="WIP") is None


@pytest.mark.parametrize(
    ("yaml", "key", "words"),
    [
        ("ignore:\n  title: ['^WIP(']\n", "ignore.title", "not a valid regex"),
        ("ignore:\n  authors: ['not a login']\n", "ignore.authors", "not a GitHub login"),
        ("ignore:\n  author: [x]\n", "ignore.author", "did you mean 'authors'"),
    ],
)
def test_a_bad_ignore_key_names_the_key_and_the_fix(yaml: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(yaml, source=".consensus.yml")
    assert caught.value.key == key
    assert words in str(caught.value)


def _base_config(world: e2e.World, text: str) -> None:
    """A base branch with `text` as its .consensus.yml, and branch `pr` on it with the change
    (the PR's own copy of the config never counts)."""
    e2e.git(world.repo, "checkout", "-q", "main")
    e2e.commit(world.repo, {".consensus.yml": text}, "config")
    e2e.git(world.repo, "checkout", "-q", "-b", "pr")
    e2e.commit(world.repo, {"src/app/db.py": e2e.DB_AFTER}, "the change")


IGNORE = "ignore:\n  authors: ['renovate[bot]']\n  labels: [no-review]\n  title: ['^WIP\\b']\n"


@pytest.mark.parametrize(
    ("pull", "label", "why"),
    [
        ({"user": RENOVATE}, None, "its author renovate[bot] is in ignore.authors"),
        ({}, "no-review", "it has the label 'no-review' (ignore.labels)"),
        ({"title": "WIP: not yet"}, None, "its title matches '^WIP\\\\b' (ignore.title)"),
    ],
)
def test_an_ignored_pr_gets_one_log_line_no_call_and_no_write(
    world: e2e.World, pull: dict[str, object], label: str | None, why: str
) -> None:
    _base_config(world, e2e.config(world.providers.url) + IGNORE)
    world.open_pr("pr", **pull)
    if label:
        world.github.repos[e2e.REPO].labels[e2e.NUMBER] = [label]
    run = world.run()
    assert run.code == 0, run.stderr
    assert f"PR #{e2e.NUMBER} is not reviewed: {why}" in run.stderr
    assert run.writes() == [] and len(world.providers.log) == 0


def test_a_pr_no_rule_matches_is_reviewed(world: e2e.World) -> None:
    _base_config(world, e2e.config(world.providers.url) + IGNORE)
    world.open_pr("pr", title="Make WIP checks stricter", user=human("dev"))
    world.github.repos[e2e.REPO].labels[e2e.NUMBER] = ["bug"]
    run = world.run()
    assert run.code == 0, run.stderr
    assert "is not reviewed" not in run.stderr
    assert len(world.github.repos[e2e.REPO].review_comments) == 2


def test_rules_in_the_pr_head_do_not_skip_it(world: e2e.World) -> None:
    """A PR cannot exempt itself: its own .consensus.yml is never read."""
    e2e.commit(world.repo, {".consensus.yml": e2e.config(world.providers.url) + IGNORE}, "me")
    world.open_pr(title="WIP: skip me")
    run = world.run()
    assert run.code == 0, run.stderr
    assert "is not reviewed" not in run.stderr and world.github.repos[e2e.REPO].reviews


@pytest.mark.parametrize("bot", [DEPENDABOT, RENOVATE])
def test_a_dependency_bot_pr_without_secrets_exits_0_saying_why(
    world: e2e.World, bot: dict[str, object]
) -> None:
    world.open_pr(user=bot)
    run = world.run(keys=False)
    assert run.code == 0, run.stderr
    assert f"PR #{e2e.NUMBER} was opened by {bot['login']}" in run.stderr
    assert "this pull_request run has no provider key" in run.stderr
    assert f"list {bot['login']} under ignore.authors" in run.stderr
    assert "no provider configured" not in run.stderr
    assert run.writes() == [] and len(world.providers.log) == 0


def test_a_dependabot_pr_without_secrets_and_no_providers_key_is_not_a_config_error(
    world: e2e.World,
) -> None:
    _base_config(world, "personas: [correctness]\n")  # no providers: those of the keys set
    world.open_pr("pr", user=DEPENDABOT)
    run = world.run(keys=False)
    assert run.code == 0, run.stderr
    assert "only Dependabot secrets" in run.stderr
    assert "no provider configured" not in run.stderr


def test_a_dependabot_pr_with_keys_is_reviewed(world: e2e.World) -> None:
    world.open_pr(user=DEPENDABOT)
    run = world.run()
    assert run.code == 0, run.stderr
    assert "was opened by" not in run.stderr
    assert world.github.repos[e2e.REPO].reviews


def test_a_human_pr_without_keys_still_fails_loudly(world: e2e.World) -> None:
    """The neutral exit is for dependency bots, whose runs GitHub gives no secrets."""
    world.open_pr()
    run = world.run(keys=False)
    assert run.code == 3, run.stderr
    assert "was opened by" not in run.stderr
