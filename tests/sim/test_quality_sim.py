"""The quality simulation, small: facts the decision logic guarantees, not tuned figures.

Each runs the product's real align/score/verify on a few dozen synthetic PRs
(benchmarks/quality_bench.py) and checks something that holds whatever the random draws.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from benchmarks.sim.judge_presets import impartial
from benchmarks.sim.quality_world import (
    DEFAULT,
    MAJORITY,
    UNION,
    Reviewer,
    SimParams,
    SimPR,
    SimResult,
    about_bug,
    consensus_only,
    decide,
    make_pr,
    now,
    settings_for,
    single,
    verifier,
    with_voting,
)
from benchmarks.sim.quality_world import simulate as run_simulation
from consensus.decide.ahead_by import ahead_by_for, lead_for
from consensus.decide.align import align
from consensus.decide.score import score
from consensus.model.base import Severity, Status
from consensus.model.findings import ModelReview, ScoredCluster
from consensus.review.ledger import Ledger
from consensus.review.pipeline import coverage
from consensus.review.verify import Reading, verify
from consensus.settings.config import ProviderSettings

SMALL = replace(DEFAULT, prs=30, thresholds=(0.5, 0.75, 1.0), ks=(2,))


def simulate(params: SimParams) -> SimResult:
    """The simulation through today's code only: the figures of the old code are the
    benchmark's business, not a fact a test checks."""
    return run_simulation(params, with_today=False)


def scored_prs(params: SimParams, threshold: float) -> list[tuple[SimPR, list[ScoredCluster]]]:
    """(PR, scored clusters) for every PR, through the real align and score."""
    out = []
    for index in range(params.prs):
        pr = make_pr(params, index)
        results = [
            ModelReview(
                provider=r.model,
                family=r.family,
                persona="correctness",
                chunk=0,
                paths=tuple(f.path for f in pr.diff.files),
                findings=findings,
            )
            for r, findings in zip(params.reviewers, pr.reviews, strict=True)
        ]
        clusters = align([f for review in results for f in review.findings])
        items = score(
            clusters,
            coverage(results),
            threshold=threshold,
            verify_min_severity=Severity.MEDIUM,
            check_min_severity=Severity.HIGH,
        )
        out.append((pr, items))
    return out


def test_perfect_verifiers_that_also_check_consensus_post_only_real_bugs() -> None:
    result = simulate(replace(SMALL, judges=impartial(1.0), check_consensus=True))
    for t in SMALL.thresholds:
        posted = result.tallies[with_voting(t, 2)]
        assert posted.tp > 0
        assert posted.fp == 0, t


def test_with_perfect_verifiers_verification_adds_no_false_positive() -> None:
    result = simulate(replace(SMALL, judges=impartial(1.0)))
    for t in SMALL.thresholds:
        alone, checked = result.tallies[consensus_only(t)], result.tallies[with_voting(t, 2)]
        assert checked.fp <= alone.fp, t  # … and removes the severe wrong consensus
        assert checked.tp > alone.tp, t  # disputed real bugs were verified and posted
    t = 0.75
    assert result.tallies[with_voting(t, 2)].fp < result.tallies[consensus_only(t)].fp


@pytest.mark.parametrize("k", [1, 2, 3])
def test_perfect_verifiers_stop_after_exactly_the_lead_per_finding(k: int) -> None:
    # k to reject; k, or k + 1 for a finding only one family reported, to verify.
    # The symmetric rule: every vote counts the same.
    params = replace(SMALL, prs=10, judges=impartial(1.0), rule="ahead-by-k")
    panel = [ProviderSettings(model=r.model, family=r.family) for r in params.reviewers]
    for pr, items in scored_prs(params, 0.75):
        client = verifier(pr, params)
        settings = settings_for(params, 0.75, k)
        ledger = Ledger(settings.budget)
        checked = asyncio.run(
            verify(
                items,
                diff=pr.diff,
                panel=panel,
                settings=settings,
                client=client,
                ledger=ledger,
                reading=Reading(),
            )
        ).items
        calls = 0
        for before, after in zip(items, checked, strict=True):
            if not before.needs_verification:
                assert after == before
                continue
            real = about_bug(
                pr.bugs, after.cluster.path, after.cluster.line, after.cluster.end_line
            )
            lead = lead_for(before.cluster, settings.inspector)
            assert lead.reject == ahead_by_for(before.cluster, k)
            calls += lead.verify if real else lead.reject
            confirmed = Status.CONSENSUS if before.status is Status.CONSENSUS else Status.VERIFIED
            assert after.status is (confirmed if real else Status.REJECTED)
        assert len(client.calls) == calls


def test_a_single_reviewer_never_reaches_consensus() -> None:
    # Only what the scan proves by itself (committed keys) is posted without a second family.
    alone = replace(SMALL, reviewers=(DEFAULT.reviewers[0],))
    for index in range(alone.prs):
        pr = make_pr(alone, index)
        for t in alone.thresholds:
            items = asyncio.run(decide(alone, pr, now(), t, None)).items
            posted = [s for s in items if s.status.posted]
            assert all("consensus" in s.cluster.families for s in posted), t
    assert simulate(alone).tallies[single(0, alone.reviewers[0])].tp > 0


