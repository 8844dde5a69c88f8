"""Carrying decisions between runs (publish/carry.py): the same code gets the same answer,
a fresh look says what it decided differently, and nothing half-decided is ever carried."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib

import pytest

from consensus.ingest.review_diff import ingest
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.report import ProviderReport, Quorum, Report, ReportFinding, Votes
from consensus.publish.carry import (
    Carried,
    Carry,
    carried_report,
    decision_changes,
    diff_digests,
    next_decisions,
    plan_carry,
    without_paths,
)
from consensus.publish.records import finding_records
from consensus.publish.state import (
    MAX_RECORDS,
    MAX_STATE_CHARS,
    STATE_VERSION,
    DecidedFile,
    Decisions,
    PublishState,
    decode_state,
    encode_state,
)

OLD, NEW = "a1b2c3d" + "0" * 33, "e4f5a6b" + "0" * 33
BASIS = "b" * 32
PATCH = """\
diff --git a/src/app/db.py b/src/app/db.py
--- a/src/app/db.py
+++ b/src/app/db.py
@@ -1,3 +1,4 @@
 import sqlite3
+query = f"SELECT * FROM users WHERE id = {user_id}"
 def get_user(conn, user_id):
     return conn.execute(query)
diff --git a/src/app/jobs.py b/src/app/jobs.py
--- a/src/app/jobs.py
+++ b/src/app/jobs.py
@@ -10,2 +10,3 @@ def run():
     for i in range(len(ids) + 1):
+        delete(ids[i])
     commit()
