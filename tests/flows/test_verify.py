"""Verification with set verifier answers: first-to-ahead-by-k, and votes weighed by their
families' rates as the run's own votes show them, in rounds over every claim."""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections import deque
from collections.abc import Iterable, Sequence

import pytest

from consensus.decide.ahead_by import Lead, ahead_by_for, decide, lead_for, max_votes_for
from consensus.decide.evidence import belief, observed
from consensus.decide.judgement import claim_of
from consensus.decide.panel_rates import estimate, known_counts
from consensus.model.base import (
    SCAN_NAME,
    Category,
    FileStatus,
    FindingSource,
    Severity,
    Status,
    VerdictKind,
)
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff
from consensus.model.findings import Cluster, Finding, ScoredCluster, Vote
from consensus.model.reply import VerdictReply
from consensus.ports import CompletionRequest, ModelCallError
from consensus.publish.claims import claim_of_record
from consensus.publish.state import FindingRecord, MemberNote
from consensus.render.estimate_words import rests_on
from consensus.review.context import code_context
from consensus.review.guard import GuardedClient
from consensus.review.judge_calls import sampling_seed
from consensus.review.judges import judges
from consensus.review.ledger import Ledger
from consensus.review.tally import EXTRA_CALLS_PER_FINDING
from consensus.review.verify import Reading, Verified, verify
from consensus.settings.config import BudgetSettings, InspectorSettings, ProviderSettings, Settings
from consensus.testing import FakeModelClient, rate_limited

C, R, U = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN

PANEL = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
)
LOOP = "    for i in range(len(ids) + 1):"
DELETE = '        conn.execute("DELETE FROM users WHERE id = ?", (ids[i],))'
DIFF = ReviewDiff(
    files=(
        ChangedFile(
            path="src/app/db.py",
            status=FileStatus.MODIFIED,
            hunks=(
                Hunk(
                    old_start=14,
                    old_length=0,
                    new_start=15,
                    new_length=3,
                    lines=(
                        DiffLine(kind="+", text="def delete_users(conn, ids):", new_line=15),
                        DiffLine(kind="+", text=LOOP, new_line=16),
                        DiffLine(kind="+", text=DELETE, new_line=17),
                    ),
                ),
            ),
        ),
    )
)


PROVIDERS = {
    "openai": "openai/gpt-5.1",
    "anthropic": "anthropic/claude-sonnet-4-5",
    "google": "gemini/gemini-2.5-pro",
    "mistral": "mistral/mistral-large-latest",  # reviews, but is not on the judges' panel
    "qwen": "ollama/qwen2.5-coder",
}


def member(provider: str, family: str) -> Finding:
    """A model's report; under the name "consensus", the scan's (as ingest/detections makes it)."""
    scan = family == SCAN_NAME
    return Finding(
        provider=provider,
        family=family,
        source=FindingSource.SCAN if scan else FindingSource.MODEL,
        persona="security" if scan else "correctness",
        chunk=0,
        path="src/app/db.py",
        line=16,
        end_line=16,
        severity=Severity.HIGH,
        category=Category.BUG,
        title="Off-by-one: loop reads past the end of ids",
        body="`range(len(ids) + 1)` makes `ids[i]` raise IndexError.",
    )


def disputed(
    category: Category = Category.BUG,
    severity: Severity = Severity.HIGH,
    status: Status = Status.UNVERIFIED,
    families: Sequence[str] = ("openai",),
) -> ScoredCluster:
    cluster = Cluster(
        path="src/app/db.py",
        line=16,
        end_line=16,
        severity=severity,
        category=category,
        title="Off-by-one: loop reads past the end of ids",
        body="`range(len(ids) + 1)` makes `ids[i]` raise IndexError.",
        members=tuple(member(PROVIDERS[f], f) for f in families),
        fingerprint="0123456789abcdef",
    )
    return ScoredCluster(
        cluster=cluster,
        votes_for=len(families),
        votes_of=4,
        agreement=len(families) / 4,
        needed=3,
        status=status,
        reason=f"disputed: {len(families)} of 4 families; needs verification",
        needs_verification=status is not Status.CONSENSUS,
    )


def verdict(kind: str) -> str:
    return json.dumps({"verdict": kind, "reason": f"the code shows it is {kind}"})


def scripted(answers: Iterable[str | ModelCallError]) -> FakeModelClient:
    """Answers in the order calls are made, whichever model is asked."""
    queue = deque(answers)
    return FakeModelClient(by_request=lambda request: queue.popleft())


