"""Judges that read the repository, end to end: the real `consensus action` (in process)
against the loopback GitHub and four loopback providers, on a real git checkout.

A judge's tool calls are answered from the pull request's trees as git holds them (never
the work tree), a traversal and a symlink out of the tree are refused, a verdict whose
citation fails is a blind vote, and a model whose provider refuses tools is given the
evidence inline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus_sim.github_server import FakeGitHub
from consensus_sim.looking_judge import ClaimTruth, Decisive, Rates, looking_judge
from consensus_sim.provider_server import (
    FakeProviderServer,
    Script,
    Step,
    call_tools,
    error,
    prompt_text,
    reply,
)
from tests.e2e.test_action_e2e import VERIFIER_PROMPT, World, commit, config, git

CART_BEFORE = '''\
"""The cart."""


def checkout(items):
    total = 0
    for item in items:
        total += item.cost
    return total
'''
CART_AFTER = CART_BEFORE.replace("item.cost", "item.price")
VIEWS = '''\
"""Views."""
from shop.cart import checkout


def pay(request):
    items = request.session.get("items")
    return checkout(items or [])
'''
CART = "src/shop/cart.py"
GUARD = "return checkout(items or [])"
INLINE_HEADING = "What the repository holds that bears on it"  # verify.j2
INVENTED = "`checkout` iterates `items`, which may be None"
BLIND = Rates(tpr=1.0, tnr=0.0, uncertain=0.0)  # confirms everything it has not looked at
LOOKING = Rates(tpr=1.0, tnr=1.0, uncertain=0.0)  # right once it has read what decides
TRUTH = {INVENTED: ClaimTruth(False, Decisive("src/shop/views.py", 7, GUARD))}


def reviewer(model: str) -> Callable[[dict[str, Any]], Step]:
    """Only llama reports, an invention the caller's guard refutes; no other family does."""

    def review(body: dict[str, Any]) -> Step:
        found = []
        if model == "llama-test" and "def checkout" in prompt_text(body):
            found = [
                {
                    "path": CART,
                    "line": 7,
                    "severity": "high",
                    "category": "bug",
                    "title": INVENTED,
                    "body": "A None `items` raises TypeError.",
                }
            ]
        return reply(json.dumps({"findings": found}))

    return review


Judge = Callable[[dict[str, Any]], Step]


