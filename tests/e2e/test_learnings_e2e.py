"""End to end, against the loopback GitHub (where a pull request whose branch is moved to
no commit beyond its base is closed, as on GitHub):

- a maintainer's decision on PR 7 becomes a learning. PR 7 is reviewed, a maintainer
  dismisses its SQL finding by reply ("intentional because …"), it closes (the outcomes are
  recorded); four more closed PRs carry known outcomes; the scheduled run opens one pull
  request whose `.consensus/learned.yml` matches a hand count; a second run changes
  nothing; merged, the file keeps PR 6's same finding out of its inline comments;
- a finding a push fixed is credited to the families and persona that reported it, and an
  outcome an earlier version recorded without its reporters is counted as credited to no
  one, and said so;
- the learnings PR's own merge causes no other learnings PR;
- a run that updates the open learnings PR moves its branch once, and the PR stays open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.model.base import Category, VerdictKind
from consensus.publish.decided import FindingOutcome, JudgeNote
from consensus.publish.state import STATE_VERSION, PublishState, encode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus.settings.learned import LEARNED_PATH, Learned, parse_learned
from consensus_sim.github_server import (
    BOT,
    FakeGitHub,
    PullRequest,
    human,
    is_write,
    load_pull_from_git,
)
from consensus_sim.provider_server import FakeProviderServer, Script
from tests.contract.test_github_openapi import SCHEDULE
from tests.e2e.test_action_e2e import (
    DB_AFTER,
    DB_BEFORE,
    DB_FIXED,
    MODELS,
    NUMBER,
    REPO,
    commit,
    config,
    git,
)
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


def seed_closed(world: World, numbers: tuple[int, ...] = tuple(KNOWN)) -> None:
    """PRs `numbers` closed on 2026-11-0N, their summaries holding KNOWN[N]'s outcomes."""
    repo = world.github.repos[REPO]
    for n, outcomes in ((n, KNOWN[n]) for n in numbers):
        base = repo.pulls[NUMBER].base_sha
        repo.pulls[n] = PullRequest(
            number=n, head_sha=base, base_sha=base, files=[], state="closed",
            closed_at=f"2026-11-0{n}T12:00:00Z", merged=n % 2 == 0,
        )  # fmt: skip
        line = encode_state(PublishState(outcomes=outcomes, closed="closed"))
        world.github.add_issue_comment(REPO, n, f"{SUMMARY_MARKER}\n## consensus\n{line}", BOT)


def schedule(world: World) -> list[str]:
    """The scheduled run with the `learnings` input; the writes it sent, in order: a GraphQL
    mutation by its name, a REST write as `POST git/trees`."""
    before = len(world.github.requests)
    run = world.run("schedule", SCHEDULE, CONSENSUS_LEARNINGS="true")
    assert run.code == 0, run.stderr
    writes = []
    for r in world.github.requests[before:]:
        if not is_write(r.method, r.body):
            continue
        query = str((r.body or {}).get("query") or "").strip() if r.path == "/graphql" else ""
        name = query.split("(")[0].removeprefix("mutation ")
        writes.append(name or f"{r.method} {r.path.split(f'/{REPO}/', 1)[-1]}")
    return writes


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

    made = ["POST git/trees", "POST git/commits", "ConsensusCreateRef", "ConsensusOpenPull"]
    assert schedule(world) == made
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


def learnings_pulls(world: World) -> list[PullRequest]:
    return [p for p in world.github.repos[REPO].pulls.values() if p.head_ref == BRANCH]


def description(world: World, number: int) -> str:
    return world.github.repos[REPO].issue_bodies[number]


def proposed(world: World) -> Learned:
    repo = world.github.repos[REPO]
    return parse_learned(repo.snapshots[repo.branches[BRANCH]][LEARNED_PATH])


