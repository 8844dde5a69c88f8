"""Judges that look, in the quality simulation: the mechanism, not tuned figures.

The simulated judges plan their tool calls from the claim, the product answers them from
each PR's simulated repository, and a judge answers with its looking rates only when
what it was shown holds the line that decides the claim."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from dataclasses import replace

from benchmarks.sim.judge_presets import Judge, JudgePreset
from benchmarks.sim.looking_section import looking_params
from benchmarks.sim.looking_verifier import LookingVerifier
from benchmarks.sim.looking_world import CALLER, NEAR, TASTE, VIEWS, Repo, repository
from benchmarks.sim.quality_world import (
    HEADLINE,
    Outcome,
    Problem,
    SimParams,
    SimPR,
    decide,
    make_pr,
    now,
    verifier,
)
from consensus.inspect.snapshot import Snapshot, redactor
from consensus.model.findings import ScoredCluster, Vote
from consensus.review.guard import GuardedClient
from consensus.review.judge_tools import Looker
from consensus.review.ledger import Ledger
from consensus.review.verify import Reading, verify
from consensus.settings.config import ProviderSettings, Settings
from consensus.testing.trees import FakeTrees

# Blind, a judge confirms everything; once it has read the deciding line, it is right.
STAMP = Judge(tpr=1.0, tnr=0.0, uncertain=0.0)
RUBBER_STAMPS = JudgePreset(name="rubber stamps", judges=(), default=STAMP)
RIGHT = Judge(tpr=1.0, tnr=1.0, uncertain=0.0)
PRS = 12


def params() -> SimParams:
    return replace(looking_params(PRS, 1), judges=RUBBER_STAMPS)


def prs() -> Iterator[tuple[SimPR, Repo]]:
    chosen = params()
    for index in range(PRS):
        pr = make_pr(chosen, index)
        yield pr, repository(pr, chosen.seed, index)


def judged(pr: SimPR, repo: Repo, effect: float = 1.0, tools: bool = True) -> Outcome:
    """The default rule on `pr`, its judges looking through the product's Looker."""
    judge = LookingVerifier(pr, params(), repo, effect, looked=RIGHT)
    looker = Looker(Snapshot(repo.trees, redactor())) if tools else None
    return asyncio.run(decide(params(), pr, now(), *HEADLINE, client=judge.client(), looker=looker))


def invented(pr: SimPR, item: ScoredCluster) -> Problem | None:
    """The one invention a verified cluster is about, if that is all it is about."""
    about = {pr.about(m) for m in item.cluster.members}
    [problem] = about if len(about) == 1 else [None]
    return problem if problem is not None and not problem.real else None


def verdicts(outcome: Outcome) -> list[list[tuple[str, str | None]]]:
    return [
        [(v.family, v.verdict.value if v.verdict else None) for v in item.verification.votes]
        for item in outcome.items
        if item.verification is not None
    ]


@functools.cache
def looked_at() -> tuple[tuple[SimPR, Repo, Outcome], ...]:
    """Every PR decided once by judges that look (the outcomes the tests below read)."""
    return tuple((pr, repo, judged(pr, repo)) for pr, repo in prs())


def votes_on(place: str) -> Iterator[tuple[SimPR, Repo, Problem, Vote]]:
    """The votes on each judged invention whose refutation lies at `place`."""
    for pr, repo, outcome in looked_at():
        for item in outcome.items:
            problem = invented(pr, item)
            if problem is None or repo.where.get(problem) != place or item.verification is None:
                continue
            for vote in item.verification.votes:
                yield pr, repo, problem, vote


def test_a_judge_that_reads_the_guard_before_the_claim_refutes_it_citing_the_guard() -> None:
    refuted = 0
    for _, repo, problem, vote in votes_on(NEAR):
        guard = repo.truth[problem].decisive
        assert guard is not None
        if vote.self_vote:
            continue
        assert vote.verdict is not None and vote.verdict.value == "refuted"
        assert [(c.path, c.start_line) for c in vote.evidence] in (
            [(guard.path, guard.line)],
            [],  # a misquote: the product's check refused the citation
        )
        refuted += 1
    assert refuted > 0