def world_with(tmp: Path, judges: dict[str, Judge]) -> Iterator[World]:
    script = Script()
    for model in ("gpt-test", "claude-test", "llama-test", "qwen-test"):
        review, judge = reviewer(model), judges.get(model)

        def answer(
            body: dict[str, Any], review: Judge = review, judge: Judge | None = judge
        ) -> Step:
            if judge is not None and VERIFIER_PROMPT in prompt_text(body):
                return judge(body)
            return review(body)

        script.respond(model, answer)
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp / "shop"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        files = {CART: CART_BEFORE, "src/shop/views.py": VIEWS}
        commit(repo, {**files, ".consensus.yml": config(providers.url, calibrated=False)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        (repo / "docs").mkdir()
        (repo / "docs" / "passwd").symlink_to("../../../../etc/passwd")
        commit(repo, {CART: CART_AFTER}, "feature")
        # The work tree is not what is reviewed: the tools read git's objects only.
        (repo / "src/shop/views.py").write_text("WORK TREE ONLY: items is never guarded\n")
        world = World(tmp, repo, github, providers)
        world.open_pr()
        yield world


def looking(misquote: float = 0.0) -> Judge:
    return looking_judge(TRUTH, blind=BLIND, looking=LOOKING, misquote=misquote)


def votes(world: World) -> list[dict[str, Any]]:
    report = json.loads((world.tmp / "consensus-report.json").read_text())
    [finding] = [f for f in report["findings"] if f["title"] == INVENTED]
    return list(finding["verification"]["votes"])


def verifications(world: World, model: str) -> list[dict[str, Any]]:
    return [
        r.body
        for r in world.providers.log.requests_for(model)
        if r.body is not None and VERIFIER_PROMPT in prompt_text(r.body)
    ]


@pytest.fixture
def looking_world(tmp_path: Path) -> Iterator[World]:
    yield from world_with(
        tmp_path, {m: looking() for m in ("gpt-test", "claude-test", "qwen-test")}
    )


def test_judges_that_read_the_caller_refute_an_invention_with_checked_citations(
    looking_world: World,
) -> None:
    run = looking_world.run()

    assert run.code == 0, run.stderr
    cast = votes(looking_world)
    assert cast and all(v["verdict"] == "refuted" and v["grounded"] for v in cast)
    assert all(v["evidence"][0]["quote"] == GUARD for v in cast)
    summary = looking_world.bot_summary()
    assert INVENTED in summary and "rejected" in summary
    # The tools answered from the head commit: the work tree's edit was never shown.
    shown = json.dumps(verifications(looking_world, "gpt-test"))
    assert GUARD in shown and "WORK TREE ONLY" not in shown


def escaping(body: dict[str, Any]) -> Step:
    """A judge that tries to read outside the tree, then answers without citing."""
    messages = body.get("messages") or []
    if body.get("tools") and not any(m.get("role") == "tool" for m in messages):
        return call_tools(
            ("read_file", {"path": "../../../etc/passwd", "start_line": 1, "end_line": 3}),
            ("read_file", {"path": "docs/passwd", "start_line": 1, "end_line": 3}),
        )
    return reply(json.dumps({"verdict": "uncertain", "reason": "could not read it"}))


def test_a_traversal_and_a_symlink_out_of_the_tree_are_refused(tmp_path: Path) -> None:
    for world in world_with(tmp_path, {"gpt-test": escaping}):
        run = world.run()
        assert run.code == 0, run.stderr
        answered = [
            m["content"]
            for body in verifications(world, "gpt-test")
            for m in body["messages"]
            if m.get("role") == "tool"
        ]
        assert len(answered) == 2 and all(a.startswith("error: refused") for a in answered)
        assert "root:" not in "".join(answered)


def test_a_verdict_whose_citation_fails_is_a_blind_vote(tmp_path: Path) -> None:
    judges = {"gpt-test": looking(misquote=1.0), "claude-test": looking(), "qwen-test": looking()}
    for world in world_with(tmp_path, judges):
        assert world.run().code == 0
        by_model = {v["model"]: v for v in votes(world)}
        assert by_model["openai/gpt-test"]["grounded"] is False
        assert by_model["openai/gpt-test"]["evidence"] == []
        assert by_model["anthropic/claude-test"]["grounded"] is True


def test_a_model_whose_provider_refuses_tools_is_given_the_evidence_inline(
    tmp_path: Path,
) -> None:
    judge = looking()

    def refuses_tools(body: dict[str, Any]) -> Step:
        if body.get("tools"):
            return error(400, "this model does not support tools")
        return judge(body)

    judges = {"gpt-test": refuses_tools, "claude-test": looking(), "qwen-test": looking()}
    for world in world_with(tmp_path, judges):
        assert world.run().code == 0
        asked = verifications(world, "gpt-test")
        inline = [b for b in asked if not b.get("tools")]
        assert inline and INLINE_HEADING in prompt_text(inline[0])
        assert "def checkout(items):" in prompt_text(inline[0])
        by_model = {v["model"]: v for v in votes(world)}
        assert by_model["openai/gpt-test"]["verdict"] is not None


def test_where_the_checkout_lacks_the_commits_the_judges_read_githubs_tarballs(
    looking_world: World,
) -> None:
    """The default actions/checkout fetches one commit and no base: the judges' trees come
    from GitHub's tarball of each commit instead, and they refute as they do from git."""
    shallow = looking_world.tmp / "shallow-checkout"
    shallow.mkdir()
    run = looking_world.run(GITHUB_WORKSPACE=str(shallow))

    assert run.code == 0, run.stderr
    cast = votes(looking_world)
    assert cast and all(v["verdict"] == "refuted" and v["grounded"] for v in cast)
    [pull] = looking_world.github.repos["acme/service"].pulls.values()
    asked = {
        r.path.rsplit("/", 1)[-1] for r in looking_world.github.requests if "/tarball/" in r.path
    }
    assert asked == {pull.head_sha}  # the base's is asked only when a judge reads the base
