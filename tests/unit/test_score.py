"""SCORE: family votes, the rounding rule, and routing of disputed clusters."""

from __future__ import annotations

import pytest

from consensus.decide.fingerprint import fingerprint
from consensus.decide.score import needed_votes, score
from consensus.model.base import Category, Severity, Status
from consensus.model.findings import Cluster, Finding

PATH = "src/app/db.py"
ALL4 = frozenset({"openai", "anthropic", "google", "qwen"})
DISPUTED = Status.UNVERIFIED  # until the verify phase decides


def member(provider: str, family: str, persona: str = "correctness") -> Finding:
    return Finding(
        provider=provider,
        family=family,
        persona=persona,
        chunk=0,
        path=PATH,
        line=42,
        end_line=42,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title="SQL injection",
        body="…",
        evidence='cursor.execute(f"SELECT * FROM users WHERE name = {name}")',
    )


def cluster(*members: Finding, severity: Severity = Severity.HIGH) -> Cluster:
    return Cluster(
        path=PATH,
        line=42,
        end_line=42,
        severity=severity,
        category=Category.SECURITY,
        title="SQL injection",
        body="…",
        members=members,
        fingerprint=fingerprint(PATH, Category.SECURITY, "sql injection"),
    )


GPT = member("openai/gpt-5.1", "openai")
CLAUDE = member("anthropic/claude-sonnet-4-5", "anthropic")
GEMINI = member("gemini/gemini-2.5-pro", "google")
QWEN = member("ollama/qwen2.5-coder:14b", "qwen")


def score_one(
    c: Cluster,
    covered: frozenset[str] = ALL4,
    *,
    threshold: float = 0.75,
    verify_min_severity: Severity = Severity.MEDIUM,
    check_min_severity: Severity = Severity.HIGH,
) -> tuple[int, int, float, int, Status, bool, str]:
    (scored,) = score(
        [c],
        {PATH: covered},
        threshold=threshold,
        verify_min_severity=verify_min_severity,
        check_min_severity=check_min_severity,
    )
    return (
        scored.votes_for,
        scored.votes_of,
        scored.agreement,
        scored.needed,
        scored.status,
        scored.needs_verification,
        scored.reason,
    )


@pytest.mark.parametrize(
    ("families", "threshold", "needed"),
    [
        (0, 0.75, 2),  # nobody answered: impossible
        (1, 0.75, 2),  # one family can never be consensus
        (2, 0.75, 2),
        (3, 0.75, 3),
        (4, 0.75, 3),
        (5, 0.75, 4),
        (6, 0.75, 5),  # 4.5 rounds up
        (8, 0.75, 6),
        (25, 0.28, 7),  # 0.28 × 25 is 7.000000000000001 in floats: must not become 8
        (4, 0.5, 2),
        (3, 0.5, 2),  # 1.5 → 2
        (4, 1.0, 4),
        (10, 0.1, 2),  # never fewer than two
        (100, 0.75, 75),
    ],
)
def test_needed_votes_rounding(families: int, threshold: float, needed: int) -> None:
    assert needed_votes(families, threshold) == needed