def run(
    client: FakeModelClient,
    items: Sequence[ScoredCluster] | None = None,
    *,
    inspector: InspectorSettings | None = None,
    budget: BudgetSettings | None = None,
    source: dict[str, str] | None = None,
    rule: str = "ahead-by-k",
    calibration: Calibration | None = None,
) -> list[ScoredCluster]:
    """Verify `items` (default: one disputed finding) by `rule` (the tests of the symmetric
    rule use ahead-by-k; the weighed rule has its own below)."""
    return verified(client, items, inspector=inspector, budget=budget, source=source,
                    rule=rule, calibration=calibration).items  # fmt: skip


def verified(
    client: FakeModelClient,
    items: Sequence[ScoredCluster] | None = None,
    *,
    inspector: InspectorSettings | None = None,
    budget: BudgetSettings | None = None,
    source: dict[str, str] | None = None,
    rule: str = "ahead-by-k",
    calibration: Calibration | None = None,
    panel: Sequence[ProviderSettings] = PANEL,
) -> Verified:
    given = (inspector or InspectorSettings()).model_dump(exclude_unset=True)
    settings = Settings(
        inspector=InspectorSettings.model_validate(given | {"rule": rule}),
        redact=("(?i)internal-token-[a-z0-9]+",),
        calibration=calibration,
    )
    reader = None if source is None else _Reader(source)
    ledger = Ledger(budget or BudgetSettings(max_cost_usd=None, max_tokens=None))
    return asyncio.run(
        verify(
            list(items or [disputed()]),
            diff=DIFF,
            panel=panel,
            settings=settings,
            client=GuardedClient(client, ledger),
            ledger=ledger,
            reading=Reading(source=reader),
        )
    )


class _Reader:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, path: str) -> str | None:
        return self.files.get(path)


# --------------------------------------------------------------------------- the rule


def vote(kind: VerdictKind | None) -> Vote:
    return Vote(model="m", family="f", role="voter", verdict=kind, reason="")


@pytest.mark.parametrize(
    ("verdicts", "lead", "cap", "outcome"),
    [
        ([C, C], (2, 2), 7, Status.VERIFIED),
        ([R, R], (2, 2), 7, Status.REJECTED),
        ([U, U], (2, 2), 7, Status.REJECTED),  # uncertain counts against
        ([C, U], (2, 2), 7, None),
        ([C, U, C, C], (2, 2), 7, Status.VERIFIED),
        ([C, C, C, R, R], (3, 3), 9, None),
        ([C, R, C, R, C, R, C], (2, 2), 7, Status.UNDECIDED),
        ([C, None, C], (2, 2), 7, Status.VERIFIED),  # a failed call counts for neither side
        ([None] * 7, (2, 2), 7, Status.UNDECIDED),  # … and a dead panel never confirms
        # A wider lead to verify than to reject (a finding one family reported):
        ([C, C], (3, 2), 9, None),
        ([C, C, C], (3, 2), 9, Status.VERIFIED),
        ([C, U, C, C], (3, 2), 9, None),
        ([R, R], (3, 2), 9, Status.REJECTED),
        ([C, R, R, R], (3, 2), 9, Status.REJECTED),
    ],
)
def test_first_to_ahead_by_k(
    verdicts: list[VerdictKind | None], lead: tuple[int, int], cap: int, outcome: Status | None
) -> None:
    assert decide([vote(v) for v in verdicts], Lead(*lead), cap) is outcome


@pytest.mark.parametrize(
    ("category", "severity", "k"),
    [
        (Category.BUG, Severity.HIGH, 2),
        (Category.SECURITY, Severity.MEDIUM, 3),
        (Category.BUG, Severity.CRITICAL, 3),
    ],
)
def test_security_and_critical_need_a_wider_lead(
    category: Category, severity: Severity, k: int
) -> None:
    assert ahead_by_for(disputed(category, severity).cluster, 2) == k


def test_the_cap_defaults_to_2k_plus_3() -> None:
    assert max_votes_for(2, None) == 7
    assert max_votes_for(3, None) == 9
    assert max_votes_for(3, 5) == 5


# --------------------------------------------------------------------------- who may judge

FOUR = (
    ProviderSettings(model="openai/gpt-a"),
    ProviderSettings(model="openai/gpt-c"),
    ProviderSettings(model="anthropic/claude-x"),
    ProviderSettings(model="gemini/gemini-y"),
    ProviderSettings(model="ollama/qwen-z"),
)


def reported_by(*families: str) -> Cluster:
    models = {"openai": "openai/gpt-a", "anthropic": "anthropic/claude-x",
              "google": "gemini/gemini-y", "qwen": "ollama/qwen-z"}  # fmt: skip
    return disputed().cluster.model_copy(
        update={"members": tuple(member(models[f], f) for f in families)}
    )


