"""Independence of the judges: no family is asked about a claim it reported while a family
that did not report it can answer, whichever way the claim reached the judges (a live
cluster, a recorded finding, a reporter recorded by model alone or under another family, a
configured judge that did not answer the review) and however long the walk goes."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence

import pytest

from consensus.decide.judgement import Judgement, claim_of
from consensus.model.base import Category, FileStatus, FindingSource, Severity, Status
from consensus.model.claim import Claim
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff
from consensus.model.findings import Cluster, Finding, ScoredCluster
from consensus.ports import CompletionRequest, ModelCallError
from consensus.publish.claims import claim_of_record
from consensus.publish.state import FindingRecord, MemberNote
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.review.verify import Panel, judge_claims
from consensus.settings.config import BudgetSettings, InspectorSettings, ProviderSettings, Settings
from consensus.testing import FakeModelClient, timed_out

OPENAI = ProviderSettings(model="openai/gpt-5.1")
AZURE = ProviderSettings(model="azure/prod-gpt", family="openai")  # openai through a gateway
ANTHROPIC = ProviderSettings(model="anthropic/claude-sonnet-4-5")
GOOGLE = ProviderSettings(model="gemini/gemini-2.5-pro")
QWEN = ProviderSettings(model="ollama/qwen2.5-coder:14b")
MISTRAL = ProviderSettings(model="mistral/mistral-large-latest")
# Configured, but its review failed: not on the judges' panel.
TUNED = ProviderSettings(
    model="hosted_vllm/coder-ft", family="qwen", api_base="http://gpu-box:8000/v1"
)

DIFF = ReviewDiff(
    files=(
        ChangedFile(
            path="src/billing/refund.py",
            status=FileStatus.MODIFIED,
            hunks=(
                Hunk(
                    old_start=40,
                    old_length=0,
                    new_start=41,
                    new_length=2,
                    lines=(
                        DiffLine(kind="+", text="def refund(order, amount):", new_line=41),
                        DiffLine(kind="+", text="    order.total -= amount", new_line=42),
                    ),
                ),
            ),
        ),
    )
)
TITLE = "Refund can exceed the order total"
BODY = "`amount` is never checked against `order.total`: a refund can drive it negative."


def finding(provider: ProviderSettings) -> Finding:
    return Finding(
        provider=provider.model,
        family=provider.voting_family,
        source=FindingSource.MODEL,
        persona="correctness",
        chunk=0,
        path="src/billing/refund.py",
        line=42,
        end_line=42,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=TITLE,
        body=BODY,
    )


def disputed(reporters: Sequence[ProviderSettings], reviewing: int) -> ScoredCluster:
    cluster = Cluster(
        path="src/billing/refund.py",
        line=42,
        end_line=42,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=TITLE,
        body=BODY,
        members=tuple(finding(p) for p in reporters),
        fingerprint="9f2c4e1a77b0d3e5",
    )
    families = len({p.voting_family for p in reporters})
    return ScoredCluster(
        cluster=cluster,
        votes_for=families,
        votes_of=reviewing,
        agreement=families / reviewing,
        needed=reviewing,
        status=Status.UNVERIFIED,
        reason=f"disputed: {families} of {reviewing} families; needs verification",
        needs_verification=True,
    )


def record(reporters: Sequence[ProviderSettings], *, members: bool, family: str = "") -> Claim:
    """The claim `/consensus verify F1` makes of a recorded finding: with its members (each
    under `family` when given, as an older run recorded it), or kept by model alone."""
    notes = tuple(
        MemberNote(provider=p.model, family=family or p.voting_family, persona="correctness",
                   title=TITLE)
        for p in reporters
    )  # fmt: skip
    return claim_of_record(
        FindingRecord(
            id="F1",
            fingerprint="9f2c4e1a77b0d3e5",
            path="src/billing/refund.py",
            line=42,
            end_line=42,
            severity=Severity.HIGH,
            category=Category.BUG,
            title=TITLE,
            body=BODY,
            status=Status.UNVERIFIED,
            votes_for=len(reporters),
            votes_of=4,
            providers=tuple(sorted(p.model for p in reporters)),
            personas=("correctness",),
            members=notes if members else (),
        )
    )


def answers(failing: frozenset[str] = frozenset()) -> FakeModelClient:
    """Judges that split on the claim (a long walk), the same answer for the same question;
    the models in `failing` time out."""

    def answer(request: CompletionRequest) -> str | ModelCallError:
        if request.model in failing:
            return timed_out()
        text = request.model + request.messages[-1].content
        kind = ("confirmed", "refuted", "uncertain")[hashlib.sha256(text.encode()).digest()[0] % 3]
        return json.dumps({"verdict": kind, "reason": f"the code shows it is {kind}"})

    return FakeModelClient(by_request=answer)


def judged(
    claim: Claim,
    panel: Sequence[ProviderSettings],
    client: FakeModelClient,
    inspector: InspectorSettings | None = None,
    configured: Sequence[ProviderSettings] = (),
) -> Judgement:
    settings = Settings(inspector=inspector or InspectorSettings(), providers=tuple(configured))
    ledger = Ledger(BudgetSettings(max_cost_usd=None, max_tokens=None))
    judges = Panel(DIFF, panel, settings, GuardedClient(client, ledger), ledger, None)
    [judgement] = asyncio.run(judge_claims([claim], judges)).judgements
    return judgement


def families_asked(client: FakeModelClient, providers: Sequence[ProviderSettings]) -> list[str]:
    """The family each judge call went to, as the settings name the provider called."""
    family = {p.model: p.voting_family for p in providers}
    return [family[call.model] for call in client.calls]


# --------------------------------------------------------------------------- each path


def test_a_configured_inspector_that_did_not_answer_is_still_of_its_family() -> None:
    # qwen's fine-tune is the configured inspector; its review failed, so it is not on the
    # panel. qwen reported the claim, and anthropic and google answered: they judge it.
    client = answers()
    judged(
        claim_of(disputed([QWEN, OPENAI], reviewing=4)),
        [OPENAI, ANTHROPIC, GOOGLE, QWEN],
        client,
        InspectorSettings(model=TUNED.model),
        configured=[OPENAI, ANTHROPIC, GOOGLE, QWEN, TUNED],
    )
    asked = families_asked(client, [OPENAI, ANTHROPIC, GOOGLE, QWEN, TUNED])
    assert asked and set(asked) <= {"anthropic", "google"}


def test_a_configured_judge_off_the_panel_is_called_at_its_own_endpoint() -> None:
    tuned = ProviderSettings(model=TUNED.model, family="mistral", api_base=TUNED.api_base)
    client = answers()
    judged(
        claim_of(disputed([QWEN], reviewing=3)),
        [OPENAI, QWEN, GOOGLE],
        client,
        InspectorSettings(model=tuned.model),
        configured=[OPENAI, QWEN, GOOGLE, tuned],
    )
    first = client.calls[0]
    assert (first.model, first.api_base) == (tuned.model, "http://gpu-box:8000/v1")


def test_a_finding_recorded_without_its_members_is_not_judged_by_its_reporters() -> None:
    # `/consensus verify F1` on a record that kept its providers' names but not its
    # members: openai and anthropic reported it, google and qwen judge it.
    client = answers()
    verdict = judged(
        record([OPENAI, ANTHROPIC], members=False), [OPENAI, ANTHROPIC, GOOGLE, QWEN], client
    )
    assert set(families_asked(client, [OPENAI, ANTHROPIC, GOOGLE, QWEN])) <= {"google", "qwen"}
    assert not any(v.self_vote for v in verdict.verification.votes)


def test_a_reporter_recorded_under_another_family_is_still_a_reporter() -> None:
    # An older run recorded azure/prod-gpt under the family its name gave then; it votes
    # for openai now, as openai/gpt-5.1 does: neither judges what it reported.
    client = answers()
    judged(
        record([AZURE], members=True, family="prod-gpt"),
        [OPENAI, AZURE, ANTHROPIC, GOOGLE],
        client,
    )
    asked = families_asked(client, [OPENAI, AZURE, ANTHROPIC, GOOGLE])
    assert asked and "openai" not in asked


def test_a_claim_its_reporters_judged_says_so() -> None:
    # Every family that answered reported it: only then do reporters judge, and the
    # verdict says who judged.
    verdict = judged(claim_of(disputed([OPENAI, ANTHROPIC], reviewing=2)), [OPENAI, ANTHROPIC],
                     answers())  # fmt: skip
    assert verdict.verification.votes
    assert all(v.self_vote for v in verdict.verification.votes)
    assert "judged by its reporters: no other family answered" in verdict.reason


# --------------------------------------------------------------------------- every walk

PANELS = {
    "three": (OPENAI, ANTHROPIC, GOOGLE),
    "four": (OPENAI, ANTHROPIC, GOOGLE, QWEN),
    "four-two-gateways": (OPENAI, AZURE, ANTHROPIC, GOOGLE, QWEN),
    "five": (OPENAI, ANTHROPIC, GOOGLE, QWEN, MISTRAL),
}
HOW = ("live", "recorded", "recorded-by-model", "inspector-off-panel")


def claim_made(
    how: str, reporters: Sequence[ProviderSettings], panel: Sequence[ProviderSettings]
) -> Claim:
    if how == "live":
        return claim_of(disputed(reporters, reviewing=len({p.voting_family for p in panel})))
    return record(reporters, members=how != "recorded-by-model")


@pytest.mark.parametrize("rule", ["weighed", "ahead-by-k"])
@pytest.mark.parametrize(("ahead_by", "max_votes"), [(1, None), (2, 3), (3, None), (3, 25)])
@pytest.mark.parametrize("failing", [False, True], ids=["answering", "first-judge-fails"])
@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("name", list(PANELS))
def test_no_own_family_call_while_an_independent_family_can_answer(
    name: str, how: str, failing: bool, ahead_by: int, max_votes: int | None, rule: str
) -> None:
    panel = PANELS[name]
    configured = [*panel, TUNED]
    # Two families report; the families of AZURE and OPENAI are one, so the two-gateway
    # panel's claim is openai's through azure and qwen's.
    reporters = [AZURE, QWEN] if AZURE in panel else [OPENAI, ANTHROPIC]
    reporting = {p.voting_family for p in reporters}
    independent = [p for p in panel if p.voting_family not in reporting]
    inspector = InspectorSettings(
        model=TUNED.model if how == "inspector-off-panel" else None,
        ahead_by=ahead_by,
        max_votes=max_votes,
        rule=rule,
    )
    client = answers(frozenset({independent[0].model}) if failing else frozenset())
    verdict = judged(claim_made(how, reporters, panel), panel, client, inspector, configured)
    asked = families_asked(client, configured)
    assert asked
    assert not reporting & set(asked), asked
    assert not any(v.self_vote for v in verdict.verification.votes)