"""
PANEL = (
    ProviderReport(
        model="openai/gpt-5.1",
        family="openai",
        status="ok",
        files_seen=["src/app/db.py", "src/app/jobs.py"],
    ),
    ProviderReport(
        model="anthropic/claude-sonnet-4-5",
        family="anthropic",
        status="ok",
        files_seen=["src/app/db.py", "src/app/jobs.py"],
    ),
    ProviderReport(model="ollama/qwen2.5-coder:14b", family="qwen", status="skipped"),
)


def finding(
    n: int,
    path: str = "src/app/db.py",
    *,
    status: Status = Status.CONSENSUS,
    title: str = "SQL built with an f-string",
    verification: Verification | None = None,
    votes: tuple[int, int] = (2, 2),
) -> ReportFinding:
    return ReportFinding(
        id=f"F{n}",
        fingerprint=f"{n:016x}",
        path=path,
        line=2,
        end_line=2,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title=title,
        body="user_id reaches the query unescaped.",
        agreement=votes[0] / votes[1],
        votes=Votes(**{"for": votes[0], "of": votes[1]}),
        providers=["anthropic/claude-sonnet-4-5", "openai/gpt-5.1"],
        personas=["security"],
        status=status,
        verification=verification,
    )


def checked(*verdicts: VerdictKind | None) -> Verification:
    votes = tuple(
        Vote(model="google/gemini-2.5-pro", family="google", role="voter", verdict=v, reason="r")
        for v in verdicts
    )
    return Verification(
        confirmed=sum(v is VerdictKind.CONFIRMED for v in verdicts),
        refuted=sum(v is VerdictKind.REFUTED for v in verdicts),
        uncertain=sum(
            v is not VerdictKind.CONFIRMED and v is not VerdictKind.REFUTED for v in verdicts
        ),
        ahead_by=2,
        votes=votes,
    )


def report(*findings: ReportFinding, **update: object) -> Report:
    made = Report(
        run_id="r1",
        findings=list(findings),
        providers=list(PANEL),
        quorum=Quorum(families_answered=2, min_providers=2, met=True),
        threshold=0.75,
    )
    return made.model_copy(update=update)


def decided_state(*findings: ReportFinding, basis: str = BASIS) -> PublishState:
    """The state a first run on OLD leaves: its records and the files it decided."""
    diff = ingest(PATCH)
    first = report(*findings)
    decisions = next_decisions(
        first, Carry(), diff_digests(diff), head_sha=OLD, basis=basis, fresh_run=True
    )
    return PublishState(head_sha=OLD, records=finding_records(first.findings), decisions=decisions)


SQL = finding(1)
LOOP = finding(
    2,
    "src/app/jobs.py",
    title="Reads one past the end",
    verification=checked(VerdictKind.REFUTED, VerdictKind.REFUTED),
    status=Status.REJECTED,
    votes=(1, 2),
)


def test_a_first_run_decides_every_file_it_could_review() -> None:
    state = decided_state(SQL, LOOP)
    assert state.decisions is not None
    assert [(f.path, f.head_sha, f.findings) for f in state.decisions.files] == [
        ("src/app/db.py", OLD, 1),
        ("src/app/jobs.py", OLD, 1),
    ]
    assert [(p.model, p.family) for p in state.decisions.panel] == [
        ("openai/gpt-5.1", "openai"),
        ("anthropic/claude-sonnet-4-5", "anthropic"),
    ]


def test_the_same_diff_carries_every_decision_as_it_was_made() -> None:
    state = decided_state(SQL, LOOP)
    carry = plan_carry(state, diff_digests(ingest(PATCH)), basis=BASIS, fresh=False)
    assert carry.paths == {"src/app/db.py", "src/app/jobs.py"}
    assert [(f.id, f.status, f.carried_from) for f in carry.findings] == [
        ("F1", Status.CONSENSUS, OLD),
        ("F2", Status.REJECTED, OLD),  # rejected stays rejected: no verifier asked again
    ]
    loop = carry.findings[1]
    assert loop.verification is not None and loop.verification.refuted == 2
    assert loop.verification.votes[0].family == "google"


CHANGES = [
    # (what differs in the next run, files carried)
    ("nothing", {"src/app/db.py", "src/app/jobs.py"}),
    ("jobs.py changed", {"src/app/db.py"}),
    ("db.py moved down a line", {"src/app/jobs.py"}),
    ("the settings changed", set()),
    ("a fresh look", set()),
    ("jobs.py's record did not fit", {"src/app/db.py"}),
]


@pytest.mark.parametrize(("change", "carried"), CHANGES)
def test_only_unchanged_files_under_the_same_settings_are_carried(
    change: str, carried: set[str]
) -> None:
    state = decided_state(SQL, LOOP)
    patch, basis, fresh = PATCH, BASIS, False
    if change == "jobs.py changed":
        patch = PATCH.replace("delete(ids[i])", "remove(ids[i])")
    if change == "db.py moved down a line":
        patch = PATCH.replace("@@ -1,3 +1,4 @@", "@@ -2,3 +2,4 @@")
    if change == "the settings changed":
        basis = "c" * 32
    if change == "a fresh look":
        fresh = True
    if change == "jobs.py's record did not fit":
        state = state.model_copy(update={"records": state.records[:1]})
    carry = plan_carry(state, diff_digests(ingest(patch)), basis=basis, fresh=fresh)
    assert carry.paths == carried
    assert {f.path for f in carry.findings} <= carried
    if change in ("the settings changed", "a fresh look"):  # compared, not carried
        assert {e.record.fingerprint for e in carry.earlier} == {SQL.fingerprint, LOOP.fingerprint}


def test_a_state_without_decisions_carries_nothing() -> None:
    state = decided_state(SQL).model_copy(update={"decisions": None})
    assert plan_carry(state, diff_digests(ingest(PATCH)), basis=BASIS, fresh=False) == Carry()


NOT_DECIDED = [
    ("a provider that was called did not see the file", "unseen"),
    ("a verifier call failed", "failed vote"),
    ("the budget stopped verification", "budget stopped"),
]


@pytest.mark.parametrize(("why", "case"), NOT_DECIDED)
def test_a_file_the_run_could_not_fully_decide_is_decided_again(why: str, case: str) -> None:
    providers = list(PANEL)
    sql = SQL
    if case == "unseen":
        providers[1] = providers[1].model_copy(update={"files_seen": ["src/app/jobs.py"]})
    if case == "failed vote":
        sql = finding(1, verification=checked(VerdictKind.CONFIRMED, None))
    if case == "budget stopped":
        sql = finding(
            1,
            verification=checked(VerdictKind.CONFIRMED).model_copy(update={"budget_stopped": True}),
        )
    made = report(sql, LOOP, providers=providers)
    decisions = next_decisions(
        made, Carry(), diff_digests(ingest(PATCH)), head_sha=OLD, basis=BASIS, fresh_run=True
    )
    assert [f.path for f in decisions.files] == ["src/app/jobs.py"], why


@pytest.mark.parametrize(
    "update",
    [
        {"quorum": Quorum(families_answered=1, min_providers=2, met=False)},
        {"budget_exhausted": True},
    ],
)
def test_a_run_without_quorum_or_budget_decides_nothing_new(update: dict[str, object]) -> None:
    made = report(SQL, **update)
    decisions = next_decisions(
        made, Carry(), diff_digests(ingest(PATCH)), head_sha=OLD, basis=BASIS, fresh_run=True
    )
    assert decisions.files == ()


def test_a_file_with_more_findings_than_the_state_keeps_is_never_carried() -> None:
    many = [finding(n, title=f"Problem {n}") for n in range(1, MAX_RECORDS + 2)]
    decisions = next_decisions(
        report(*many),
        Carry(),
        diff_digests(ingest(PATCH)),
        head_sha=OLD,
        basis=BASIS,
        fresh_run=True,
    )
    assert [f.path for f in decisions.files] == ["src/app/jobs.py"]


def test_a_push_merges_carried_and_new_findings_and_numbers_them_in_report_order() -> None:
    state = decided_state(SQL, LOOP)
    pushed = ingest(PATCH.replace("delete(ids[i])", "remove(ids[i])"))
    digests = diff_digests(pushed)
    carry = plan_carry(state, digests, basis=BASIS, fresh=False)
    assert without_paths(pushed, carry.paths).files[0].path == "src/app/jobs.py"
    fresh = report(finding(7, "src/app/jobs.py", title="Deletes past the end"))
    carried = Carried(carry, without_paths(pushed, carry.paths), digests, BASIS)
    merged = carried.report(fresh, pushed, run_id=fresh.run_id, threshold=0.75, workflow=None)
    assert [(f.id, f.path, f.carried_from) for f in merged.findings] == [
        ("F1", "src/app/db.py", OLD),
        ("F2", "src/app/jobs.py", None),
    ]
    assert merged.stats.consensus == 2
    assert merged.stats.clusters == fresh.stats.clusters + 1
    decisions = next_decisions(merged, carry, digests, head_sha=NEW, basis=BASIS, fresh_run=True)
    assert [(f.path, f.head_sha) for f in decisions.files] == [
        ("src/app/db.py", OLD),  # decided on OLD, and still is
        ("src/app/jobs.py", NEW),
    ]


def test_a_run_that_carries_everything_reports_what_was_decided_with_no_call() -> None:
    state = decided_state(SQL, LOOP)
    diff = ingest(PATCH)
    carry = plan_carry(state, diff_digests(diff), basis=BASIS, fresh=False)
    again = carried_report(carry, diff, run_id="r2", threshold=0.75, workflow=None)
    assert [(f.id, f.status) for f in again.findings] == [
        ("F1", Status.CONSENSUS),
        ("F2", Status.REJECTED),
    ]
    assert again.quorum.met and again.stats.calls == 0 and again.stats.rejected == 1
    assert [p.model for p in again.providers] == ["openai/gpt-5.1", "anthropic/claude-sonnet-4-5"]
    decisions = next_decisions(
        again, carry, diff_digests(diff), head_sha=NEW, basis=BASIS, fresh_run=False
    )
    assert decisions == state.decisions  # carried again, still on OLD


FRESH_LOOKS = [
    # (this run's findings, the changes it reports as (id, before, after))
    ((SQL, LOOP), []),
    (
        (
            SQL,
            finding(
                2,
                "src/app/jobs.py",
                title="Reads one past the end",
                status=Status.VERIFIED,
                verification=checked(
                    VerdictKind.CONFIRMED, VerdictKind.CONFIRMED, VerdictKind.REFUTED
                ),
                votes=(1, 2),
            ),
        ),
        [
            (
                "F2",
                "rejected (refuted by google (2 of 2))",
                "verified (confirmed by google (2 of 3), refuted by google (1 of 3))",
            )
        ],
    ),
    ((LOOP,), [("", "consensus 2/2", "not reported")]),
    (
        (SQL, LOOP, finding(3, "src/app/jobs.py", title="commit() outside the loop")),
        [("F3", "not reported", "consensus 2/2")],
    ),
]


@pytest.mark.parametrize(("now", "changes"), FRESH_LOOKS)
def test_a_fresh_look_reports_each_decision_it_made_differently(
    now: tuple[ReportFinding, ...], changes: list[tuple[str, str, str]]
) -> None:
    state = decided_state(SQL, LOOP)
    carry = plan_carry(state, diff_digests(ingest(PATCH)), basis=BASIS, fresh=True)
    found = decision_changes(report(*now).findings, carry)
    assert [(c.id, c.before, c.after) for c in found] == changes
    assert {c.before_head for c in found} <= {OLD}


def test_decisions_round_trip_through_the_summary_state() -> None:
    state = decided_state(SQL, LOOP)
    line = encode_state(state)
    assert decode_state(f"summary\n{line}") == state.model_copy(update={"version": STATE_VERSION})


@pytest.mark.parametrize(
    "bad",
    [
        {"digest": "not-hex" * 4},
        {"digest": "ab" * 8},  # too short to stand for a diff
        {"head_sha": "<img src=x>"},
        {"findings": MAX_RECORDS + 1},
    ],
)
def test_a_decided_file_is_validated_as_it_is_read(bad: dict[str, object]) -> None:
    good = DecidedFile(path="src/app/db.py", digest="a" * 32, head_sha=OLD, findings=1)
    decisions = Decisions(basis=BASIS, families_answered=2, min_providers=2, files=(good,))
    state = PublishState(head_sha=OLD, decisions=decisions)
    forged = state.model_dump(mode="json")
    forged["decisions"]["files"][0].update(bad)
    packed = base64.b64encode(zlib.compress(json.dumps(forged).encode())).decode()
    assert decode_state(f"<!-- consensus:state v4 {packed} -->") is None


def test_under_size_pressure_records_give_way_before_the_decisions() -> None:
    def noise(n: int) -> str:  # model prose compresses; this does not, like a long reply
        return "".join(hashlib.sha256(f"{n}-{k}".encode()).hexdigest() for k in range(24))

    many = [
        finding(n, title=noise(-n)[:200]).model_copy(update={"body": noise(n)})
        for n in range(1, MAX_RECORDS + 1)
    ]
    state = decided_state(*many)
    assert state.decisions is not None and len(state.decisions.files) == 2
    squeezed = decode_state(encode_state(state))
    assert len(encode_state(state)) <= MAX_STATE_CHARS
    assert squeezed is not None and squeezed.decisions == state.decisions
    assert len(squeezed.records) < len(state.records)  # records gave way
    carry = plan_carry(squeezed, diff_digests(ingest(PATCH)), basis=BASIS, fresh=False)
    assert carry.paths == {"src/app/jobs.py"}  # db.py lost records: it is decided again


def test_an_older_state_reads_with_no_decisions() -> None:
    old = PublishState(head_sha=OLD, records=finding_records([SQL]))
    line = encode_state(old).replace(f"v{STATE_VERSION}", "v3", 1)
    read = decode_state(line)
    assert read is not None and read.decisions is None and read.records[0].id == "F1"