@pytest.mark.parametrize(
    ("reporters", "inspector", "k", "first", "voters", "self_judged"),
    [
        # The case: the configured inspector and voters; A and C (openai) reported
        # it. Neither votes; too few are left for k = 2, so the panel's others join.
        (("openai",), InspectorSettings(model="anthropic/claude-x",
                                        voters=("openai/gpt-a", "openai/gpt-c")), 2,
         "anthropic/claude-x", ["gemini/gemini-y", "anthropic/claude-x"], False),
        # Nothing configured: every provider of a family that did not report it.
        (("openai",), InspectorSettings(), 2, "anthropic/claude-x",
         ["gemini/gemini-y", "ollama/qwen-z", "anthropic/claude-x"], False),
        # The configured inspector reported it: the first independent judge inspects.
        (("anthropic",), InspectorSettings(model="anthropic/claude-x"), 2, "openai/gpt-a",
         ["openai/gpt-c", "gemini/gemini-y", "ollama/qwen-z", "openai/gpt-a"], False),
        # Three families of four reported it: one independent family, asked again and again.
        (("openai", "anthropic", "google"), InspectorSettings(), 2, "ollama/qwen-z",
         ["ollama/qwen-z"], False),
        # Every family that answered reported it: only then reporters judge, marked self.
        (("openai", "anthropic", "google", "qwen"), InspectorSettings(), 2, "openai/gpt-a",
         ["openai/gpt-c", "anthropic/claude-x", "gemini/gemini-y", "ollama/qwen-z",
          "openai/gpt-a"], True),
        # Configured voters that did not report it are enough: the panel is not added.
        (("qwen",), InspectorSettings(voters=("openai/gpt-a", "anthropic/claude-x")), 2,
         "openai/gpt-a", ["anthropic/claude-x", "openai/gpt-a"], False),
    ],
)  # fmt: skip
def test_no_family_judges_its_own_claim_while_another_answered(
    reporters: tuple[str, ...],
    inspector: InspectorSettings,
    k: int,
    first: str,
    voters: list[str],
    self_judged: bool,
) -> None:
    chosen = judges(reported_by(*reporters).families, FOUR, inspector, k)
    assert chosen.inspector.model == first
    assert [p.model for p in chosen.voters] == voters
    assert chosen.self_judged is self_judged
    if not self_judged:
        assert chosen.inspector.voting_family not in reporters
        assert all(p.voting_family not in reporters for p in chosen.voters)


# --------------------------------------------------------------------------- the phase


TWO = ("openai", "mistral")  # two families reported it; the judges are the panel's others


@pytest.mark.parametrize(
    ("families", "calls"),
    [
        pytest.param(TWO, 2, id="two-families-verified-at-a-lead-of-k"),
        pytest.param(("openai",), 3, id="one-family-verified-at-a-lead-of-k-plus-1"),
    ],
)
def test_confirmations_verify_after_exactly_the_lead(families: tuple[str, ...], calls: int) -> None:
    client = scripted([verdict("confirmed")] * 10)
    [item] = run(client, [disputed(families=families)])
    assert item.status is Status.VERIFIED
    assert len(client.calls) == calls
    record = item.verification
    assert record is not None and record.confirmed == calls and record.ahead_by == calls
    assert [v.role for v in record.votes] == ["inspector"] + ["voter"] * (calls - 1)
    assert f"(ahead by {calls})" in item.reason


@pytest.mark.parametrize(
    ("families", "calls"),
    [pytest.param(TWO, 3, id="two-families"), pytest.param(("openai",), 4, id="one-family")],
)
def test_the_first_k_votes_go_out_together(families: tuple[str, ...], calls: int) -> None:
    client = FakeModelClient(default=verdict("confirmed"), latency_s=0.05)
    run(client, [disputed(Category.SECURITY, families=families)])  # k = 3
    assert client.max_in_flight == 3  # the k = 3 it takes to reject go out together …
    assert len(client.calls) == calls  # … and a lone reporter's claim needs a fourth


# A finding only one family reported: rejected at a lead of k, verified only at k + 1.
@pytest.mark.parametrize(
    ("answers", "status", "calls"),
    [
        (["confirmed", "confirmed", "confirmed"], Status.VERIFIED, 3),
        (["refuted", "refuted"], Status.REJECTED, 2),
        (["uncertain", "refuted"], Status.REJECTED, 2),
        (["confirmed"] * 2 + ["refuted"] * 4, Status.REJECTED, 6),
        (["confirmed", "refuted", "confirmed", "confirmed", "confirmed"], Status.VERIFIED, 5),
        (["confirmed", "refuted"] * 5, Status.UNDECIDED, 9),  # the cap: 2 × 3 + 3
    ],
)  # fmt: skip
def test_a_lone_reporters_claim_needs_a_wider_lead_to_be_posted(
    answers: list[str], status: Status, calls: int
) -> None:
    client = scripted([verdict(a) for a in answers])
    [item] = run(client, [disputed(families=("openai",))])
    assert (item.status, len(client.calls)) == (status, calls)


