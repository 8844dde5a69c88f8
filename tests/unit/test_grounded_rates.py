"""A family's grounded verdicts (it cited lines, and every citation held) are weighed and
counted apart from its blind ones (decide/evidence.judge_of, model/history.GROUNDED): a
family that rubber-stamps blind but refutes once it has read the code is trusted for what
it does when it looks, and cold, with nothing known, the two start alike."""

from __future__ import annotations

from dataclasses import replace

import pytest

from consensus.decide.evidence import belief, judge_of, observed
from consensus.decide.panel_rates import estimate, known_counts
from consensus.model.base import VerdictKind
from consensus.model.calibration import Calibration
from consensus.model.findings import Vote
from consensus.model.history import FamilyTally, JudgeTally, PanelTally, grounded_key
from consensus.model.reply import Citation
from tests.unit.test_evidence import claim
from tests.unit.test_panel_rates import PANEL, agreed, singletons

C, R = VerdictKind.CONFIRMED, VerdictKind.REFUTED
GUARD = Citation(path="src/app/db.py", start_line=12, quote="if not ids: return []")


def vote(kind: VerdictKind, family: str, grounded: bool) -> Vote:
    evidence = (GUARD,) if grounded else ()
    return Vote(model=f"{family}/m", family=family, role="voter", verdict=kind, reason="",
                grounded=grounded, evidence=evidence)  # fmt: skip


def looks_then_refutes(family: str) -> Calibration:
    """A history in which `family` confirmed nearly every invention it judged blind and
    refuted nearly every one it judged with the code read; real claims confirmed both ways."""
    blind = JudgeTally(confirmed_real=60, refuted_real=2, confirmed_false=54, refuted_false=6)
    looked = JudgeTally(confirmed_real=60, refuted_real=2, confirmed_false=6, refuted_false=54)
    tally = FamilyTally(judge=blind, grounded=looked)
    return Calibration(history=PanelTally(runs=40, families={family: tally}))


def test_a_grounded_vote_is_weighed_under_its_familys_grounded_key() -> None:
    assert judge_of(vote(R, "google", grounded=True)) == grounded_key("google")
    assert judge_of(vote(R, "google", grounded=False)) == "google"
    seen = observed(claim("openai"), [vote(R, "google", True), vote(C, "qwen", False)], set())
    assert seen.verdicts == ((grounded_key("google"), R), ("qwen", C))


def test_a_family_that_rubber_stamps_blind_is_trusted_for_what_it_does_when_it_looks() -> None:
    seen = observed(claim("openai"), [vote(C, "google", True)], frozenset(PANEL))
    panel = estimate([seen], known_counts(looks_then_refutes("google")))
    blind, looking = panel.family("google"), panel.family(grounded_key("google"))
    assert blind.tnr < 0.25
    assert looking.tnr > 0.8
    assert panel.weight(grounded_key("google"), C) > panel.weight("google", C) + 1.5


def test_a_grounded_confirmation_verifies_a_claim_a_blind_one_leaves_open() -> None:
    known = known_counts(looks_then_refutes("google"))
    one_family = claim("openai")
    levels = {}
    for grounded in (False, True):
        votes = [vote(C, "google", grounded)]
        panel = estimate([observed(one_family, votes, frozenset(PANEL))], known)
        levels[grounded] = belief(panel, observed(one_family, votes, frozenset(PANEL)), votes)
    assert levels[True] > levels[False] + 1.5


@pytest.mark.parametrize(
    "say",
    [
        dict.fromkeys(PANEL, R),
        dict.fromkeys(PANEL, C),
        {"openai": C, "anthropic": R, "google": C, "qwen": R},
    ],
)
def test_cold_the_grounded_and_the_blind_start_from_the_same_prior(
    say: dict[str, VerdictKind],
) -> None:
    # Nothing known: the same votes, all of them grounded, decide as they do all blind.
    claims = [*singletons(say), *agreed()]
    looked = [
        replace(c, verdicts=tuple((grounded_key(f), v) for f, v in c.verdicts)) for c in claims
    ]
    blind, grounded = estimate(claims), estimate(looked)
    assert grounded.posteriors == pytest.approx(blind.posteriors, abs=1e-9)
    for family in PANEL:
        assert grounded.family(grounded_key(family)).tnr == pytest.approx(
            blind.family(family).tnr, abs=1e-9
        )


def test_a_run_adds_its_grounded_verdicts_to_the_history_apart() -> None:
    votes = [vote(R, "google", True), vote(C, "qwen", False)]
    panel = estimate([observed(claim("openai"), votes, frozenset(PANEL))])
    tally = panel.data.families
    assert grounded_key("google") not in tally  # the history keys families, not keys
    assert tally["google"].grounded.total == pytest.approx(1.0)
    assert tally["google"].judge.total == pytest.approx(0.0)
    assert tally["qwen"].grounded.total == 0 and tally["qwen"].judge.total == pytest.approx(1.0)
    pooled = PanelTally().plus(panel.data).plus(panel.data)
    assert pooled.families["google"].grounded.total == pytest.approx(2.0, abs=0.02)
    known = known_counts(Calibration(history=pooled))
    assert known.pooled[grounded_key("google")] == pytest.approx(2.0, abs=0.02)


def test_a_history_written_before_grounded_verdicts_were_kept_reads_as_all_blind() -> None:
    old = {"families": {"google": {"judge": {"confirmed_false": 9.0}, "reporter": {}}}}
    history = PanelTally.model_validate(old)
    assert history.families["google"].grounded.total == 0
    known = known_counts(Calibration(history=history))
    assert grounded_key("google") not in known.false_verdicts
    dumped = history.model_dump(mode="json")
    assert "grounded" not in dumped["families"]["google"]  # nothing written where none kept