def test_consensus_grows_as_the_threshold_falls() -> None:
    by_threshold = {t: scored_prs(SMALL, t) for t in (1.0, 0.75, 0.5)}
    for n in range(SMALL.prs):
        agreed = [
            {s.cluster.fingerprint for s in by_threshold[t][n][1] if s.status is Status.CONSENSUS}
            for t in (1.0, 0.75, 0.5)
        ]
        assert agreed[0] <= agreed[1] <= agreed[2]


def test_verification_keeps_every_consensus_finding_it_was_not_asked_to_check() -> None:
    # Unanimous consensus, or below check_consensus_min_severity: posted whatever the votes.
    # (The clusters are the words' here: asking "same problem?" would change them.)
    params = replace(SMALL, prs=12, judges=impartial(0.0))
    panel = [ProviderSettings(model=r.model, family=r.family) for r in params.reviewers]
    settings = settings_for(params, 0.75, 2)
    for pr, before in scored_prs(params, 0.75):
        after = asyncio.run(
            verify(
                before,
                diff=pr.diff,
                panel=panel,
                settings=settings,
                client=verifier(pr, params),
                ledger=Ledger(settings.budget),
                reading=Reading(),
            )
        ).items
        assert any(s.verification is not None for s in after) or not any(
            s.needs_verification for s in before
        )
        for item, checked in zip(before, after, strict=True):
            if item.status is Status.CONSENSUS and not item.needs_verification:
                assert checked == item


def test_verifiers_that_are_always_wrong_never_confirm_a_real_bug() -> None:
    # Wrong answers on a real bug are `refuted` or `uncertain`: both count against (fail closed).
    # (Told the judges are always wrong, the weighed rule would read their verdicts inverted.)
    params = replace(SMALL, prs=12, judges=impartial(0.0), calibrated=False)
    checked = 0
    for index in range(params.prs):
        pr = make_pr(params, index)
        for item in asyncio.run(decide(params, pr, now(), 0.75, 2)).items:
            if item.verification is None or not item.verification.votes:
                continue
            checked += 1
            about = {pr.about(m) for m in item.cluster.members} - {None}
            if any(p.real for p in about if p is not None):
                assert item.status not in (Status.VERIFIED,), item.reason
                assert item.verification.confirmed == 0
    assert checked > 0  # the judges were asked: the test can fail


def test_identical_reports_at_the_same_line_are_one_finding_each() -> None:
    perfect = tuple(replace(r, recall=1.0, fp_per_pr=0.0, noise=0) for r in DEFAULT.reviewers)
    params = replace(
        SMALL, reviewers=perfect, shared_fp_per_pr=0.0, shared3_fp_per_pr=0.0, paraphrase=False
    )
    result = simulate(params)
    for name in (UNION, MAJORITY, consensus_only(1.0), with_voting(1.0, 2)):
        t = result.tallies[name]
        assert (t.precision, t.recall, t.duplicates) == (1.0, 1.0, 0), name
    assert result.tallies[with_voting(1.0, 2)].calls == len(perfect) * params.prs  # no voting


def test_paraphrased_reports_at_the_same_line_are_one_finding_each() -> None:
    # One problem reported in other words by four models is one finding.
    perfect = tuple(
        Reviewer(r.model, r.family, recall=1.0, fp_per_pr=0.0, noise=0) for r in DEFAULT.reviewers
    )
    # Where the words cannot decide, "same problem?" is asked; answered right, nothing is left
    # in two pieces. (Without asking, the words alone leave some apart: see the benchmark.)
    params = replace(
        SMALL, reviewers=perfect, shared_fp_per_pr=0.0, shared3_fp_per_pr=0.0, same_accuracy=1.0
    )
    result = simulate(params)
    asked = result.tallies[with_voting(0.75, 2)]
    assert asked.same_calls > 0
    assert asked.duplicates == 0 and asked.found == asked.bugs


@pytest.mark.parametrize("configured", [False, True], ids=["default-judges", "configured"])
def test_no_verifier_judges_its_own_familys_claim_while_another_answered(
    configured: bool,
) -> None:
    params = replace(SMALL, prs=10)
    families = {r.family for r in params.reviewers}
    judged = 0
    for index in range(params.prs):
        pr = make_pr(params, index)
        items = asyncio.run(decide(params, pr, now(configured=configured), 0.75, 2)).items
        for item in items:
            if item.verification is None:
                continue
            reporters = item.cluster.families
            for vote in item.verification.votes:
                judged += 1
                assert vote.self_vote is (vote.family in reporters)
                if families - reporters:  # another family answered: it judges, not them
                    assert vote.family not in reporters
    assert judged > 0