def test_a_fix_is_credited_to_the_families_and_persona_that_reported_it(world: World) -> None:
    assert world.pull_event("opened").code == 0
    git(world.repo, "checkout", "-q", "feature")
    commit(world.repo, {"src/app/db.py": DB_FIXED}, "use a bound parameter")
    world.open_pr()  # the push
    assert world.pull_event("synchronize").code == 0
    [sql] = [t for t in state(world).findings if t.title.startswith("SQL injection")]
    assert (sql.resolved, sql.resolved_reason) == (True, "fixed")
    world.github.close_pull(REPO, NUMBER, merged=True, at="2026-11-08T12:00:00Z")
    assert world.pull_event("closed").code == 0
    estimated = state(world).panel  # the last run's estimate of its panel, kept at close
    assert estimated is not None and estimated.runs == 1
    # PR 3 closed before, its outcome recorded by an earlier version (state v5), which
    # lost the reporters of a finding a push fixed.
    repo = world.github.repos[REPO]
    base = repo.pulls[NUMBER].base_sha
    repo.pulls[3] = PullRequest(
        number=3, head_sha=base, base_sha=base, files=[], state="closed",
        closed_at="2026-11-03T12:00:00Z", merged=True,
    )  # fmt: skip
    lost = known(31, "fixed", ()).model_copy(update={"personas": ()})
    line = encode_state(PublishState(outcomes=(lost,), closed="merged"))
    old = line.replace(f" v{STATE_VERSION} ", " v5 ")
    world.github.add_issue_comment(REPO, 3, f"{SUMMARY_MARKER}\n## consensus\n{old}", BOT)

    schedule(world)
    # The hand count, from the script (tests/e2e/test_action_e2e.responder): every model
    # reports the SQL injection, which the push fixed; all but llama (meta) report the
    # off-by-one, left as it was; the one persona is correctness.
    fixed, left = {"openai", "anthropic", "meta", "qwen"}, {"openai", "anthropic", "qwen"}
    learned = proposed(world)
    assert {f: e.reporter.model_dump() for f, e in learned.families.items()} == {
        f: {"fixed": int(f in fixed), "dismissed": 0, "left": int(f in left)} for f in fixed
    }
    assert learned.personas["correctness"].model_dump() == {"fixed": 1, "dismissed": 0, "left": 1}
    assert learned.uncredited.model_dump() == {"fixed": 1, "dismissed": 0, "left": 0}
    assert learned.panel == estimated  # pooled: the only closed PR a run estimated
    [pull] = learnings_pulls(world)
    assert "credited to no one: 1 outcome(s) (1 fixed)" in description(world, pull.number)


def test_a_merged_learnings_pr_does_not_cause_the_next_one(world: World) -> None:
    seed_closed(world)
    schedule(world)
    [pull] = learnings_pulls(world)
    world.github.merge_pull(REPO, pull.number, at="2026-11-10T09:00:00Z")
    repo = world.github.repos[REPO]
    merged = repo.snapshots[repo.branches["main"]][LEARNED_PATH]
    assert merged == repo.snapshots[pull.head_sha][LEARNED_PATH]
    # Another PR closes with no finding of ours: its closing would move only the date.
    later = max(repo.pulls) + 1
    repo.pulls[later] = PullRequest(
        number=later, head_sha=pull.base_sha, base_sha=pull.base_sha, files=[],
        state="closed", closed_at="2026-11-11T09:00:00Z", head_ref="docs-typo",
    )  # fmt: skip

    assert schedule(world) == []  # nothing written, no other PR
    assert [p.number for p in learnings_pulls(world)] == [pull.number]
    assert repo.snapshots[repo.branches["main"]][LEARNED_PATH] == merged


def test_updating_the_open_learnings_pr_moves_its_branch_once_and_keeps_it_open(
    world: World,
) -> None:
    seed_closed(world, (2, 3))
    schedule(world)
    [pull] = learnings_pulls(world)
    first = pull.head_sha
    seed_closed(world, (4, 5))

    assert "closed since the start: #2, #3." in description(world, pull.number)
    writes = schedule(world)
    assert [(p.number, p.state) for p in learnings_pulls(world)] == [(pull.number, "open")]
    # The new commit first (on top of main), then the branch's one move; the description
    # says what the PR now proposes.
    moved = ["POST git/trees", "POST git/commits", "ConsensusMoveRef", "ConsensusDescribePull"]
    assert writes == moved
    assert "closed since the start: #2, #3, #4, #5." in description(world, pull.number)
    repo = world.github.repos[REPO]
    assert pull.head_sha == repo.branches[BRANCH] != first
    assert repo.ancestors[pull.head_sha] == {pull.head_sha, repo.branches["main"]}
    assert [f["filename"] for f in pull.files] == [LEARNED_PATH]
    families, personas = hand_count([o for group in KNOWN.values() for o in group])
    learned = proposed(world)
    assert {k: v.model_dump() for k, v in learned.families.items()} == families
    assert {k: v.model_dump() for k, v in learned.personas.items()} == personas
    assert schedule(world) == []  # the open PR already proposes this file