def test_the_first_read_shows_the_caller_so_a_judge_that_looks_nothing_up_refutes() -> None:
    """The guard in the caller is in the question itself (the product read where the
    claim's function is called): the judge need not plan a lookup to see it."""
    refuted = 0
    for _, repo, problem, vote in votes_on(CALLER):
        if not repo.trees.head[problem.path].startswith("def handle_"):
            continue  # a hunk from line 1 has no function around it: no caller to read
        guard = repo.truth[problem].decisive
        assert guard is not None and guard.path == VIEWS
        if vote.self_vote:
            continue
        assert vote.verdict is not None and vote.verdict.value == "refuted"
        assert vote.looked[0].startswith("inline ") and VIEWS in vote.looked[0]
        refuted += 1
    assert refuted > 0


def test_a_taste_call_has_nothing_to_read_and_its_judges_answer_blind() -> None:
    blind = 0
    for _, _, _, vote in votes_on(TASTE):
        assert vote.verdict is not None and vote.verdict.value == "confirmed"
        assert not vote.grounded and not vote.evidence
        blind += 1
    assert blind > 0


def test_at_effect_none_every_question_gets_the_blind_judges_answer() -> None:
    chosen = replace(params(), judges=JudgePreset(name="agreeable-ish", judges=(),
                                                  default=Judge(0.96, 0.3, 0.1)))  # fmt: skip
    for pr, repo in prs():
        looking = LookingVerifier(pr, chosen, repo, 0.0)
        looker = Looker(Snapshot(repo.trees, redactor()))
        looked = asyncio.run(
            decide(chosen, pr, now(), *HEADLINE, client=looking.client(), looker=looker)
        )
        blind = asyncio.run(decide(chosen, pr, now(), *HEADLINE, client=verifier(pr, chosen)))
        # Each question asked in both runs gets the same answer. Which questions are asked
        # after the first round may differ: grounded votes are weighed under their own key.
        for seen, unseen in zip(verdicts(looked), verdicts(blind), strict=True):
            shared = min(len(seen), len(unseen))
            assert seen[:shared] == unseen[:shared]
        assert looking.counts.tool_calls > 0 or not verdicts(looked)


def test_the_product_answers_the_judges_tool_calls_from_the_prs_tree_not_the_truth() -> None:
    # The same truth, a tree without the callers' checks: the judge no longer reads them.
    seen_before = seen_after = 0
    for pr, repo in prs():
        head = dict(repo.trees.head)
        head[VIEWS] = "\n".join(
            line for line in str(head[VIEWS]).split("\n") if "ensure_" not in line
        )
        stripped = replace(repo, trees=FakeTrees(head=head, base=repo.trees.base))
        for tree, counted in ((repo, True), (stripped, False)):
            for item in judged(pr, tree).items:
                problem = invented(pr, item)
                if problem is None or repo.where.get(problem) != CALLER or not item.verification:
                    continue
                refuted = sum(
                    1
                    for v in item.verification.votes
                    if v.verdict is not None and v.verdict.value == "refuted"
                )
                if counted:
                    seen_before += refuted
                else:
                    seen_after += refuted
    assert seen_before > 0 and seen_after == 0


def test_the_hard_token_cap_holds_with_the_tool_rounds() -> None:
    chosen = params()
    pr, repo = next(p for p in prs() if p[0].bugs)
    threshold, k = HEADLINE
    scored = asyncio.run(decide(chosen, pr, now(asks=False), threshold, None)).items
    panel = [ProviderSettings(model=r.model, family=r.family) for r in chosen.reviewers]

    def spent(cap: int | None) -> tuple[int, int]:
        settings = Settings.model_validate(
            {"threshold": threshold, "inspector": {"ahead_by": k},
             "budget": {"max_cost_usd": None, "max_tokens": cap}}
        )  # fmt: skip
        ledger = Ledger(settings.budget)
        judge = LookingVerifier(pr, chosen, repo, 1.0, looked=RIGHT)
        asyncio.run(
            verify(scored, diff=pr.diff, panel=panel, settings=settings,
                   client=GuardedClient(judge.client(), ledger), ledger=ledger,
                   reading=Reading(looker=Looker(Snapshot(repo.trees, redactor())))),
        )  # fmt: skip
        return ledger.tokens, judge.counts.tool_calls

    uncapped, looked = spent(None)
    cap = uncapped // 3
    capped, _ = spent(cap)

    assert looked > 0 and 0 < capped <= cap
