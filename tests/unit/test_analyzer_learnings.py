"""A static analyzer's findings in the state and the learnings: its members keep their
rule through the summary's state (v9), a dismissal is credited to the analyzer and to its
rule, and a rule dismissed often enough no longer posts on its own."""

from __future__ import annotations

from consensus.model.base import Category, FindingSource, Severity, Status
from consensus.model.report import FindingMember, ReportFinding, Votes
from consensus.publish.learnings import ClosedPull, learn, learned_marks
from consensus.publish.outcomes import close_outcomes
from consensus.publish.records import finding_record, report_finding, tracked_finding
from consensus.publish.state import Dismissal, PublishState, decode_state, encode_state
from consensus.settings.learned import Learned

RUFF = FindingMember(
    provider="ruff", family="ruff", persona="analyzer", line=42,
    title="F841: Local variable `tmp` is assigned to but never used",
    source=FindingSource.ANALYZER, rule="F841",
)  # fmt: skip


def unused(n: int, *members: FindingMember) -> ReportFinding:
    return ReportFinding(
        id=f"F{n}", fingerprint=f"{n:016x}", path="src/cart.py", line=42, end_line=42,
        severity=Severity.LOW, category=Category.BUG, title=RUFF.title,
        body="Local variable `tmp` is assigned to but never used", agreement=0.25,
        votes=Votes(**{"for": 1, "of": 4}), providers=["ruff"], personas=["analyzer"],
        status=Status.CONSENSUS, reason="reported by ruff F841; ruff posts on its own",
        members=members or (RUFF,),
    )  # fmt: skip


def closed(number: int, finding: ReportFinding) -> ClosedPull:
    """The PR closed after a maintainer dismissed the finding, read back from its state."""
    state = PublishState(
        findings=(tracked_finding(finding, inline=True),),
        records=(finding_record(finding),),
        dismissed=(Dismissal(fingerprint=finding.fingerprint, by="maria"),),
    )
    read = decode_state(f"summary\n{encode_state(state)}")
    assert read is not None
    return ClosedPull(
        number=number,
        closed_at=f"2026-11-0{number}T10:00:00Z",
        outcomes=close_outcomes(read, writers=frozenset()),
    )


def test_an_analyzers_member_keeps_its_rule_through_the_state() -> None:
    state = PublishState(records=(finding_record(unused(1)),))
    read = decode_state(f"summary\n{encode_state(state)}")
    assert read is not None
    [member] = report_finding(read.records[0]).members
    assert (member.source, member.rule) == (FindingSource.ANALYZER, "F841")


def test_a_dismissed_analyzer_rule_is_credited_to_the_analyzer_and_its_rule() -> None:
    learned = learn(Learned(), [closed(1, unused(1))])
    assert learned.families["ruff"].reporter.dismissed == 1
    assert learned.families["ruff:F841"].reporter.dismissed == 1


def test_a_rule_dismissed_twice_no_longer_posts_on_its_own() -> None:
    once = learn(Learned(), [closed(1, unused(1))])
    assert learned_marks(once, [unused(3)]).suppressed == {}
    twice = learn(once, [closed(2, unused(2))])
    marks = learned_marks(twice, [unused(3)])
    assert marks.suppressed == {
        f"{3:016x}": "ruff F841 was dismissed 2 times where it was posted before (fixed 0): "
        "it no longer posts on its own"
    }


def test_a_noisy_rule_a_model_agrees_with_is_still_posted() -> None:
    learned = learn(Learned(), [closed(1, unused(1)), closed(2, unused(2))])
    model = FindingMember(
        provider="openai/gpt-5.1", family="openai", persona="correctness", line=42,
        title="`tmp` is computed and thrown away",
    )  # fmt: skip
    assert learned_marks(learned, [unused(3, RUFF, model)]).suppressed == {}