@pytest.mark.parametrize(
    ("families", "category", "severity", "extra", "verify", "reject"),
    [
        (("openai",), Category.BUG, Severity.HIGH, 1, 3, 2),
        (("openai", "google"), Category.BUG, Severity.HIGH, 1, 2, 2),
        (("openai",), Category.SECURITY, Severity.MEDIUM, 1, 4, 3),
        (("openai",), Category.BUG, Severity.CRITICAL, 2, 5, 3),
        (("openai",), Category.BUG, Severity.HIGH, 0, 2, 2),  # the rule turned off
        (("openai", "consensus"), Category.SECURITY, Severity.CRITICAL, 1, 4, 3),  # scan
        (("openai", "google", "anthropic"), Category.BUG, Severity.HIGH, 1, 2, 2),
    ],
)  # fmt: skip
def test_the_lead_to_verify_and_to_reject(
    families: tuple[str, ...],
    category: Category,
    severity: Severity,
    extra: int,
    verify: int,
    reject: int,
) -> None:
    cluster = disputed(category, severity).cluster
    cluster = cluster.model_copy(
        update={"members": tuple(member(PROVIDERS.get(f, f), f) for f in families)}
    )
    inspector = InspectorSettings(single_family_extra_lead=extra)
    assert lead_for(cluster, inspector) == Lead(verify=verify, reject=reject)
    assert lead_for(cluster, inspector, self_judged=True) == Lead(verify + 1, reject + 1)


def test_refutations_reject_and_the_finding_is_kept_with_its_reasons() -> None:
    client = scripted([verdict("refuted"), verdict("uncertain")] + [verdict("refuted")] * 5)
    [item] = run(client)
    assert item.status is Status.REJECTED
    assert item.verification is not None
    assert (item.verification.refuted, item.verification.uncertain) == (1, 1)
    assert "the code shows it is refuted" in item.verification.votes[0].reason


def test_a_split_panel_reaches_the_cap_and_stays_undecided() -> None:
    client = scripted([verdict("confirmed"), verdict("refuted")] * 10)
    [item] = run(client, [disputed(families=TWO)])
    assert item.status is Status.UNDECIDED
    assert len(client.calls) == 7
    assert "after 7 votes" in item.reason


def test_verifier_errors_never_confirm() -> None:
    client = scripted([verdict("confirmed")] + [rate_limited()] * 20)
    [item] = run(client)
    assert item.status in (Status.UNDECIDED, Status.UNVERIFIED)
    assert not item.status.posted
    assert item.verification is not None and item.verification.confirmed == 1


def test_a_malformed_verdict_is_resampled_not_counted() -> None:
    too_long = json.dumps({"verdict": "confirmed", "reason": "x" * 5_000})
    client = scripted(
        ["I think this is fine.", too_long, verdict("confirmed"), verdict("confirmed")]
    )
    [item] = run(client, [disputed(families=TWO)])
    assert item.status is Status.VERIFIED
    assert len(client.calls) == 4
    assert item.verification is not None
    assert item.verification.discarded == 2
    assert item.verification.confirmed == 2


def test_the_budget_stops_verification_and_says_which_finding_stayed_unverified() -> None:
    client = scripted([verdict("confirmed"), verdict("refuted")] * 10)
    client.tokens_in, client.tokens_out = 500, 100
    [item] = run(client, budget=BudgetSettings(max_tokens=4_000, max_cost_usd=None))
    assert item.status is Status.UNVERIFIED
    # Each call reserves its worst case (its prompt and a 600-token verdict) first: the
    # calls that fit were sent, and what they spent stays within the cap.
    assert len(client.calls) >= 1 and len(client.calls) * 600 <= 4_000
    assert item.verification is not None
    assert "verification stopped: token budget reached" in item.verification.note


def test_a_consensus_finding_is_checked_only_when_asked_and_rejected_if_refuted() -> None:
    agreed = disputed(status=Status.CONSENSUS)
    untouched = FakeModelClient()
    assert run(untouched, [agreed]) == [agreed]
    assert untouched.calls == []

    client = scripted([verdict("refuted")] * 10)
    [item] = run(client, [agreed], inspector=InspectorSettings(check_consensus=True))
    assert item.status is Status.REJECTED


