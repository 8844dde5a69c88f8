"""One conversion each way between a report's finding and the state's record of it, and the
built-in scan as a finding's source (not a provider recognised by its name)."""

from __future__ import annotations

from consensus.decide.report import report_findings
from consensus.ingest.detections import committed_credentials, settle
from consensus.ingest.review_diff import ingest
from consensus.model.base import SCAN_NAME, Category, FindingSource, Severity, Status, VerdictKind
from consensus.model.findings import Cluster, Finding, ScoredCluster, Verification, Vote
from consensus.model.report import FindingMember, ReportFinding, Votes
from consensus.publish.inline import established
from consensus.publish.records import finding_record, report_finding
from consensus.publish.state import FindingRecord, PublishState, decode_state, encode_state

KEY_PATCH = """diff --git a/src/billing/client.py b/src/billing/client.py
index 1111111..2222222 100644
--- a/src/billing/client.py
+++ b/src/billing/client.py
@@ -1,2 +1,3 @@
 import stripe
+stripe.api_key = "sk_live_51HqLyjWDarjtT1zdp7dcXz4M0bRt6qPWn7mVbJk2cLx"
 client = stripe.StripeClient()
"""

VERIFIED = ReportFinding(
    id="F1",
    fingerprint="9f2c4e1a7b3d5c60",
    path="src/app/db.py",
    line=41,
    end_line=43,
    severity=Severity.HIGH,
    category=Category.SECURITY,
    title="SQL built with an f-string from user_id",
    body="`user_id` reaches `cursor.execute` unescaped; pass it as a parameter.",
    agreement=0.6667,
    votes=Votes(**{"for": 2, "of": 3}),
    providers=["anthropic/claude-sonnet-4-5", "openai/gpt-5.1"],
    personas=["security"],
    status=Status.VERIFIED,
    verification=Verification(
        confirmed=2,
        refuted=0,
        uncertain=1,
        ahead_by=2,
        votes=(
            Vote(
                model="gemini/gemini-2.5-pro",
                family="google",
                role="inspector",
                verdict=VerdictKind.CONFIRMED,
                reason="The f-string is passed to execute() as is.",
            ),
            Vote(
                model="ollama/qwen2.5-coder:14b",
                family="qwen",
                role="voter",
                verdict=None,
                reason="timed out",
            ),
        ),
    ),
    reason="verified 2–0",
    members=(
        FindingMember(
            provider="openai/gpt-5.1",
            family="openai",
            persona="security",
            line=41,
            title="SQL injection via user_id",
        ),
        FindingMember(
            provider="anthropic/claude-sonnet-4-5",
            family="anthropic",
            persona="security",
            line=41,
            title="Query string interpolates user input",
        ),
    ),
)


def test_a_finding_read_back_from_its_record_is_the_finding_as_reported() -> None:
    back = report_finding(finding_record(VERIFIED), carried_from="a1b2c3d")
    assert back == VERIFIED.model_copy(update={"carried_from": "a1b2c3d"})


def test_a_record_of_a_finding_read_back_is_the_same_record() -> None:
    record = finding_record(VERIFIED)
    assert finding_record(report_finding(record)) == record


def test_a_member_reads_back_at_the_findings_line_the_record_keeps_no_other() -> None:
    moved = VERIFIED.model_copy(
        update={"members": (VERIFIED.members[0].model_copy(update={"line": 40}),)}
    )
    assert report_finding(finding_record(moved)).members[0].line == VERIFIED.line


def scan_clusters() -> list[ScoredCluster]:
    [found] = committed_credentials(ingest(KEY_PATCH))
    cluster = Cluster(
        path=found.path,
        line=found.line,
        end_line=found.end_line,
        severity=found.severity,
        category=found.category,
        title=found.title,
        body=found.body,
        members=(found,),
        fingerprint="0a1b2c3d4e5f6071",
    )
    scored = ScoredCluster(
        cluster=cluster,
        votes_for=1,
        votes_of=3,
        agreement=0.3333,
        needed=3,
        status=Status.UNVERIFIED,
        needs_verification=False,
        reason="",
    )
    return settle([scored])


def test_the_scan_reports_as_its_source_under_its_own_name() -> None:
    [item] = scan_clusters()
    [member] = item.cluster.members
    assert (member.source, member.provider) == (FindingSource.SCAN, SCAN_NAME)
    assert item.status is Status.CONSENSUS and item.votes_for == 0
    assert item.cluster.model_families == frozenset()


def test_the_scan_survives_the_state_and_the_report_stored_as_its_source() -> None:
    [reported] = report_findings(scan_clusters())
    record_json = finding_record(reported).model_dump_json()
    assert '"source":"scan"' in record_json
    line = encode_state(PublishState(head_sha="a1b2c3d", records=(finding_record(reported),)))
    state = decode_state(line)
    assert state is not None
    [record] = state.records
    assert record.found_by_scan and report_finding(record).found_by_scan
    assert established(report_finding(record)).startswith("Found by consensus's own scan")
    assert '"source":"scan"' in reported.model_dump_json()
    assert ReportFinding.model_validate_json(reported.model_dump_json()).found_by_scan


def test_a_models_member_is_stored_as_it_always_was_without_a_source() -> None:
    [reported] = report_findings([with_members(scan_clusters()[0], (model_finding(),))])
    assert '"source"' not in reported.model_dump_json()
    assert '"source"' not in finding_record(reported).model_dump_json()


def test_a_state_written_before_the_source_was_stored_still_reads_the_scan_by_name() -> None:
    [reported] = report_findings(scan_clusters())
    stored = finding_record(reported).model_dump_json()
    older = stored.replace(',"source":"scan"', "")  # as a summary posted by an older version
    assert '"source"' not in older
    assert FindingRecord.model_validate_json(older).found_by_scan


def model_finding() -> Finding:
    return Finding(
        provider="openai/gpt-5.1",
        family="openai",
        persona="security",
        chunk=0,
        path="src/billing/client.py",
        line=2,
        end_line=2,
        severity=Severity.CRITICAL,
        category=Category.SECURITY,
        title="Live Stripe key committed",
        body="Rotate the key and read it from the environment.",
    )


def with_members(scored: ScoredCluster, members: tuple[Finding, ...]) -> ScoredCluster:
    return scored.model_copy(
        update={"cluster": scored.cluster.model_copy(update={"members": members})}
    )


def test_a_model_is_never_taken_for_the_scan() -> None:
    model = model_finding()
    assert model.source is FindingSource.MODEL
    [item] = report_findings([with_members(s, (model,)) for s in scan_clusters()])
    assert not item.found_by_scan and item.model_providers == ["openai/gpt-5.1"]
