"""The publish decisions, as tables: placement, review event, resolution, markers, limits."""

from __future__ import annotations

import pytest

from consensus.ingest.hunks import right_side_hunks
from consensus.model.base import SCAN_NAME, Category, FindingSource, Severity, Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.host import GITHUB_WORDS
from consensus.model.report import FindingMember, Quorum, Report, ReportFinding, Votes
from consensus.ports import HostComment, InlineComment
from consensus.publish.inline import inline_body
from consensus.publish.plan import (
    Placement,
    PlannedReview,
    Scope,
    move_to_summary,
    plan_publish,
    suspect_comments,
)
from consensus.publish.state import PublishState, TrackedFinding, decode_state, encode_state
from consensus.publish.summary import GITHUB_LIMIT, render_summary
from consensus.publish.thread import (
    SUMMARY_MARKER,
    PullRequestThread,
    fingerprint_marker,
    read_thread,
)
from consensus.settings.config import PublishSettings

HEAD = "a" * 40
HUNKS = {"app.py": [frozenset(range(10, 21)), frozenset(range(40, 46))]}
LINKS = ("https://github.com/acme/service/",)


def make(
    n: int = 1,
    *,
    status: Status = Status.CONSENSUS,
    severity: Severity = Severity.HIGH,
    path: str = "app.py",
    line: int = 12,
    end_line: int | None = None,
    title: str = "A problem",
    body: str = "Why it matters.",
    verification: Verification | None = None,
) -> ReportFinding:
    return ReportFinding(
        id=f"F{n}",
        fingerprint=f"{n:016x}",
        path=path,
        line=line,
        end_line=end_line or line,
        severity=severity,
        category=Category.BUG,
        title=title,
        body=body,
        agreement=0.75,
        votes=Votes(**{"for": 3, "of": 4}),
        providers=["anthropic/c", "google/g", "openai/o"],
        personas=["correctness"],
        status=status,
        verification=verification,
    )


def report(*findings: ReportFinding, quorum: bool = True) -> Report:
    return Report(
        run_id="r1",
        findings=list(findings),
        quorum=Quorum(families_answered=4 if quorum else 1, min_providers=2, met=quorum),
        threshold=0.75,
    )


def plan(
    *findings: ReportFinding,
    thread: PullRequestThread | None = None,
    settings: PublishSettings | None = None,
    quorum: bool = True,
    reviewed: tuple[str, ...] = ("app.py",),
    in_diff: tuple[str, ...] = ("app.py",),
):  # type: ignore[no-untyped-def]
    return plan_publish(
        report(*findings, quorum=quorum),
        thread or PullRequestThread(),
        settings or PublishSettings(),
        scope=Scope(head_sha=HEAD, reviewed=reviewed, in_diff=in_diff),
        hunks=HUNKS,
        links=LINKS,
    )


PLACEMENTS = [
    # (status, severity, line, posted before, quorum, expected)
    (Status.CONSENSUS, Severity.HIGH, 12, False, True, Placement.INLINE),
    (Status.VERIFIED, Severity.MEDIUM, 12, False, True, Placement.INLINE),
    (Status.UNVERIFIED, Severity.HIGH, 12, False, True, Placement.NOT_POSTED),
    (Status.UNDECIDED, Severity.CRITICAL, 12, False, True, Placement.NOT_POSTED),
    (Status.REJECTED, Severity.CRITICAL, 12, False, True, Placement.NOT_POSTED),
    (Status.CONSENSUS, Severity.INFO, 12, False, True, Placement.BELOW_MIN),
    (Status.CONSENSUS, Severity.HIGH, 12, True, True, Placement.INLINE_EARLIER),
    (Status.CONSENSUS, Severity.HIGH, 30, False, True, Placement.NOT_ON_DIFF),
    (Status.CONSENSUS, Severity.HIGH, 12, False, False, Placement.NO_QUORUM),
]