def test_findings_that_need_no_check_come_back_unchanged_in_order() -> None:
    quiet = disputed(severity=Severity.LOW).model_copy(update={"needs_verification": False})
    client = FakeModelClient(default=verdict("confirmed"))
    first, second = run(client, [quiet, disputed()])
    assert first == quiet
    assert second.status is Status.VERIFIED


def test_the_prompt_carries_the_title_the_place_and_redacted_code_around_it() -> None:
    head = "\n".join(
        ["import sqlite3", 'TOKEN = "internal-token-abc123"', ""]
        + [f"# filler {n}" for n in range(11)]
        + ["def delete_users(conn, ids):", LOOP, "        pass"]
    )
    client = FakeModelClient(default=verdict("confirmed"))
    run(client, source={"src/app/db.py": head})
    prompt = client.calls[0].messages[1].content
    assert "Off-by-one: loop reads past the end of ids" in prompt
    assert "src/app/db.py, lines 16-16" in prompt
    assert "16> " + LOOP in prompt
    assert "internal-token-abc123" not in prompt
    assert "openai/gpt-5.1" not in prompt  # who reported it stays hidden


def test_each_vote_is_its_own_request() -> None:
    client = FakeModelClient(default=verdict("confirmed"))
    run(client, [disputed(Category.SECURITY)])
    bodies = [json.dumps([m.content for m in c.messages]) for c in client.calls]
    assert len(set(bodies)) == len(bodies)


def sampling_verifier(request: CompletionRequest) -> str:
    """A verifier unsure of the claim: at its temperature it answers either way, by chance,
    unless a seed fixes the sample (as OpenAI, Gemini and Ollama honour one)."""
    sample = random.Random(request.seed) if request.seed is not None else random.Random()
    return verdict(sample.choice(["confirmed", "refuted", "confirmed", "uncertain"]))


def test_the_same_question_is_asked_the_same_way_on_every_run() -> None:
    outcomes = set()
    seeds: list[int | None] = []
    for _ in range(6):
        client = FakeModelClient(by_request=sampling_verifier)
        [item] = run(client, [disputed(Category.SECURITY)])
        assert item.verification is not None
        outcomes.add((item.status, tuple((v.model, v.verdict) for v in item.verification.votes)))
        seeds = [c.seed for c in client.calls]
    assert len(outcomes) == 1
    assert None not in seeds and len(set(seeds)) == len(seeds)  # each vote its own sample


def test_seeds_come_from_the_fingerprint_and_the_votes_slot() -> None:
    first = sampling_seed("0123456789abcdef", "openai/gpt-5.1", "voter", 2)
    assert first == sampling_seed("0123456789abcdef", "openai/gpt-5.1", "voter", 2)
    others = {
        sampling_seed("0123456789abcdee", "openai/gpt-5.1", "voter", 2),
        sampling_seed("0123456789abcdef", "openai/gpt-5.1", "voter", 3),
        sampling_seed("0123456789abcdef", "openai/gpt-5.1", "inspector", 2),
        sampling_seed("0123456789abcdef", "google/gemini-2.5-pro", "voter", 2),
    }
    assert first not in others and len(others) == 4
    assert all(0 <= seed < 2**31 for seed in {first, *others})  # what every API accepts


def test_verifier_calls_ask_for_the_verdict_schema_as_review_calls_ask_for_theirs() -> None:
    client = FakeModelClient(default=verdict("confirmed"))
    run(client, [disputed()])
    assert client.calls
    for call in client.calls:
        assert call.response_schema == VerdictReply.model_json_schema()
        assert call.schema_name == "verdict"


def _calls_by_model(calls: Sequence[CompletionRequest]) -> list[str]:
    return [c.model for c in calls]


def test_votes_rotate_across_the_judges_never_the_reporter() -> None:
    client = scripted([verdict("confirmed"), verdict("refuted")] * 10)
    [item] = run(client)
    models = _calls_by_model(client.calls)
    assert models[0] == "anthropic/claude-sonnet-4-5"  # the inspector
    rotation = ["gemini/gemini-2.5-pro", "anthropic/claude-sonnet-4-5"]  # inspector last
    assert models[1:] == (rotation * 4)[: len(models) - 1]
    assert "openai/gpt-5.1" not in models  # openai reported it
    assert item.verification is not None
    assert not any(v.self_vote for v in item.verification.votes)


