"""What people decided, kept in the PR's state: 👍/👎 as labels, outcomes at close (each
credited to whoever reported and judged the finding, even once a push fixed it), and the
states earlier versions wrote read as the current one."""

from __future__ import annotations

import base64
import json
import zlib

from consensus.model.base import Category, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.report import FindingMember, ReportFinding
from consensus.ports import HostReaction
from consensus.publish.decided import Label
from consensus.publish.outcomes import close_outcomes, downvoters, labels_from
from consensus.publish.records import report_finding
from consensus.publish.state import (
    Dismissal,
    PublishState,
    VerificationNote,
    VoteNote,
    decode_state,
    encode_state,
)
from consensus.publish.thread import PullRequestThread
from tests.e2e.test_commands_e2e import seeded_state
from tests.e2e.test_review_threads import tracked
from tests.unit.test_publish import HEAD, make, plan

FIXED, DISMISSED, DOWN, LEFT = "aaaa0000aaaa0000", "bbbb1111bbbb1111", "cccc2222", "dddd3333"
US = frozenset({"github-actions[bot]"})


def react(content: str, user: str, *, bot: bool = False, at: str = "2026-03-01T10:00:00Z"):
    return HostReaction(content=content, user=user, user_is_bot=bot, created_at=at)


def test_thumbs_are_labels_one_per_person_and_finding() -> None:
    state = PublishState(
        labels=(Label(fingerprint=FIXED, content="+1", by="ann", at="2026-03-01T00:00:00Z"),)
    )
    labels = labels_from(
        state,
        {
            FIXED: [react("-1", "ann", at="2026-03-02T00:00:00Z"), react("heart", "bob")],
            LEFT: [
                react("+1", "renovate[bot]", bot=True),
                react("+1", "github-actions[bot]"),
                react("+1", "@evil/team"),
                react("+1", "cy"),
            ],
        },
        US,
    )
    assert [(x.fingerprint, x.content, x.by, x.at) for x in labels] == [
        (FIXED, "-1", "ann", "2026-03-02T00:00:00Z"),  # her latest replaces her 👍
        (LEFT, "+1", "cy", "2026-03-01T10:00:00Z"),
    ]


def closing_state() -> PublishState:
    seeded = seeded_state()
    record = seeded.records[0].model_copy(
        update={
            "fingerprint": FIXED,
            "verification": VerificationNote(
                confirmed=1,
                refuted=1,
                votes=(
                    VoteNote(
                        model="m",
                        family="meta",
                        role="inspector",
                        verdict=VerdictKind.CONFIRMED,
                        reason="",
                    ),
                    VoteNote(
                        model="q",
                        family="qwen",
                        role="voter",
                        verdict=VerdictKind.REFUTED,
                        reason="",
                    ),
                    VoteNote(model="x", family="", role="voter", verdict=None, reason="timeout"),
                ),
            ),
        }
    )
    fixed = tracked(FIXED, resolved=True).model_copy(update={"resolved_reason": "fixed"})
    gone = tracked(LEFT, resolved=True).model_copy(update={"resolved_reason": "file left the diff"})
    return PublishState(
        findings=(fixed, tracked(DISMISSED), tracked(DOWN), gone),
        records=(record,),
        dismissed=(Dismissal(fingerprint=DISMISSED, by="maria", reason="by design", via="reply"),),
        labels=(
            Label(fingerprint=DOWN, content="-1", by="maria"),
            Label(fingerprint=LEFT, content="-1", by="randall"),
        ),
    )