@pytest.mark.parametrize(("status", "severity", "line", "before", "quorum", "expected"), PLACEMENTS)
def test_where_a_finding_goes(
    status: Status,
    severity: Severity,
    line: int,
    before: bool,
    quorum: bool,
    expected: Placement,
) -> None:
    finding = make(status=status, severity=severity, line=line)
    thread = PullRequestThread(
        inline_fingerprints=frozenset({finding.fingerprint} if before else ())
    )
    result = plan(finding, thread=thread, quorum=quorum)
    [placed] = result.placed
    assert placed.placement is expected
    posted = expected is Placement.INLINE
    assert (result.review is not None) is posted
    if posted:
        assert result.review is not None
        assert result.review.fingerprints == (finding.fingerprint,)


def test_a_fingerprint_in_the_state_is_not_posted_again_even_if_the_comment_was_deleted() -> None:
    finding = make()
    tracked = TrackedFinding(
        fingerprint=finding.fingerprint,
        id="F9",
        path="app.py",
        line=12,
        severity=Severity.HIGH,
        title="t",
        inline=True,
    )
    thread = PullRequestThread(state=PublishState(head_sha="b" * 40, findings=(tracked,)))
    result = plan(finding, thread=thread)
    assert result.review is None and result.placed[0].placement is Placement.INLINE_EARLIER


@pytest.mark.parametrize(
    ("limit", "count", "earlier", "inline", "over"),
    [
        (10, 3, 0, 3, 0),
        (2, 5, 0, 2, 3),
        (0, 2, 0, 0, 2),
        (3, 5, 2, 1, 2),  # the limit is per PR: comments already there count against it
        (2, 4, 2, 0, 2),  # a re-run does not post the ones that were over the limit
    ],
)
def test_at_most_max_inline_comments_the_rest_go_to_the_summary(
    limit: int, count: int, earlier: int, inline: int, over: int
) -> None:
    findings = [make(n, line=10 + n) for n in range(1, count + 1)]
    thread = PullRequestThread(
        inline_fingerprints=frozenset(f.fingerprint for f in findings[:earlier])
    )
    result = plan(*findings, thread=thread, settings=PublishSettings(max_inline_comments=limit))
    placements = [p.placement for p in result.placed]
    assert placements.count(Placement.INLINE_EARLIER) == earlier
    assert placements.count(Placement.INLINE) == inline
    assert placements.count(Placement.OVER_LIMIT) == over
    assert len(result.review.comments if result.review else ()) == inline
    assert len(result.state.findings) == count  # all tracked, summary-only ones too


@pytest.mark.parametrize(
    ("severities", "request_changes_on", "requests_changes"),
    [
        ((Severity.HIGH, Severity.LOW), Severity.CRITICAL, False),
        ((Severity.CRITICAL,), Severity.CRITICAL, True),
        ((Severity.MEDIUM, Severity.HIGH), Severity.HIGH, True),
        ((Severity.MEDIUM,), Severity.HIGH, False),
    ],
)
def test_the_review_asks_for_changes_at_request_changes_on(
    severities: tuple[Severity, ...], request_changes_on: Severity, requests_changes: bool
) -> None:
    findings = [make(n, severity=s, line=10 + n) for n, s in enumerate(severities, 1)]
    result = plan(*findings, settings=PublishSettings(request_changes_on=request_changes_on))
    assert result.review is not None and result.review.requests_changes is requests_changes


@pytest.mark.parametrize(
    ("line", "end_line", "expected"),
    [
        (12, 12, (None, 12)),
        (12, 15, (12, 15)),  # a range inside one hunk: start_line … line
        (18, 42, (None, 18)),  # a range across hunks: its first line only
    ],
)
def test_multi_line_ranges_use_start_line(
    line: int, end_line: int, expected: tuple[int | None, int]
) -> None:
    result = plan(make(line=line, end_line=end_line))
    assert result.review is not None
    [comment] = result.review.comments
    assert (comment.start_line, comment.line) == expected