def test_reporters_judge_only_when_no_other_family_answered_then_marked_and_k_plus_1() -> None:
    everyone = disputed(status=Status.CONSENSUS).cluster.model_copy(
        update={"members": tuple(member(p.model, p.voting_family) for p in PANEL)}
    )
    item = disputed(status=Status.CONSENSUS).model_copy(
        update={"cluster": everyone, "votes_for": 3, "votes_of": 3, "needs_verification": False}
    )
    client = scripted([verdict("confirmed")] * 10)
    [checked] = run(client, [item], inspector=InspectorSettings(check_consensus=True))
    record = checked.verification
    assert record is not None
    assert record.ahead_by == 3 and record.confirmed == 3  # k + 1
    assert all(v.self_vote for v in record.votes)
    assert checked.status is Status.CONSENSUS


# --------------------------------------------------------------------------- code context


def test_context_starts_at_the_enclosing_function() -> None:
    text = "\n".join(["x = 1"] * 40 + ["def f(a):", "    b = a", "    return b / 0"] + ["y"] * 40)
    context = code_context(text, 43, 43)
    assert context.splitlines()[0].endswith("def f(a):")
    assert "43>     return b / 0" in context


def test_context_without_a_function_is_thirty_lines_each_side() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 201))
    lines = code_context(text, 100, 100).splitlines()
    assert lines[0].startswith(" 70") and lines[-1].startswith("130")


def test_code_context_numbers_lines_as_git_does() -> None:
    from consensus.review.context import code_context

    text = "a = 1\n\x0cb = 2\rc\u2028d\nline_3 = 3\r\nline_4 = 4\n"
    shown = code_context(text, 4, 4, radius=1)
    assert shown.split("\n") == ["3  line_3 = 3", "4> line_4 = 4"]


# --------------------------------------------------------------------------- severe consensus
# Three families agreeing on a severe claim is evidence, not proof: a consensus finding that
# score marked (severe, not unanimous) is checked, and posted unless the judges reject it.


def severe_consensus(*, marked: bool) -> ScoredCluster:
    item = disputed(status=Status.CONSENSUS, families=("openai", "anthropic", "mistral"))
    reason = "3 of 4 families agree"
    if marked:
        reason += "; high and not unanimous: needs verification"
    return item.model_copy(
        update={"votes_for": 3, "votes_of": 4, "needs_verification": marked, "reason": reason}
    )


@pytest.mark.parametrize(
    ("marked", "check_all", "answers", "status", "calls"),
    [
        # Marked by score (the default check_consensus_min_severity): rejected only when
        # the judges are ahead against it.
        (True, False, ["confirmed"] * 2, Status.CONSENSUS, 2),
        (True, False, ["refuted"] * 2, Status.REJECTED, 2),
        (True, False, ["uncertain", "refuted"], Status.REJECTED, 2),
        # A split panel leaves it where consensus put it: posted.
        (True, False, ["confirmed", "refuted"] * 4, Status.CONSENSUS, 7),
        # check_consensus: true on one score did not mark: stays consensus unless refuted.
        (False, True, ["confirmed", "refuted"] * 4, Status.CONSENSUS, 7),
        (False, True, ["refuted"] * 2, Status.REJECTED, 2),
        # Not marked and not asked: posted as it is, nobody called.
        (False, False, [], Status.CONSENSUS, 0),
    ],
)
def test_severe_non_unanimous_consensus_is_posted_unless_rejected(
    marked: bool, check_all: bool, answers: list[str], status: Status, calls: int
) -> None:
    client = scripted([verdict(a) for a in answers])
    [item] = run(
        client,
        [severe_consensus(marked=marked)],
        inspector=InspectorSettings(check_consensus=check_all),
    )
    assert item.status is status
    assert len(client.calls) == calls
    if status is Status.CONSENSUS and calls:
        assert item.reason.startswith("3 of 4 families agree; ")
        assert item.verification is not None


def test_a_budget_stop_leaves_a_marked_consensus_finding_as_consensus_made_it() -> None:
    client = scripted([verdict("confirmed"), verdict("refuted")] * 10)
    client.tokens_in, client.tokens_out = 500, 100
    [item] = run(
        client,
        [severe_consensus(marked=True)],
        budget=BudgetSettings(max_tokens=4_000, max_cost_usd=None),
    )
    assert item.status is Status.CONSENSUS and item.status.posted  # no vote rejected it
    assert item.reason.startswith("3 of 4 families agree; ")
    assert item.verification is not None and item.verification.budget_stopped


# --------------------------------------------------------------------------- weighed votes


def labelled(tpr: float, tnr: float) -> Calibration:
    """Judges measured on 100 labelled claims of each kind."""
    counts = JudgeCounts(
        confirmed_real=round(100 * tpr),
        missed_real=100 - round(100 * tpr),
        refuted_false=round(100 * tnr),
        confirmed_false=100 - round(100 * tnr),
    )
    families = ("openai", "anthropic", "google", "qwen")
    return Calibration(families={f: FamilyCalibration(judge=counts) for f in families})


