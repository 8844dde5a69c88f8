"""`.consensus/learned.yml`: five closed PRs counted against a hand count, nothing new
(or only PRs without outcomes) changes nothing, outcomes that name no reporter are counted
apart and said so, suppressions match later findings, the strict schema, the calibration
mapping, and `consensus learned`'s table with Wilson intervals."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from consensus.app.learnings_run import pull_body
from consensus.cli.main import cli
from consensus.decide.panel_rates import known_counts
from consensus.errors import ConfigError
from consensus.model.base import Category, VerdictKind
from consensus.model.history import FamilyTally, JudgeTally, PanelTally
from consensus.model.host import GITHUB_WORDS
from consensus.publish.decided import FindingOutcome, JudgeNote
from consensus.publish.learnings import (
    ClosedPull,
    learn,
    learned_marks,
    path_pattern,
    suppression_for,
)
from consensus.publish.plan import Placement, Scope, plan_publish
from consensus.publish.state import STATE_VERSION, PublishState, decode_state, encode_state
from consensus.publish.summary import render_summary
from consensus.publish.thread import PullRequestThread
from consensus.render.learned_tables import rate
from consensus.settings.calibration_file import with_learned_calibration
from consensus.settings.config import PublishSettings, Settings
from consensus.settings.learned import (
    LEARNED_PATH,
    Learned,
    dump_learned,
    learned_calibration,
    parse_learned,
)
from tests.unit.test_publish import make, report

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN


def outcome(
    n: int,
    kind: str,
    families: tuple[str, ...],
    judges: tuple[tuple[str, VerdictKind], ...] = (),
    *,
    persona: str = "correctness",
    title: str = "Off-by-one in the retry loop",
    path: str = "src/app/jobs.py",
    by: str = "",
    reason: str = "",
) -> FindingOutcome:
    return FindingOutcome(
        fingerprint=f"{n:016x}",
        id=f"F{n}",
        path=path,
        category=Category.BUG,
        title=title,
        outcome=kind,  # type: ignore[arg-type]
        families=families,
        personas=(persona,),
        judges=tuple(JudgeNote(family=f, verdict=v) for f, v in judges),
        by=by,
        reason=reason,
    )


LOCK = "Lock not held when the counter is updated"
FIVE = [
    ClosedPull(
        number=1,
        closed_at="2026-11-01T10:00:00Z",
        outcomes=(
            outcome(1, "fixed", ("openai", "anthropic"), (("meta", C),)),
            outcome(
                2,
                "dismissed",
                ("openai",),
                (("anthropic", C), ("meta", R)),
                persona="performance",
                title=LOCK,
                path="src/app/counter.py",
                by="maria",
                reason="the caller holds the lock",
            ),
        ),
    ),
    ClosedPull(
        number=2,
        closed_at="2026-11-03T09:00:00Z",
        outcomes=(outcome(3, "left", ("openai",), (("meta", C),)),),
    ),
    ClosedPull(
        number=3,
        closed_at="2026-11-05T08:00:00Z",
        outcomes=(outcome(4, "fixed", ("anthropic",), (("openai", R), ("meta", U))),),
    ),
    ClosedPull(
        number=4,
        closed_at="2026-11-07T12:00:00Z",
        outcomes=(outcome(5, "dismissed", ("meta",), (("openai", R),), by="maria"),),
    ),
    ClosedPull(number=5, closed_at="2026-11-09T12:00:00Z", outcomes=()),
]


def test_five_closed_prs_count_as_a_hand_count() -> None:
    learned = learn(Learned(), FIVE)
    counts = {
        f: (e.reporter.model_dump(), e.judge.model_dump()) for f, e in learned.families.items()
    }
    assert counts == {
        # reporter: F1, F2, F3 / judge: F4 refuted (real: missed), F5 refuted (false)
        "openai": (
            {"fixed": 1, "dismissed": 1, "left": 1},
            {"confirmed_real": 0, "missed_real": 1, "refuted_false": 1, "confirmed_false": 0},
        ),
        # reporter: F1, F4 / judge: F2 confirmed a false one
        "anthropic": (
            {"fixed": 2, "dismissed": 0, "left": 0},
            {"confirmed_real": 0, "missed_real": 0, "refuted_false": 0, "confirmed_false": 1},
        ),
        # reporter: F5 / judge: F1 confirmed (real), F2 refuted (false); F3 left, F4 uncertain
        "meta": (
            {"fixed": 0, "dismissed": 1, "left": 0},
            {"confirmed_real": 1, "missed_real": 0, "refuted_false": 1, "confirmed_false": 0},
        ),
    }
    assert {p: c.model_dump() for p, c in learned.personas.items()} == {
        "correctness": {"fixed": 2, "dismissed": 1, "left": 1},
        "performance": {"fixed": 0, "dismissed": 1, "left": 0},
    }
    [rule] = learned.suppressions  # F5 was dismissed without a reason: no rule
    assert (rule.path, rule.kind, rule.words, rule.reason, rule.pr, rule.by) == (
        "/src/app/**/*.py",
        "race",
        LOCK,
        "the caller holds the lock",
        1,
        "maria",
    )
    # the newest PR counted: #5 closed later, with no finding of ours (no outcome to count)
    assert learned.updated_through == "2026-11-07T12:00:00Z"


def test_a_second_run_with_nothing_new_changes_nothing() -> None:
    once = learn(Learned(), FIVE)
    text = dump_learned(once)
    assert parse_learned(text) == once
    again = learn(parse_learned(text), FIVE)
    assert dump_learned(again) == text


def test_a_pr_without_outcomes_changes_nothing_not_even_the_date() -> None:
    once = learn(Learned(), FIVE)
    merged = ClosedPull(number=6, closed_at="2026-11-10T08:00:00Z")  # the learnings PR, say
    assert learn(once, [*FIVE, merged]) == once


def test_outcomes_that_name_no_reporter_are_counted_apart_and_said_so(tmp_path: Path) -> None:
    # PR 7's fix was recorded by an earlier version, which lost its reporters.
    lost = outcome(7, "fixed", ()).model_copy(update={"personas": ()})
    seven = ClosedPull(number=7, closed_at="2026-11-12T08:00:00Z", outcomes=(lost,))
    before = learn(Learned(), FIVE)
    after = learn(before, [seven])
    assert after.families == before.families and after.personas == before.personas
    assert after.uncredited.model_dump() == {"fixed": 1, "dismissed": 0, "left": 0}
    text = dump_learned(after)
    assert "uncredited: {fixed: 1, dismissed: 0, left: 0}" in text.splitlines()
    assert parse_learned(text) == after
    assert "uncredited" not in dump_learned(before)  # written only when there are some
    body = pull_body(before, after, (7,))
    assert "- credited to no one: 1 outcome(s) (1 fixed), recorded by an earlier" in body
    path = tmp_path / "learned.yml"
    path.write_text(text)
    done = CliRunner().invoke(cli, ["learned", "--file", str(path)])
    assert "credited to no one: 1 outcome(s) (1 fixed), recorded by an earlier" in done.output


def test_a_dismissed_finding_is_suppressed_later_on_the_same_pattern() -> None:
    learned = learn(Learned(), FIVE)
    body = "`self.count += 1` runs without the lock held."
    hit = suppression_for(
        learned,
        path="src/app/workers/counter.py",
        title="Counter updated while the lock is not held",
        body=body,
        category=Category.BUG,
    )
    assert hit is not None and hit.pr == 1
    for path, title in (
        ("docs/counter.py", "Counter updated while the lock is not held"),  # another directory
        ("src/app/counter.py", "SQL injection in get_user"),  # another kind
    ):
        miss = suppression_for(learned, path=path, title=title, body="", category=Category.BUG)
        assert miss is None, (path, title)


def test_path_patterns_of_suppressions() -> None:
    assert path_pattern("src/app/db.py") == "/src/app/**/*.py"
    assert path_pattern("Makefile") == "/Makefile"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("version: 2\n", "version"),
        ("families:\n  openai:\n    reporter: {fixd: 1}\n", "families.openai.reporter.fixd"),
        ("families:\n  openai:\n    judge: {confirmed_real: -1}\n", "confirmed_real"),
        ("suppressions:\n  - {path: 'a', kind: race}\n", "suppressions.0.words"),
        ("updated_through: yesterday\n", "updated_through"),
    ],
)
def test_the_schema_is_strict_and_names_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_learned(text)
    assert key in raised.value.message and ".consensus/learned.yml" in raised.value.message


def test_a_person_may_delete_any_line() -> None:
    edited = "version: 1\nfamilies:\n  openai:\n    reporter: {fixed: 3}\n"
    learned = parse_learned(edited)
    assert learned.families["openai"].reporter.dismissed == 0
    assert learned.suppressions == ()


def test_the_learnings_are_labels_however_few_and_their_panel_the_history() -> None:
    pooled = PanelTally(runs=3, families={"openai": FamilyTally(judge=JudgeTally(refuted_false=4))})
    learned = Learned.model_validate(
        {
            "families": {
                "openai": {
                    "reporter": {"fixed": 12, "dismissed": 3, "left": 5},
                    "judge": {
                        "confirmed_real": 10,
                        "missed_real": 1,
                        "refuted_false": 2,
                        "confirmed_false": 8,
                    },
                },
                "meta": {"reporter": {"dismissed": 1}, "judge": {"confirmed_false": 1}},
            },
            "panel": pooled.model_dump(),
        }
    )
    calibration = learned_calibration(learned)
    openai = calibration.families["openai"]
    assert openai.reporter is not None and openai.judge is not None
    assert (openai.reporter.right, openai.reporter.wrong) == (12, 3)
    assert openai.judge.confirmed_false == 8
    # One dismissal is one label: it counts, as one claim's worth.
    meta = calibration.families["meta"]
    assert meta.judge is not None and meta.judge.confirmed_false == 1
    assert calibration.history == pooled
    known = known_counts(calibration)
    assert known.labelled == {"meta": 1, "openai": 21} and known.pooled == {"openai": 4.0}


def test_the_learnings_join_a_calibration_the_configuration_names() -> None:
    text = (
        "version: 1\nfamilies:\n  openai:\n    judge: "
        "{confirmed_real: 10, missed_real: 1, refuted_false: 2, confirmed_false: 8}\n"
    )
    learned = with_learned_calibration(Settings(), {LEARNED_PATH: text}.get)
    judge = learned.judged_by().families["openai"].judge
    assert judge is not None and judge.confirmed_real == 10
    named = Settings.model_validate(
        {"calibration": {"families": {"openai": {"judge": {"confirmed_real": 5}}}}}
    )
    both = with_learned_calibration(named, {LEARNED_PATH: text}.get).judged_by()
    added = both.families["openai"].judge
    assert added is not None and (added.confirmed_real, added.confirmed_false) == (15, 8)
    broken = with_learned_calibration(Settings(), {LEARNED_PATH: "version: 9\n"}.get)
    assert broken == Settings()  # the review reports it where it reads the suppressions


def test_a_rate_is_shown_with_its_wilson_interval() -> None:
    assert rate(8, 10) == "80% [49%–94%] of 10"
    assert rate(0, 0) == "– of 0"


def test_consensus_learned_prints_the_table(tmp_path: Path) -> None:
    path = tmp_path / "learned.yml"
    path.write_text(dump_learned(learn(Learned(), FIVE)))
    done = CliRunner().invoke(cli, ["learned", "--file", str(path)])
    assert done.exit_code == 0, done.output
    assert "openai" in done.output and "50% [9%–91%] of 2" in done.output
    assert "the caller holds the lock (#1, maria)" in done.output
    missing = CliRunner().invoke(cli, ["learned", "--file", str(tmp_path / "none.yml")])
    assert missing.exit_code == 2


def test_a_suppressed_finding_goes_to_the_summary_and_a_fixed_one_says_it_came_back() -> None:
    learned = learn(Learned(), FIVE)
    lock = make(
        1,
        path="src/app/workers/counter.py",
        title="Counter updated while the lock is not held",
        body="`self.count += 1` runs without the lock held.",
    )
    loop = make(2, path="src/app/jobs.py", title="Off-by-one in the retry loop")
    other = make(3, path="src/app/jobs.py", title="SQL injection in get_user")
    marks = learned_marks(learned, [lock, loop, other])
    suppressed, came_back = marks.suppressed, marks.came_back
    assert suppressed == {
        lock.fingerprint: "suppressed by a maintainer's decision in #1: the caller holds the lock"
    }
    assert came_back == {loop.fingerprint: "This came back after #3 fixed it."}
    hunks = {
        p: [frozenset(range(1, 30))] for p in ("src/app/workers/counter.py", "src/app/jobs.py")
    }
    planned = plan_publish(
        report(lock, loop, other),
        PullRequestThread(),
        PublishSettings(),
        scope=Scope(head_sha="a" * 40, reviewed=set(hunks), in_diff=set(hunks)),
        hunks=hunks,
        marks=marks,
    )
    where = {p.finding.fingerprint: (p.placement, p.note) for p in planned.placed}
    assert where[lock.fingerprint] == (Placement.SUPPRESSED, suppressed[lock.fingerprint])
    assert planned.review is not None
    bodies = {c.body.split("\n", 1)[0]: c.body for c in planned.review.comments}
    assert "*This came back after #3 fixed it.*" in bodies[f"**high** · **{loop.title}**"]
    assert "This came back" not in bodies[f"**high** · **{other.title}**"]
    assert [c.path for c in planned.review.comments] == ["src/app/jobs.py"] * 2  # never inline
    page = render_summary(
        report(lock, loop, other), planned, head_sha="a" * 40, words=GITHUB_WORDS, links=[]
    )
    assert "suppressed by a maintainer" in page and "the caller holds the lock" in page


def test_the_closed_prs_estimates_of_their_panel_are_pooled_into_the_file() -> None:
    def estimated(refuted: float) -> PanelTally:
        judge = JudgeTally(confirmed_real=2.0, refuted_false=refuted)
        return PanelTally(runs=1, families={"anthropic": FamilyTally(judge=judge)})

    pulls = [
        ClosedPull(number=8, closed_at="2026-12-01T10:00:00Z", panel=estimated(3.5)),
        ClosedPull(number=9, closed_at="2026-12-02T10:00:00Z", panel=estimated(1.25)),
        ClosedPull(number=10, closed_at="2026-12-03T10:00:00Z"),  # no run estimated one
    ]
    learned = learn(Learned(), pulls)
    assert learned.panel is not None and learned.panel.runs == 2
    # a PR with neither outcomes nor an estimate does not move the date
    assert learned.updated_through == "2026-12-02T10:00:00Z"
    judge = learned.panel.families["anthropic"].judge
    assert (judge.confirmed_real, judge.refuted_false) == (4.0, 4.75)
    # Written and read back as people see it, and the next review starts from it.
    again = parse_learned(dump_learned(learned))
    assert again.panel == learned.panel
    assert learned_calibration(again).history == learned.panel


def test_the_summary_state_keeps_the_runs_estimate_and_reads_a_v6_block_without_one() -> None:
    judge = JudgeTally(confirmed_real=2.0, refuted_false=3.5)
    tally = PanelTally(runs=1, families={"anthropic": FamilyTally(judge=judge)})
    line = encode_state(PublishState(head_sha="a" * 40, panel=tally))
    assert f" v{STATE_VERSION} " in line and STATE_VERSION >= 7
    read = decode_state(f"summary\n{line}")
    assert read is not None and read.panel == tally
    # written by the version before, which knew no estimate: read with none
    older = encode_state(PublishState(head_sha="a" * 40)).replace(f" v{STATE_VERSION} ", " v6 ")
    earlier = decode_state(f"summary\n{older}")
    assert earlier is not None and earlier.head_sha == "a" * 40 and earlier.panel is None