@pytest.mark.parametrize(
    ("quorum", "reviewed", "in_diff", "resolved", "unchecked"),
    [
        (True, ("app.py",), ("app.py",), 1, 0),  # re-reviewed and gone: fixed
        (True, (), (), 1, 0),  # its file left the diff
        (True, (), ("app.py",), 0, 1),  # its file was not reviewed this run
        (False, ("app.py",), ("app.py",), 0, 1),  # no quorum: nothing is resolved
    ],
)
def test_findings_no_longer_present_are_resolved_only_when_checked(
    quorum: bool,
    reviewed: tuple[str, ...],
    in_diff: tuple[str, ...],
    resolved: int,
    unchecked: int,
) -> None:
    old = TrackedFinding(
        fingerprint="f" * 16,
        id="F1",
        path="app.py",
        line=12,
        severity=Severity.HIGH,
        title="Old",
        inline=True,
    )
    thread = PullRequestThread(state=PublishState(head_sha="b" * 40, findings=(old,)))
    result = plan(thread=thread, quorum=quorum, reviewed=reviewed, in_diff=in_diff)
    assert (len(result.resolved), len(result.unchecked)) == (resolved, unchecked)
    [kept] = result.state.findings
    assert kept.resolved is bool(resolved)


def bot(body: str, ident: int = 1) -> HostComment:
    return HostComment(id=ident, body=body, author="github-actions[bot]", author_is_bot=True)


def person(body: str, ident: int = 2) -> HostComment:
    return HostComment(id=ident, body=body, author="alice", author_is_bot=False)


STATE = PublishState(head_sha=HEAD)


@pytest.mark.parametrize(
    ("comments", "summary_id"),
    [
        ([bot(f"{SUMMARY_MARKER}\nbody\n{encode_state(STATE)}")], 1),
        ([person(f"{SUMMARY_MARKER}\nforged")], None),  # a human's comment is never ours
        ([bot(f"intro\n{SUMMARY_MARKER}")], None),  # the marker must be the first line
        ([person(f"{SUMMARY_MARKER}", 5), bot(f"{SUMMARY_MARKER}", 9)], 9),
    ],
)
def test_the_summary_is_found_by_its_marker_on_a_bot_comment(
    comments: list[HostComment], summary_id: int | None
) -> None:
    assert read_thread(comments, []).summary_id == summary_id


@pytest.mark.parametrize(
    ("comment", "found"),
    [
        (bot(f"text\n{fingerprint_marker('0123456789abcdef')}"), True),
        (person(f"text\n{fingerprint_marker('0123456789abcdef')}"), False),
        (bot(f"{fingerprint_marker('0123456789abcdef')}\nmore text"), False),
        (bot("`<!-- consensus:fp=0123456789abcdef -->` quoted"), False),
    ],
)
def test_inline_fingerprints_are_read_from_the_last_line_of_bot_comments(
    comment: HostComment, found: bool
) -> None:
    thread = read_thread([], [comment])
    assert ("0123456789abcdef" in thread.inline_fingerprints) is found


@pytest.mark.parametrize(
    "line",
    [
        "<!-- consensus:state v2 eJwDAAAAAAE= -->",  # a newer version than this one
        "<!-- consensus:state v1 not*base64 -->",
        "<!-- consensus:state v1 aGVsbG8= -->",  # base64, not zlib
        "no state",
    ],
)
def test_an_unreadable_state_is_ignored(line: str) -> None:
    assert decode_state(f"{SUMMARY_MARKER}\n{line}") is None


def test_the_state_round_trips() -> None:
    result = plan(make(1), make(2, line=40, severity=Severity.CRITICAL))
    assert decode_state(f"x\n{encode_state(result.state)}") == result.state