IMPARTIAL, DISCERNING = labelled(0.85, 0.85), labelled(0.95, 0.8)
FIVE = (*PANEL, ProviderSettings(model="ollama/qwen2.5-coder"), ProviderSettings(model="mistral/m"))


def test_two_refutations_asked_together_reject_a_lone_claim() -> None:
    client = FakeModelClient(default=verdict("refuted"), latency_s=0.02)
    [item] = run(client, [disputed(families=("openai",))], rule="weighed")
    assert item.status is Status.REJECTED
    assert len(client.calls) == 2  # anthropic's refutation and google's …
    assert client.max_in_flight == 2  # … asked together: the first round asks two
    assert item.reason.startswith(
        "rejected: reported by 1 of 4 families · refuted by anthropic and google · 0.0"
    )


def test_one_family_one_judge_the_families_that_have_not_judged_first() -> None:
    client = FakeModelClient(default=verdict("confirmed"))
    verified(client, [disputed(families=("openai",))], rule="weighed", panel=FIVE)
    models = [c.model for c in client.calls]
    assert len(models) == 4 and "openai/gpt-5.1" not in models  # four other families …
    families = [ProviderSettings(model=m).voting_family for m in models]
    assert len(set(families)) == len(families)  # … each asked once: never a repeat


def test_confirmations_of_judges_the_run_cannot_read_do_not_verify_a_lone_claim() -> None:
    # One claim, two judges, both confirm: nothing shows whether they confirm everything.
    client = FakeModelClient(default=verdict("confirmed"))
    [item] = run(client, [disputed(families=("openai",))], rule="weighed")
    assert item.status is Status.UNDECIDED and len(client.calls) == 2
    assert "no family left to ask" in item.reason
    assert item.verification is not None and item.verification.belief is not None
    assert item.verification.belief < 0.9


def test_labelled_impartial_judges_verify_a_claim_two_families_made_on_two_confirmations() -> None:
    client = FakeModelClient(default=verdict("confirmed"), latency_s=0.02)
    [item] = run(client, [disputed(families=TWO)], rule="weighed", calibration=IMPARTIAL)
    assert item.status is Status.VERIFIED
    assert len(client.calls) == 2 and client.max_in_flight == 2
    record = item.verification
    assert record is not None and record.belief is not None and record.belief >= 0.9
    assert item.reason == (
        "verified: reported by 2 of 4 families · confirmed by anthropic and google · "
        f"{int(record.belief * 100) / 100:.2f}"
    )


AGREEABLE = labelled(0.96, 0.25)
# A judge that refutes real claims nearly as often as false ones: its refutation says little.
CONTRARIAN = labelled(0.6, 0.55)


PANELS = {
    "unknown": None,
    "agreeable": AGREEABLE,
    "impartial": IMPARTIAL,
    "discerning": DISCERNING,
    "contrarian": CONTRARIAN,
}


@pytest.mark.parametrize("calibration", PANELS.values(), ids=PANELS.keys())
def test_a_consensus_claim_the_fourth_family_confirms_is_posted_under_every_panel(
    calibration: Calibration | None,
) -> None:
    client = scripted([verdict("confirmed")])
    [item] = run(client, [severe_consensus(marked=True)], rule="weighed", calibration=calibration)
    assert item.status is Status.CONSENSUS and item.status.posted
    assert {c.model for c in client.calls} == {"gemini/gemini-2.5-pro"}  # the only outsider
    assert item.reason.startswith("3 of 4 families agree; ")


@pytest.mark.parametrize(
    ("calibration", "status"),
    [
        (CONTRARIAN, Status.CONSENSUS),  # its refutation is worth little: still posted
        # Nothing known of the judge: the prior's, which refutes few real claims.
        (None, Status.REJECTED),
        (DISCERNING, Status.REJECTED),  # a decisive refutation: more likely invented
        (AGREEABLE, Status.REJECTED),  # a judge that confirms nearly everything refuted it
    ],
    ids=["contrarian", "unknown", "discerning", "agreeable"],
)
def test_a_consensus_claim_is_rejected_only_by_a_refutation_worth_it_no_veto(
    calibration: Calibration | None, status: Status
) -> None:
    client = scripted([verdict("refuted")])
    [item] = run(client, [severe_consensus(marked=True)], rule="weighed", calibration=calibration)
    assert item.status is status and len(client.calls) == 1
    record = item.verification
    assert record is not None and record.belief is not None
    assert (record.belief < 0.5) is (status is Status.REJECTED)