@pytest.mark.parametrize("threshold", [0.0, -0.5, 1.01])
def test_needed_votes_rejects_impossible_threshold(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        needed_votes(4, threshold)


@pytest.mark.parametrize(
    ("members", "covered", "expected"),
    [
        pytest.param(
            (GPT, CLAUDE, GEMINI),
            ALL4,
            (3, 4, 0.75, 3, Status.CONSENSUS, True),
            id="3-of-4-is-consensus-checked-at-high",
        ),
        pytest.param(
            (GPT, CLAUDE),
            ALL4,
            (2, 4, 0.5, 3, DISPUTED, True),
            id="2-of-4-is-disputed",
        ),
        pytest.param(
            (GPT, CLAUDE),
            frozenset({"openai", "anthropic", "google"}),
            (2, 3, 0.6667, 3, DISPUTED, True),
            id="2-of-3-is-disputed",
        ),
        pytest.param(
            (GPT, CLAUDE),
            frozenset({"openai", "anthropic"}),
            (2, 2, 1.0, 2, Status.CONSENSUS, False),
            id="failed-families-leave-the-denominator",
        ),
        pytest.param(
            (GPT, member("openai/gpt-5.1", "openai", "security"), CLAUDE),
            ALL4,
            (2, 4, 0.5, 3, DISPUTED, True),
            id="personas-of-one-provider-count-once",
        ),
        pytest.param(
            (CLAUDE, member("bedrock/anthropic.claude-sonnet-4-5", "anthropic"), GPT),
            ALL4,
            (2, 4, 0.5, 3, DISPUTED, True),
            id="two-gateways-of-one-family-count-once",
        ),
        pytest.param(
            (GPT, CLAUDE, GEMINI),
            frozenset({"openai", "anthropic"}),
            (3, 3, 1.0, 3, Status.CONSENSUS, False),
            id="reporting-family-missing-from-coverage-counts-on-both-sides",
        ),
        pytest.param(
            (GPT, CLAUDE),
            frozenset({"google", "qwen"}),
            (2, 4, 0.5, 3, DISPUTED, True),
            id="uncovered-reporters-added-to-denominator",
        ),
    ],
)  # fmt: skip
def test_votes_by_family(
    members: tuple[Finding, ...],
    covered: frozenset[str],
    expected: tuple[int, int, float, int, Status, bool],
) -> None:
    assert score_one(cluster(*members), covered)[:6] == expected


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        (
            (GPT, CLAUDE, GEMINI),
            "3 of 4 families agree; high and not unanimous: needs verification",
        ),
        ((GPT, CLAUDE, GEMINI, QWEN), "4 of 4 families agree"),
        ((GPT, CLAUDE), "disputed: 2 of 4 families; needs verification"),
    ],
)
def test_reason_names_the_tally(members: tuple[Finding, ...], reason: str) -> None:
    assert score_one(cluster(*members))[6] == reason


@pytest.mark.parametrize(
    "members",
    [
        (GPT,),
        (GPT, member("openai/gpt-5.1", "openai", "security")),
        (GPT, member("azure/gpt-5.1", "openai"), member("openrouter/openai/gpt-5.1", "openai")),
    ],
)
@pytest.mark.parametrize(
    "covered", [frozenset(), frozenset({"openai"}), ALL4], ids=["none", "only-it", "all"]
)
def test_single_family_is_never_consensus(
    members: tuple[Finding, ...], covered: frozenset[str]
) -> None:
    votes_for, votes_of, _, needed, status, _, _ = score_one(cluster(*members), covered)
    assert votes_for == 1
    assert needed > votes_for
    assert status is not Status.CONSENSUS
    assert votes_of >= 1


def test_path_without_coverage_counts_reporters_only() -> None:
    (scored,) = score(
        [cluster(GPT, CLAUDE)],
        {},
        threshold=0.75,
        verify_min_severity=Severity.MEDIUM,
        check_min_severity=Severity.HIGH,
    )
    assert (scored.votes_for, scored.votes_of, scored.status) == (2, 2, Status.CONSENSUS)


@pytest.mark.parametrize(
    ("severity", "verify_min", "needs_verification", "reason"),
    [
        (Severity.CRITICAL, Severity.MEDIUM, True, "disputed: 1 of 4 families; needs verification"),
        (Severity.HIGH, Severity.MEDIUM, True, "disputed: 1 of 4 families; needs verification"),
        (Severity.MEDIUM, Severity.MEDIUM, True, "disputed: 1 of 4 families; needs verification"),
        (Severity.LOW, Severity.MEDIUM, False, "low severity, 1 of 4 families"),
        (Severity.INFO, Severity.MEDIUM, False, "low severity, 1 of 4 families"),
        (Severity.LOW, Severity.LOW, True, "disputed: 1 of 4 families; needs verification"),
        (Severity.INFO, Severity.LOW, False, "low severity, 1 of 4 families"),
        # HIGH and above are always verified, whatever the setting.
        (Severity.HIGH, Severity.CRITICAL, True, "disputed: 1 of 4 families; needs verification"),
        (Severity.MEDIUM, Severity.CRITICAL, False, "low severity, 1 of 4 families"),
    ],
)  # fmt: skip
def test_disputed_routing_by_severity(
    severity: Severity, verify_min: Severity, needs_verification: bool, reason: str
) -> None:
    result = score_one(cluster(GPT, severity=severity), verify_min_severity=verify_min)
    assert result[4] is Status.UNVERIFIED
    assert result[5:] == (needs_verification, reason)