def test_every_posted_finding_gets_an_outcome_at_close() -> None:
    state = closing_state()
    assert downvoters(state) == {"maria", "randall"}
    outcomes = {o.fingerprint: o for o in close_outcomes(state, writers=frozenset({"maria"}))}
    assert {fp: o.outcome for fp, o in outcomes.items()} == {
        FIXED: "fixed",
        DISMISSED: "dismissed",
        DOWN: "dismissed",  # a maintainer's 👎
        LEFT: "left",  # a read-only user's 👎 dismisses nothing
    }
    assert (outcomes[DISMISSED].by, outcomes[DISMISSED].reason) == ("maria", "by design")
    assert (outcomes[DOWN].by, outcomes[DOWN].reason) == ("maria", "")
    fixed = outcomes[FIXED]
    assert fixed.families == ("anthropic", "openai") and fixed.personas == ("correctness",)
    assert [(j.family, j.verdict) for j in fixed.judges] == [
        ("meta", VerdictKind.CONFIRMED),
        ("qwen", VerdictKind.REFUTED),
    ]


def test_outcomes_and_labels_round_trip_and_a_v4_state_still_reads() -> None:
    state = closing_state()
    closed = state.model_copy(
        update={"outcomes": close_outcomes(state, writers=frozenset()), "closed": "merged"}
    )
    assert decode_state(encode_state(closed)) == closed
    v4 = {"head_sha": "abc", "dismissed": [{"fingerprint": DISMISSED, "by": "maria"}]}
    packed = base64.b64encode(zlib.compress(json.dumps(v4).encode())).decode()
    read = decode_state(f"<!-- consensus:state v4 {packed} -->")
    assert read is not None and read.labels == () and read.outcomes == ()
    assert read.dismissed[0].via == "command"


# --------------------------------------------------------------------------- credit


def reported() -> ReportFinding:
    """A race two families' personas reported, which a third family's judge confirmed."""
    title = "Counter updated without the lock"
    members = tuple(
        FindingMember(provider=f"{family}/m", family=family, persona=persona, line=12, title=title)
        for family, persona in (("openai", "security"), ("anthropic", "correctness"))
    )
    vote = Vote(model="gemini/gemini-2.5-pro", family="google", role="inspector",
                verdict=VerdictKind.CONFIRMED, reason="the counter is shared")  # fmt: skip
    return make(title=title, verification=Verification(votes=(vote,))).model_copy(
        update={
            "members": members,
            "personas": ["correctness", "security"],
            "category": Category.CONCURRENCY,
        }
    )


def saved(state: PublishState) -> PublishState:
    """The state as the next run reads it back from the summary."""
    read = decode_state(encode_state(state))
    assert read is not None
    return read


def test_a_finding_a_push_fixed_is_credited_to_its_reporters_through_carry_and_pushes() -> None:
    posted = saved(plan(reported()).state)  # the run that posted it
    [record] = posted.records
    carried = report_finding(record, carried_from=HEAD)  # a push elsewhere: carried
    again = saved(plan(carried, thread=PullRequestThread(state=posted)).state)
    fixed = saved(plan(thread=PullRequestThread(state=again)).state)  # the push that fixed it
    assert fixed.records == ()  # the latest run no longer has its record
    [outcome] = close_outcomes(fixed, writers=frozenset())
    assert outcome.outcome == "fixed" and outcome.credited
    assert outcome.families == ("anthropic", "openai")
    assert outcome.personas == ("correctness", "security")
    assert [(j.family, j.verdict) for j in outcome.judges] == [("google", VerdictKind.CONFIRMED)]
    assert outcome.category is Category.CONCURRENCY


def test_a_state_an_earlier_version_wrote_reads_and_its_fix_is_credited_to_no_one() -> None:
    fixed = tracked(FIXED, resolved=True).model_copy(update={"resolved_reason": "fixed"})
    v5 = PublishState(findings=(fixed,)).model_dump(mode="json", exclude_defaults=True)
    packed = base64.b64encode(zlib.compress(json.dumps(v5).encode())).decode()
    read = decode_state(f"<!-- consensus:state v5 {packed} -->")
    assert read is not None and read.findings[0].families == ()
    [outcome] = close_outcomes(read, writers=frozenset())
    assert outcome.outcome == "fixed" and not outcome.credited
    assert (outcome.families, outcome.personas, outcome.judges) == ((), (), ())
