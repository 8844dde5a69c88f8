"""A family's soft counts have one shape (model/history.SoftCounts), and every layer reads
and writes it by name: the history's tallies, the run's tally, the pseudo-counts the estimate
adds them to. Each test gives every field a value of its own, so a count read under
another's name shows."""

from __future__ import annotations

import pytest

from consensus.decide.panel_counts import parts
from consensus.decide.panel_prior import Beta, Verdicts, known_counts
from consensus.decide.panel_rates import Observed, estimate
from consensus.model.base import VerdictKind
from consensus.model.calibration import Calibration
from consensus.model.history import (
    FamilyTally,
    JudgeTally,
    PanelTally,
    ReportTally,
    SoftCounts,
    grounded_key,
)

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN
PANEL = frozenset({"openai", "anthropic", "google", "qwen"})

# A family's history as a learnings file holds it, every count different.
JUDGE = JudgeTally(
    confirmed_real=11.5,
    refuted_real=1.25,
    uncertain_real=0.75,
    confirmed_false=4.5,
    refuted_false=6.25,
    uncertain_false=2.0,
)
REPORTER = ReportTally(reported_real=9.5, silent_real=3.25, reported_false=2.75, silent_false=30.5)
GROUNDED = JudgeTally(
    confirmed_real=3.5,
    refuted_real=0.5,
    uncertain_real=0.25,
    confirmed_false=0.75,
    refuted_false=5.5,
    uncertain_false=1.5,
)


def test_the_shape_holds_the_historys_fields_and_the_runs_repeats() -> None:
    history = [*JudgeTally.model_fields, *ReportTally.model_fields]
    # In any order: every layer reads it by name.
    assert sorted(SoftCounts._fields) == sorted([*history, "repeated", "fresh"])


def test_the_historys_counts_go_in_and_come_back_by_name() -> None:
    counts = SoftCounts.of(JUDGE, REPORTER)
    for name, value in [*JUDGE.model_dump().items(), *REPORTER.model_dump().items()]:
        assert getattr(counts, name) == value, name
    assert (counts.repeated, counts.fresh) == (0.0, 0.0)  # the history does not keep them
    assert counts.judge() == JUDGE
    assert counts.reporter() == REPORTER
    assert SoftCounts.of(GROUNDED).reporter() == ReportTally()


def test_a_history_file_reads_into_the_estimates_pseudo_counts_by_name() -> None:
    stored = {
        "runs": 3,
        "families": {
            "openai": {
                "judge": JUDGE.model_dump(),
                "grounded": GROUNDED.model_dump(),
                "reporter": REPORTER.model_dump(),
            }
        },
    }
    history = PanelTally.model_validate(stored)
    assert history.model_dump(mode="json")["families"] == stored["families"]
    known = known_counts(Calibration(history=history))
    assert known.real_verdicts["openai"] == Verdicts.of(11.5, 1.25, 0.75)
    assert known.false_verdicts["openai"] == Verdicts.of(4.5, 6.25, 2.0)
    assert known.recall["openai"] == Beta(9.5, 3.25)
    assert known.invention["openai"] == Beta(2.75, 30.5)
    key = grounded_key("openai")
    assert known.real_verdicts[key] == Verdicts.of(3.5, 0.5, 0.25)
    assert known.false_verdicts[key] == Verdicts.of(0.75, 5.5, 1.5)
    assert key not in known.recall  # a grounded key judges, it never reports


def test_a_runs_counts_give_each_rate_its_own_counts() -> None:
    counts = SoftCounts(
        confirmed_real=1.0,
        refuted_real=2.0,
        uncertain_real=3.0,
        confirmed_false=4.0,
        refuted_false=5.0,
        uncertain_false=6.0,
        reported_real=7.0,
        silent_real=8.0,
        reported_false=9.0,
        silent_false=10.0,
        repeated=11.0,
        fresh=12.0,
    )
    got = parts(counts)
    # Confirmed against the rest; of the rest, uncertain against refuted.
    assert got.real == Verdicts(Beta(1.0, 2.0 + 3.0), Beta(3.0, 2.0))
    assert got.false == Verdicts(Beta(4.0, 5.0 + 6.0), Beta(6.0, 5.0))
    assert (got.recall, got.invention) == (Beta(7.0, 8.0), Beta(9.0, 10.0))
    assert got.repeat == Beta(11.0, 12.0)
    twice = SoftCounts.total([counts, counts._replace(fresh=0.5)])
    doubled = {name: 2 * value for name, value in counts._asdict().items()}
    assert twice == SoftCounts(**doubled | {"fresh": 12.5})
    assert SoftCounts.total([]) == SoftCounts()


def only(**counts: float) -> object:
    """A judge's tally with these counts and none else, to compare a run's soft counts to."""
    return pytest.approx(JudgeTally().model_dump() | counts)


def test_a_runs_tally_puts_each_verdict_and_report_under_its_name() -> None:
    # Anthropic confirms, google refutes, qwen doubts, qwen's grounded key refutes; openai
    # reports two claims of three and judges none.
    claims = [
        Observed(
            reporters=frozenset(reporters),
            reviewers=PANEL,
            verdicts=(("anthropic", C), ("google", R), ("qwen", U), (grounded_key("qwen"), R)),
        )
        for reporters in (["openai"], ["openai", "google"], ["qwen"])
    ]
    run = estimate(claims)
    real = sum(run.posteriors)
    false = len(claims) - real
    families = run.data.families
    assert families["openai"].judge == JudgeTally()
    assert families["openai"].reporter.reported_real == pytest.approx(
        run.posteriors[0] + run.posteriors[1]
    )
    assert families["openai"].reporter.silent_real == pytest.approx(run.posteriors[2])
    held_false = [1 - p for p in run.posteriors]
    assert families["openai"].reporter.reported_false == pytest.approx(
        held_false[0] + held_false[1]
    )
    assert families["openai"].reporter.silent_false == pytest.approx(held_false[2])
    assert families["anthropic"].judge.model_dump() == only(
        confirmed_real=real, confirmed_false=false
    )
    assert families["google"].judge.model_dump() == only(refuted_real=real, refuted_false=false)
    assert families["qwen"].judge.model_dump() == only(uncertain_real=real, uncertain_false=false)
    assert families["qwen"].grounded.model_dump() == only(refuted_real=real, refuted_false=false)
    assert families["qwen"].reporter.model_dump() == pytest.approx(
        {
            "reported_real": run.posteriors[2],
            "silent_real": run.posteriors[0] + run.posteriors[1],
            "reported_false": held_false[2],
            "silent_false": held_false[0] + held_false[1],
        }
    )
    assert families["qwen"].grounded.total == pytest.approx(len(claims))
    assert FamilyTally.model_validate(families["qwen"].model_dump()) == families["qwen"]