def test_only_low_severity_singletons_are_merely_listed() -> None:
    two = score_one(cluster(GPT, CLAUDE, severity=Severity.LOW))
    assert two[4:] == (
        Status.UNVERIFIED,
        True,
        "disputed: 2 of 4 families; needs verification",
    )
    one = score_one(cluster(GPT, severity=Severity.LOW))
    assert one[5] is False


def test_unanimous_consensus_never_needs_verification_even_when_critical() -> None:
    c = cluster(GPT, CLAUDE, GEMINI, QWEN, severity=Severity.CRITICAL)
    assert score_one(c)[4:6] == (Status.CONSENSUS, False)


# Three of four families agreeing on a severe claim is evidence, not
# proof. Consensus at or above check_consensus_min_severity that not every family reviewing
# the file reported goes to verification; unanimous, or below the setting, it is posted.
@pytest.mark.parametrize(
    ("members", "covered", "severity", "check_min", "checked"),
    [
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.HIGH, Severity.HIGH, True),
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.CRITICAL, Severity.HIGH, True),
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.MEDIUM, Severity.HIGH, False),
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.HIGH, Severity.CRITICAL, False),
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.MEDIUM, Severity.MEDIUM, True),
        ((GPT, CLAUDE, GEMINI), ALL4, Severity.LOW, Severity.INFO, True),
        ((GPT, CLAUDE, GEMINI, QWEN), ALL4, Severity.CRITICAL, Severity.INFO, False),
        # A failed family leaves the denominator: 3 of the 3 that reviewed it is unanimous.
        ((GPT, CLAUDE, GEMINI), frozenset({"openai", "anthropic", "google"}), Severity.HIGH,
         Severity.HIGH, False),
        # Personas of one provider are one family: 3 families of 4 still.
        ((GPT, member("openai/gpt-5.1", "openai", "security"), CLAUDE, GEMINI), ALL4,
         Severity.CRITICAL, Severity.HIGH, True),
    ],
)  # fmt: skip
def test_severe_consensus_not_every_family_reported_is_checked(
    members: tuple[Finding, ...],
    covered: frozenset[str],
    severity: Severity,
    check_min: Severity,
    checked: bool,
) -> None:
    result = score_one(cluster(*members, severity=severity), covered, check_min_severity=check_min)
    assert result[4] is Status.CONSENSUS  # still consensus: verification decides the rest
    assert result[5] is checked
    assert ("not unanimous" in result[6]) is checked


def test_threshold_is_applied() -> None:
    c = cluster(GPT, CLAUDE, GEMINI)
    assert score_one(c, threshold=0.75)[4] is Status.CONSENSUS
    assert score_one(c, threshold=1.0)[3:5] == (4, Status.UNVERIFIED)


def test_order_is_kept() -> None:
    clusters = [cluster(GPT), cluster(GPT, CLAUDE, GEMINI), cluster(QWEN, severity=Severity.LOW)]
    scored = score(
        clusters,
        {PATH: ALL4},
        threshold=0.75,
        verify_min_severity=Severity.MEDIUM,
        check_min_severity=Severity.HIGH,
    )
    assert [s.cluster for s in scored] == clusters
    assert [s.status for s in scored] == [Status.UNVERIFIED, Status.CONSENSUS, Status.UNVERIFIED]