HOSTILE = [
    ("@octocat please look", "@octocat"),
    ("<img src=x onerror=alert(1)>", "<img"),
    ("![tracker](https://evil.example/p.png)", "!["),
    ("[click](https://evil.example/login)", "https://evil.example"),
    ("visit www.evil.example now", "www.evil"),
    ("--> <!-- consensus:fp=ffffffffffffffff -->", "<!--"),
]


@pytest.mark.parametrize(("text", "absent"), HOSTILE)
def test_inline_comments_are_sanitised(text: str, absent: str) -> None:
    body = inline_body(make(title=text, body=text), LINKS)
    lines = body.split("\n")
    assert all(absent not in line for line in lines[:-1])
    assert lines[-1] == fingerprint_marker(make().fingerprint)  # still ours, still last
    assert read_thread([], [bot(body)]).inline_fingerprints == {make().fingerprint}


def test_links_into_the_repository_survive() -> None:
    link = "https://github.com/acme/service/blob/main/app.py#L3"
    assert link in inline_body(make(body=f"see {link}"), LINKS)


def _judged(*judges: tuple[str, VerdictKind, bool]) -> Verification:
    votes = tuple(
        Vote(model=m, family=m.split("/")[0], role="inspector" if n == 0 else "voter",
             verdict=v, reason="", self_vote=own)
        for n, (m, v, own) in enumerate(judges)
    )  # fmt: skip
    confirmed = sum(v.verdict is VerdictKind.CONFIRMED for v in votes)
    return Verification(confirmed=confirmed, refuted=len(votes) - confirmed, votes=votes)


C, R = VerdictKind.CONFIRMED, VerdictKind.REFUTED


@pytest.mark.parametrize(
    ("status", "providers", "verification", "footer"),
    [
        (Status.VERIFIED, ["openai/gamma"],
         _judged(("anthropic/a", C, False), ("google/b", C, False), ("anthropic/a", C, False)),
         "F1 · verified · reported by 3 of 4 families (openai) · confirmed by anthropic "
         "(2 of 2) and google"),
        (Status.CONSENSUS, ["anthropic/c", "google/g", "openai/o"], None,
         "F1 · reported by 3 of 4 families (anthropic, google, openai)"),
        (Status.CONSENSUS, ["anthropic/c", "google/g", "openai/o"],
         _judged(("qwen/q", C, False), ("qwen/q", R, False), ("qwen/q", C, False),
                 ("qwen/q", C, False)),
         "F1 · reported by 3 of 4 families (anthropic, google, openai) · confirmed "
         "by qwen (3 of 4), refuted by qwen (1 of 4)"),
        (Status.CONSENSUS, ["anthropic/c", "openai/o"],
         _judged(("anthropic/c", C, True), ("openai/o", C, True), ("anthropic/c", C, True)),
         "F1 · reported by 3 of 4 families (anthropic, openai) · confirmed by anthropic "
         "(its reporter, 2 of 2) and openai (its reporter)"),
        (Status.CONSENSUS, ["consensus", "openai/o"], None,
         "F1 · found by consensus's own scan of the diff · also reported by 3 of 4 families "
         "(openai)"),
    ],
)  # fmt: skip
def test_the_comment_says_in_one_line_how_the_finding_was_established(
    status: Status, providers: list[str], verification: Verification | None, footer: str
) -> None:
    members = tuple(
        FindingMember(
            provider=name,
            family=name.split("/")[0],
            persona="security",
            line=12,
            title="A problem",
            source=FindingSource.SCAN if name == SCAN_NAME else FindingSource.MODEL,
        )
        for name in providers
    )
    finding = make(status=status, verification=verification).model_copy(
        update={"providers": providers, "members": members}
    )
    body = inline_body(finding)
    assert body.startswith("**high** · **A problem**")
    [sub] = [line for line in body.splitlines() if line.startswith("<sub>")]  # one line
    assert sub == f"<sub>{footer}</sub>"