def claims_of_a_run() -> list[ScoredCluster]:
    """A run's claims: three one family made, two that two made, one consensus."""
    made = [("openai",), ("anthropic",), ("google",), ("openai", "anthropic"), ("google", "qwen")]
    items = [
        disputed(families=f).model_copy(
            update={"cluster": disputed(families=f).cluster.model_copy(
                update={"fingerprint": f"{n:016x}", "line": 16, "title": f"Claim {n}"})}
        )
        for n, f in enumerate(made)
    ]  # fmt: skip
    return [*items, severe_consensus(marked=False)]


def by_claim(request: CompletionRequest) -> str:
    """Judges that refute every claim one family made and confirm every other."""
    prompt = request.messages[-1].content
    lone = any(f"Claim {n}" in prompt for n in range(3))
    return verdict("refuted" if lone else "confirmed")


def test_every_claim_is_decided_by_the_last_estimate_of_the_panel() -> None:
    four = (*PANEL, ProviderSettings(model="ollama/qwen2.5-coder"))
    result = verified(FakeModelClient(by_request=by_claim), claims_of_a_run(), rule="weighed",
                      panel=four)  # fmt: skip
    assert result.panel is not None
    # The estimate each belief was computed with is the one all the votes make.
    reviewers = frozenset(("openai", "anthropic", "google", "qwen"))
    seen = [
        observed(claim_of(item), item.verification.votes, reviewers)
        for item in result.items
        if item.verification is not None
    ]
    others = [observed(claim_of(i), (), reviewers) for i in result.items if not i.verification]
    last = estimate([*seen, *others], known_counts(Calibration()))
    for item, claim in zip([i for i in result.items if i.verification], seen, strict=True):
        assert item.verification is not None and item.verification.belief is not None
        expected = belief(last, claim, item.verification.votes)
        assert item.verification.belief == pytest.approx(1 / (1 + math.exp(-expected)))
    assert [i.status for i in result.items[:5]] == [Status.REJECTED] * 3 + [Status.VERIFIED] * 2


def test_the_panels_estimate_says_what_each_family_rests_on() -> None:
    four = (*PANEL, ProviderSettings(model="ollama/qwen2.5-coder"))
    result = verified(FakeModelClient(by_request=by_claim), claims_of_a_run(), rule="weighed",
                      panel=four)  # fmt: skip
    assert result.panel is not None
    google = next(f for f in result.panel.families if f.family == "google")
    # Google judged the claims OpenAI and Anthropic made alone, and the one they made
    # together.
    assert google.judged == 3 and (google.rejected, google.refuted_rejected) == (2, 2)
    assert rests_on(google) == (
        "google judged 3 findings here: refuted 2 of the 2 the judges rejected, confirmed 1 "
        "of the 1 they verified"
    )
    assert google.tnr.value > 0.7 and google.tnr.low < google.tnr.value < google.tnr.high


def test_a_replay_decides_the_same() -> None:
    runs = [
        verified(FakeModelClient(by_request=by_claim), claims_of_a_run(), rule="weighed")
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_a_recorded_finding_makes_the_same_claim_as_its_cluster() -> None:
    # `/consensus verify F1` asks the judges what the run that found F1 would have asked.
    item = severe_consensus(marked=True)
    cluster = item.cluster
    record = FindingRecord(
        id="F1",
        fingerprint=cluster.fingerprint,
        path=cluster.path,
        line=cluster.line,
        end_line=cluster.end_line,
        severity=cluster.severity,
        category=cluster.category,
        title=cluster.title,
        body=cluster.body,
        status=item.status,
        reason=item.reason,
        votes_for=item.votes_for,
        votes_of=item.votes_of,
        providers=cluster.providers,
        personas=cluster.personas,
        members=tuple(
            MemberNote(provider=m.provider, family=m.family, persona=m.persona, title=m.title)
            for m in cluster.members
        ),
    )
    assert claim_of_record(record) == claim_of(item).model_copy(update={"reviewers": frozenset()})
    assert claim_of(item).reported_by == "3 of 4 families"


def test_malformed_verdicts_stop_at_the_findings_call_cap_and_say_so() -> None:
    # Every verdict malformed: each vote slot would be asked 3 times; the finding's calls,
    # resamples included, stop at its vote cap + 2.
    client = FakeModelClient(default="I cannot answer in JSON today.")
    [item] = run(client, [disputed(families=TWO)])  # ahead-by-k: a cap of 7 votes
    assert len(client.calls) == 7 + EXTRA_CALLS_PER_FINDING
    [weighed] = run(FakeModelClient(default="no json"), [disputed(families=TWO)], rule="weighed")
    assert "verdicts malformed" in weighed.reason
    assert item.status is Status.UNDECIDED
    assert "verdicts malformed" in item.reason
    assert not item.reason.startswith("undecided: undecided:")
