"""Where an ungrounded claim goes: never posted on consensus alone, however many families
agree; to the judges, told why; and, refuted or left unproven, into the not-posted list
with its reason, in every output that lists it."""

from __future__ import annotations

import asyncio
import json

from consensus.decide.report import report_findings
from consensus.decide.score import score
from consensus.model.base import Severity, Status
from consensus.model.findings import ScoredCluster
from consensus.ports import CompletionRequest
from consensus.render.markdown import findings_table
from consensus.render.sarif import render_sarif
from consensus.render.text import not_posted_text
from consensus.review.grounding import ground
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.review.verify import Reading, needs_check, verify
from consensus.settings.config import BudgetSettings, ProviderSettings, Settings
from consensus.testing import FakeModelClient
from tests.unit.test_grounding import DIFF, HEADS, PATH, cluster_of, reported
from tests.unit.test_render import make_report

PANEL = (
    ProviderSettings(model="openai/model", family="openai"),
    ProviderSettings(model="anthropic/model", family="anthropic"),
    ProviderSettings(model="google/model", family="google"),
    ProviderSettings(model="ollama/qwen2.5-coder:14b", family="qwen"),
)
# google's and qwen's reviews of the file failed: the two that reviewed it both reported it.
REVIEWED = {PATH: frozenset({"openai", "anthropic"})}
WHY = "line 9 is not on the change"


def scored_claim(*, grounded: bool) -> ScoredCluster:
    """Two families' paraphrases of one claim, both at line 9 (`subtotal`, off the change)
    quoting line 17, or both where the code they quote is."""
    line = 17 if grounded else 9
    members = (
        reported(line, "amount = subtotal(cart.items)", family="openai"),
        reported(line, "amount = subtotal(cart.items)", family="anthropic",
                 title="subtotal() ignores the discount"),
    )  # fmt: skip
    clusters = ground([cluster_of(*members)], DIFF, HEADS)
    [item] = score(
        clusters,
        REVIEWED,
        threshold=0.75,
        verify_min_severity=Severity.MEDIUM,
        check_min_severity=Severity.HIGH,
    )
    return item


def judged(
    item: ScoredCluster, verdict: str, *, qwen: str | None = None
) -> tuple[ScoredCluster, list[CompletionRequest]]:
    """The claim verified by google and qwen answering `verdict` (qwen `qwen`, when given)."""

    def answer(request: CompletionRequest) -> str:
        said = qwen if qwen is not None and request.model.startswith("ollama/") else verdict
        return json.dumps({"verdict": said, "reason": "subtotal is not where the claim says"})

    client = FakeModelClient(by_request=answer)
    ledger = Ledger(BudgetSettings(max_cost_usd=None, max_tokens=None))
    done = asyncio.run(
        verify(
            [item],
            diff=DIFF,
            panel=PANEL,
            settings=Settings(),
            client=GuardedClient(client, ledger),
            ledger=ledger,
            reading=Reading(),
        )
    )
    return done.items[0], list(client.calls)


def test_a_unanimous_grounded_claim_is_posted_on_consensus_without_a_judge() -> None:
    item = scored_claim(grounded=True)

    assert item.status is Status.CONSENSUS and item.cluster.ungrounded is None
    assert not needs_check(item, Settings().inspector)


def test_an_ungrounded_unanimous_claim_is_not_posted_on_consensus_and_goes_to_the_judges() -> None:
    item = scored_claim(grounded=False)

    assert (item.votes_for, item.votes_of) == (2, 2)
    assert item.status is Status.UNVERIFIED and not item.status.posted
    assert needs_check(item, Settings().inspector)
    assert f"ungrounded: {WHY}" in item.reason


def test_its_judges_are_told_it_is_ungrounded() -> None:
    _, calls = judged(scored_claim(grounded=False), "refuted")

    asked = [c for c in calls if c.schema_name == "verdict"]
    assert asked and {c.model for c in asked} <= {"google/model", "ollama/qwen2.5-coder:14b"}
    prompt = asked[0].messages[-1].content
    assert f"it does not hold at its place: {WHY}." in prompt
    assert "amount = subtotal(cart.items)" in prompt  # what its reporter quoted


def test_refuted_it_is_rejected_and_listed_with_its_reason() -> None:
    item, _ = judged(scored_claim(grounded=False), "refuted")
    [finding] = report_findings([item])

    assert finding.status is Status.REJECTED and finding.ungrounded == WHY
    assert not_posted_text(finding).startswith(f"ungrounded: {WHY}; rejected")


def test_left_unproven_it_is_not_posted_and_every_output_says_why() -> None:
    item, _ = judged(scored_claim(grounded=False), "confirmed", qwen="refuted")
    [finding] = report_findings([item])

    assert finding.status in (Status.UNDECIDED, Status.UNVERIFIED) and finding.ungrounded == WHY
    assert f"ungrounded: {WHY}" in not_posted_text(finding)  # the terminal
    assert any(f"ungrounded: {WHY}" in row for row in findings_table([finding], with_reason=True))
    [result] = json.loads(render_sarif(make_report([finding])))["runs"][0]["results"]
    assert (
        result["properties"]["ungrounded"] == WHY and "ungrounded" in result["properties"]["tags"]
    )


def test_confirmed_by_its_judges_it_is_posted_and_still_says_it_was_ungrounded() -> None:
    item, _ = judged(scored_claim(grounded=False), "confirmed")
    [finding] = report_findings([item])

    assert finding.status is Status.VERIFIED and finding.ungrounded == WHY


def test_a_consensus_nobody_quoted_code_for_that_not_every_family_reported_goes_to_judges() -> None:
    members = [
        reported(20, None, family=family).model_copy(update={"severity": Severity.LOW})
        for family in ("openai", "anthropic")
    ]
    quoted = [m.model_copy(update={"evidence": "if rate:"}) for m in members]
    three = {PATH: frozenset({"openai", "anthropic", "google"})}

    def scored(found: list) -> ScoredCluster:  # type: ignore[type-arg]
        [item] = score(
            ground([cluster_of(*found)], DIFF, HEADS),
            three,
            threshold=0.6,
            verify_min_severity=Severity.MEDIUM,
            check_min_severity=Severity.HIGH,
        )
        return item

    blind, shown = scored(members), scored(quoted)
    assert blind.status is Status.CONSENSUS and blind.needs_verification  # posted unless rejected
    assert "no evidence quoted" in blind.reason
    assert shown.status is Status.CONSENSUS and not shown.needs_verification