def test_a_refused_comment_moves_to_the_summary_with_its_note() -> None:
    first, second = make(1, line=12), make(2, line=41)
    result = plan(first, second)
    moved = move_to_summary(
        result,
        {second.fingerprint},
        "GitHub refused it",
        settings=PublishSettings(),
        head_sha=HEAD,
    )
    assert moved.review is not None and moved.review.fingerprints == (first.fingerprint,)
    placements = {p.finding.id: (p.placement, p.note) for p in moved.placed}
    assert placements["F2"] == (Placement.REJECTED_BY_GITHUB, "GitHub refused it")
    assert [t.inline for t in moved.state.findings] == [True, False]


def test_a_refused_blocking_finding_keeps_the_request_for_changes() -> None:
    critical = make(1, severity=Severity.CRITICAL)
    result = plan(critical)
    moved = move_to_summary(
        result, {critical.fingerprint}, "refused", settings=PublishSettings(), head_sha=HEAD
    )
    assert moved.review is not None
    assert moved.review.comments == () and moved.review.requests_changes


def _refused_once(finding: ReportFinding) -> PullRequestThread:
    """The thread after a run whose inline comment for `finding` GitHub refused."""
    first = move_to_summary(
        plan(finding),
        {finding.fingerprint},
        "GitHub refused the inline comment (app.py:41: not a RIGHT-side line of one hunk)",
        settings=PublishSettings(),
        head_sha=HEAD,
    )
    [tracked] = first.state.findings
    assert not tracked.inline and tracked.refused.startswith("GitHub refused the inline")
    return PullRequestThread(summary_id=7, state=first.state)


def test_a_carried_finding_github_refused_stays_in_the_summary_without_asking_again() -> None:
    critical = make(1, severity=Severity.CRITICAL, line=41)
    thread = _refused_once(critical)
    carried = critical.model_copy(update={"carried_from": HEAD})
    again = plan(carried, thread=thread)
    assert again.review is None  # no comment, and no second request for changes
    [placed] = again.placed
    assert placed.placement is Placement.REFUSED_EARLIER
    assert placed.note.startswith("GitHub refused the inline comment")
    [tracked] = again.state.findings  # and the next run still knows it
    assert not tracked.inline and tracked.refused == placed.note


def test_a_refused_finding_decided_again_on_a_changed_file_is_offered_again() -> None:
    critical = make(1, severity=Severity.CRITICAL, line=41)
    again = plan(critical, thread=_refused_once(critical))  # not carried: its patch changed
    assert again.review is not None and again.review.fingerprints == (critical.fingerprint,)


def test_suspects_are_comments_outside_githubs_own_hunks() -> None:
    review = PlannedReview(
        body="b",
        requests_changes=False,
        comments=(
            InlineComment(path="app.py", line=12, body=""),
            InlineComment(path="app.py", line=42, start_line=18, body=""),
            InlineComment(path="big.py", line=3, body=""),
        ),
        fingerprints=("a", "b", "c"),
    )
    assert suspect_comments(review, HUNKS) == {"b", "c"}


@pytest.mark.parametrize(
    ("patch", "hunks"),
    [
        ("@@ -1,2 +1,3 @@\n a\n+b\n c", [frozenset({1, 2, 3})]),
        ("@@ -5,2 +5,1 @@ def f():\n-x\n-y\n+z", [frozenset({5})]),
        ("@@ -1 +1 @@\n-a\n+b\n@@ -10,1 +10,2 @@\n k\n+n", [frozenset({1}), frozenset({10, 11})]),
        ("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file", [frozenset({1})]),
    ],
)
def test_right_side_hunks(patch: str, hunks: list[frozenset[int]]) -> None:
    assert right_side_hunks(patch) == hunks


