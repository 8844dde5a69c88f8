"""End to end: a maintainer's decision on PR 1 becomes a learning. PR 1 is reviewed, a
maintainer dismisses its SQL finding by reply ("intentional because …"), it closes (the
outcomes are recorded); four more closed PRs carry known outcomes; the scheduled run opens
one pull request whose `.consensus/learned.yml` matches a hand count; a second run changes
nothing; merged, the file keeps PR 6's same finding out of its inline comments."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.model.base import Category, VerdictKind
from consensus.publish.decided import FindingOutcome, JudgeNote
from consensus.publish.state import PublishState, encode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus.settings.learned import LEARNED_PATH, parse_learned
from consensus_sim.github_server import BOT, FakeGitHub, PullRequest, human, load_pull_from_git
from consensus_sim.provider_server import FakeProviderServer, Script
from tests.contract.test_github_openapi import SCHEDULE
from tests.e2e.test_action_e2e import DB_AFTER, DB_BEFORE, MODELS, NUMBER, REPO, commit, config, git
from tests.e2e.test_commands_e2e import MAINTAINER, World
from tests.e2e.test_conversation_e2e import inline, responder, say, state

C, R = VerdictKind.CONFIRMED, VerdictKind.REFUTED
BRANCH = "consensus/learnings"


def known(n: int, kind: str, families: tuple[str, ...], judges=(), persona="security"):  # type: ignore[no-untyped-def]
    return FindingOutcome(
        fingerprint=f"{n:016x}",
        id=f"F{n}",
        path="src/app/other.py",
        category=Category.BUG,
        title=f"Unchecked return value {n}",
        outcome=kind,  # type: ignore[arg-type]
        families=families,
        personas=(persona,),
        judges=tuple(JudgeNote(family=f, verdict=v) for f, v in judges),
    )


# PRs 2–5, closed with these outcomes recorded in their summaries' state.
KNOWN = {
    2: (known(21, "fixed", ("openai",), (("anthropic", C),)),),
    3: (known(31, "left", ("anthropic",), (("openai", C),)),),
    4: (known(41, "fixed", ("openai", "anthropic"), (("meta", R),), persona="correctness"),),
    5: (known(51, "dismissed", ("anthropic",), (("openai", R), ("meta", C))),),
}


def hand_count(outcomes: list[FindingOutcome]) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """Counted the plain way: per family and persona, and each judge against the outcome."""
    families: dict[str, dict[str, dict[str, int]]] = {}
    personas: dict[str, dict[str, int]] = {}

    def family(name: str) -> dict[str, dict[str, int]]:
        zero = {"fixed": 0, "dismissed": 0, "left": 0}
        judge = {"confirmed_real": 0, "missed_real": 0, "refuted_false": 0, "confirmed_false": 0}
        return families.setdefault(name, {"reporter": zero, "judge": judge})

    for o in outcomes:
        for name in o.families:
            family(name)["reporter"][o.outcome] += 1
        for name in o.personas:
            personas.setdefault(name, {"fixed": 0, "dismissed": 0, "left": 0})[o.outcome] += 1
        for j in o.judges:
            if o.outcome == "fixed":
                family(j.family)["judge"][
                    "confirmed_real" if j.verdict == C else "missed_real"
                ] += 1
            if o.outcome == "dismissed":
                key = "confirmed_false" if j.verdict == C else "refuted_false"
                family(j.family)["judge"][key] += 1
    return families, personas


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in MODELS:
        script.respond(model, responder(model))  # type: ignore[arg-type]
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": config(providers.url)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        commit(repo, {"src/app/db.py": DB_AFTER}, "feature")
        world = World(tmp_path, repo, github, providers)
        world.open_pr()
        github.repos[REPO].branches["main"] = github.repos[REPO].pulls[NUMBER].base_sha
        yield world


def seed_closed(world: World) -> None:
    repo = world.github.repos[REPO]
    for n, outcomes in KNOWN.items():
        base = repo.pulls[NUMBER].base_sha
        repo.pulls[n] = PullRequest(
            number=n, head_sha=base, base_sha=base, files=[], state="closed",
            closed_at=f"2026-11-0{n}T12:00:00Z", merged=n % 2 == 0,
        )  # fmt: skip
        line = encode_state(PublishState(outcomes=outcomes, closed="closed"))
        world.github.add_issue_comment(REPO, n, f"{SUMMARY_MARKER}\n## consensus\n{line}", BOT)


def schedule(world: World) -> list[str]:
    """The scheduled run with the `learnings` input; the GraphQL mutations it sent."""
    before = len(world.github.requests)
    run = world.run("schedule", SCHEDULE, CONSENSUS_LEARNINGS="true")
    assert run.code == 0, run.stderr
    queries = [
        str((r.body or {}).get("query") or "").strip()
        for r in world.github.requests[before:]
        if r.path == "/graphql"
    ]
    return [q.split("(")[0].removeprefix("mutation ") for q in queries if q.startswith("mutation")]


def test_closed_prs_become_one_learnings_pr_that_keeps_pr6_s_finding_out_of_line(
    world: World,
) -> None:
    assert world.pull_event("opened").code == 0
    sql = inline(world, "SQL injection")
    why = "This is intentional because user_id is validated by the router."
    assert say(world, sql, why, human(MAINTAINER)).code == 0
    world.github.close_pull(REPO, NUMBER, merged=True, at="2026-11-01T12:00:00Z")
    assert world.pull_event("closed").code == 0
    first = state(world)
    assert first.closed == "merged"
    outcomes = {o.title.split(" (")[0]: o for o in first.outcomes}
    assert outcomes["SQL injection"].outcome == "dismissed"
    assert outcomes["SQL injection"].reason == why
    assert outcomes["Off-by-one in loop"].outcome == "left"
    seed_closed(world)

    assert schedule(world) == ["ConsensusCreateRef", "ConsensusCommitFile", "ConsensusOpenPull"]
    repo = world.github.repos[REPO]
    [learnings] = [p for p in repo.pulls.values() if p.head_ref == BRANCH]
    text = repo.snapshots[repo.branches[BRANCH]][LEARNED_PATH]
    learned = parse_learned(text)
    every = [*first.outcomes, *(o for group in KNOWN.values() for o in group)]
    families, personas = hand_count(every)
    assert {k: v.model_dump() for k, v in learned.families.items()} == families
    assert {k: v.model_dump() for k, v in learned.personas.items()} == personas
    [rule] = learned.suppressions
    assert (rule.pr, rule.by, rule.reason, rule.path) == (
        NUMBER,
        MAINTAINER,
        why,
        "/src/app/**/*.py",
    )
    assert learned.updated_through == "2026-11-05T12:00:00Z"
    assert "#7" in repo.issue_bodies[learnings.number]

    assert schedule(world) == []  # nothing new: nothing written
    assert len([p for p in repo.pulls.values() if p.head_ref == BRANCH]) == 1

    # The learnings PR is merged; PR 6 makes the same change on another branch.
    git(world.repo, "checkout", "-q", "main")
    commit(world.repo, {LEARNED_PATH: text}, "consensus: learnings")
    git(world.repo, "checkout", "-q", "-b", "again")
    commit(world.repo, {"src/app/db.py": DB_AFTER}, "the same change")
    load_pull_from_git(world.github, REPO, 6, world.repo, base="main", head="again")
    six = world.github.repos[REPO]
    payload = {
        "action": "opened",
        "number": 6,
        "pull_request": world.github.pull_json(six, six.pulls[6]),
        "repository": {"full_name": REPO},
    }
    run = world.run("pull_request", payload)
    assert run.code == 0, run.stderr
    posted = [c["body"] for c in six.review_comments if c["_number"] == 6]
    page = [c["body"] for c in six.issue_comments if c["_number"] == 6]
    assert posted and not any("SQL injection" in b.split("\n", 1)[0] for b in posted), page[0][
        :3000
    ]
    assert any("Off-by-one" in b.split("\n", 1)[0] for b in posted)
    [summary] = [
        c["body"]
        for c in six.issue_comments
        if c["_number"] == 6 and c["user"]["login"] == BOT["login"]
    ]
    assert "suppressed by a maintainer's decision in #\u200d7: This is intentional" in summary
