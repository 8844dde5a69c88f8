"""The simulated analyzer beside the quality world, small: facts the vote guarantees
whatever the draws, through the product's real align and score."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from benchmarks.sim.analyzer_world import CAUGHT, Analyzer, analyzer_run
from benchmarks.sim.quality_world import DEFAULT, about_bug, make_pr, results_of, verifier
from consensus.model.analysis import Posting
from consensus.model.base import FindingSource
from consensus.review.ledger import Ledger
from consensus.review.vote import Ballot, align_and_score
from consensus.settings.config import BudgetSettings, ProviderSettings, Settings

SMALL = replace(DEFAULT, prs=12)


def test_the_analyzer_is_blind_to_the_kinds_no_rule_catches() -> None:
    for index in range(SMALL.prs):
        pr = make_pr(SMALL, index)
        for result in analyzer_run(pr, Analyzer(recall=1.0, fp_per_pr=0.0), 1, index).results:
            bug = about_bug(pr.bugs, result.path, result.line, result.end_line)
            assert bug is not None and bug.kind.name in CAUGHT


def test_with_a_models_agreement_nothing_the_analyzer_alone_reported_is_posted() -> None:
    settings = Settings(budget=BudgetSettings(max_cost_usd=None, max_tokens=None))
    panel = [ProviderSettings(model=r.model, family=r.family) for r in SMALL.reviewers]
    seen_alone = 0
    for index in range(SMALL.prs):
        pr = make_pr(SMALL, index)
        run = analyzer_run(pr, Analyzer(posting=Posting.WITH_MODELS, fp_per_pr=1.0), 1, index)
        ballot = Ballot(pr.diff, settings, verifier(pr, SMALL), Ledger(settings.budget), panel)
        scored, _ = asyncio.run(align_and_score(ballot, results_of(SMALL, pr), [run], ask=True))
        for item in scored:
            sources = {m.source for m in item.cluster.members}
            if sources == {FindingSource.ANALYZER}:
                seen_alone += 1
                assert not item.status.posted
            if FindingSource.ANALYZER in sources and FindingSource.MODEL in sources:
                assert item.status.posted
    assert seen_alone  # the noise rule fired somewhere no model looked
