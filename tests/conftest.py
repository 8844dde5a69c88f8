"""Shared test setup: each test is marked with its tier (the folder it lives in), litellm never
fetches its price map, no test touches the real journal, and every loopback GitHub a test
starts is held to GitHub's OpenAPI description.

The tiers: `unit` (pure stages, in memory), `flows` (app flows through the in-memory fakes of
`consensus/testing/`), `e2e` (the real CLI or Action against the loopback servers in
`consensus_sim/`, subprocesses), `contract` (our fakes and files against GitHub's OpenAPI
description, GraphQL schema, webhook examples and actionlint), `sim` (reduced runs of the
benchmark simulations in `benchmarks/sim/`: whole simulated worlds run end to end, so they
are marked `e2e` too). `pytest -m "not e2e"` is the quick loop.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus_sim.github_server import FakeGitHub
from consensus_sim.gitlab import FakeGitLab
from tests.contract import gitlab_api, gitlab_graphql
from tests.contract.github_openapi import description, problems_of

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "flows", "e2e", "contract", "sim")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with the tier its folder names (`-m "not e2e"` selects by it)."""
    for item in items:
        tier = item.path.resolve().relative_to(TESTS).parts[0]
        assert tier in TIERS, f"{item.nodeid}: a test lives in one of tests/{{{','.join(TIERS)}}}"
        item.add_marker(getattr(pytest.mark, tier))
        if tier == "sim":  # a simulated world reviewed end to end: not the quick loop
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def _journal_in_tmp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONSENSUS_HOME", str(tmp_path_factory.mktemp("consensus-home")))


@pytest.fixture(autouse=True)
def _github_requests_conform_to_github(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every loopback GitHub a test starts is checked when the test ends: each request our
    adapter sent must be one GitHub's OpenAPI description accepts, and each answer of the
    fake one GitHub could give (tests/contract/github_openapi.py; nothing is checked where the npm
    package is not installed, and tests/contract/test_github_openapi.py then skips, saying why)."""
    started: list[FakeGitHub] = []
    start = FakeGitHub.start

    def recording_start(server: FakeGitHub) -> FakeGitHub:
        started.append(server)
        return start(server)

    monkeypatch.setattr(FakeGitHub, "start", recording_start)
    yield
    github = description() if started else None
    if github is not None:
        problems = problems_of([r for server in started for r in server.requests], github)
        assert not problems, "GitHub's OpenAPI description disagrees:\n" + "\n".join(problems)


@pytest.fixture(autouse=True)
def _gitlab_requests_conform_to_gitlab(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every loopback GitLab a test starts is checked when the test ends: each request our
    adapter sent must be one GitLab's API takes, as python-gitlab defines it
    (tests/contract/gitlab_api.py), and each GraphQL request and answer one GitLab's
    schema allows (tests/contract/gitlab_graphql.py)."""
    started: list[FakeGitLab] = []
    start = FakeGitLab.start

    def recording_start(server: FakeGitLab) -> FakeGitLab:
        started.append(server)
        return start(server)

    monkeypatch.setattr(FakeGitLab, "start", recording_start)
    yield
    requests = [r for server in started for r in server.requests]
    problems = gitlab_api.problems_of(requests)
    assert not problems, "GitLab's API, as python-gitlab defines it, disagrees:\n" + "\n".join(
        problems
    )
    problems = gitlab_graphql.problems_of(requests)
    assert not problems, "GitLab's GraphQL schema disagrees:\n" + "\n".join(problems)