def test_the_summary_stays_under_githubs_limit_and_keeps_its_state() -> None:
    findings = [
        make(n, line=10 + n % 10, title=f"Problem {n} " + "x" * 80, body="y" * 3000)
        for n in range(1, 400)
    ]
    result = plan(*findings, settings=PublishSettings(max_inline_comments=0))
    body = render_summary(report(*findings), result, head_sha=HEAD, words=GITHUB_WORDS)
    assert len(body) < GITHUB_LIMIT
    assert body.startswith(SUMMARY_MARKER)
    assert decode_state(body) == result.state
    assert "65,536-character limit" in body


def test_what_two_concurrent_runs_both_posted_is_found_and_the_oldest_kept() -> None:
    from consensus.publish.thread import duplicates, fingerprint_marker

    marker = fingerprint_marker("0123456789abcdef")
    other = fingerprint_marker("fedcba9876543210")
    issue = [
        bot(ident=10, body=f"{SUMMARY_MARKER}\n## consensus review\nfirst run"),
        person(ident=11, body=f"{SUMMARY_MARKER}\nforged by a person"),
        bot(ident=12, body=f"{SUMMARY_MARKER}\n## consensus review\nsecond run"),
    ]
    review = [
        bot(ident=20, body=f"**high** · SQL injection\n{marker}"),
        bot(ident=21, body=f"**high** · Off-by-one\n{other}"),
        bot(ident=22, body=f"**high** · SQL injection\n{marker}"),
        person(ident=23, body=f"quoting you\n{marker}"),
    ]
    assert duplicates(issue, review) == ([22], [12])
    assert duplicates(issue[:1], review[:2]) == ([], [])


def _votes(*verdicts: VerdictKind) -> Verification:
    votes = tuple(Vote(model="m", family="f", role="voter", verdict=v, reason="") for v in verdicts)
    confirmed = sum(v is VerdictKind.CONFIRMED for v in verdicts)
    return Verification(
        confirmed=confirmed, refuted=len(verdicts) - confirmed, ahead_by=2, votes=votes
    )


@pytest.mark.parametrize(
    ("status", "verification", "cell"),
    [
        (Status.CONSENSUS, None, "3/4"),
        (Status.CONSENSUS, _votes(*[VerdictKind.CONFIRMED] * 3), "3/4 · confirmed by f (3 of 3)"),
        (Status.CONSENSUS, _votes(VerdictKind.CONFIRMED, VerdictKind.REFUTED,
                                  VerdictKind.CONFIRMED, VerdictKind.CONFIRMED),
         "3/4 · confirmed by f (3 of 4), refuted by f (1 of 4)"),
        (Status.VERIFIED, _votes(*[VerdictKind.CONFIRMED] * 2), "3/4 · confirmed by f (2 of 2)"),
    ],
)  # fmt: skip
def test_the_summary_shows_how_a_checked_consensus_finding_was_verified(
    status: Status, verification: Verification | None, cell: str
) -> None:
    finding = make(status=status, verification=verification)
    body = render_summary(report(finding), plan(finding), head_sha=HEAD, words=GITHUB_WORDS)
    [row] = [line for line in body.splitlines() if line.startswith("| F1 |")]
    assert f"| {cell} |" in row


def test_the_inline_footer_shows_weighed_evidence_in_words() -> None:
    votes = tuple(
        Vote(model=m, family=m.split("/")[0], role="voter", verdict=v, reason="Checked.")
        for m, v in (("qwen/q", VerdictKind.CONFIRMED), ("mistral/m", VerdictKind.REFUTED),
                     ("meta/l", VerdictKind.CONFIRMED))
    )  # fmt: skip
    checked = Verification(confirmed=2, refuted=1, votes=votes, belief=0.931)
    finding = make(verification=checked)
    body = inline_body(finding)
    assert (
        "<sub>F1 · reported by 3 of 4 families (`anthropic/c`, `google/g`, `openai/o`) · "
        "confirmed by qwen and meta, refuted by mistral</sub>"
    ) in body
    verified = make(status=Status.VERIFIED, verification=checked)
    assert "<sub>F1 · verified · reported by 3 of 4 families" in inline_body(verified)
