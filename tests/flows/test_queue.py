"""The queue's pure core as tables: who is an agent, changed spans and overlaps, risk,
the order and admission, the plan of writes, CODEOWNERS, the config keys."""

from __future__ import annotations

from typing import Any

import pytest

from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.ports import OpenPull, PullRequestInfo
from consensus.queue.codeowners import owners_of, parse_codeowners, skipped_rules
from consensus.queue.reconcile import reconcile
from consensus.queue.standing import (
    WHOLE_FILE,
    AgentPull,
    FileChange,
    GateFinding,
    QueueComment,
    QueueRules,
    decide,
    is_agent,
    overlap,
    patch_spans,
    risk_of,
)
from consensus.queue.writes import ChangeKind, comment_body, plan_changes, render_queue_table
from consensus.settings.config import QueueSettings, parse_settings
from consensus.testing import FakeGitHubHost, FakePull

HIGH, MEDIUM = Severity.HIGH, Severity.MEDIUM


def pull(number: int, author: str = "codex[bot]", **fields: Any) -> OpenPull:
    bot = author.endswith("[bot]")
    return OpenPull(
        number=number,
        author=author,
        author_is_bot=bot,
        head_sha=f"{number:040x}",
        created_at=f"2026-01-{fields.pop('day', number):02d}T00:00:00Z",
        labels=frozenset(fields.pop("labels", ())),
        **fields,
    )


def agent(
    number: int,
    *,
    path: str = "",
    lines: int = 10,
    spans: tuple[tuple[int, int], ...] | None = None,
    severity: Severity | None = None,
    reviewed: bool = True,
    **fields: Any,
) -> AgentPull:
    extra = {k: fields.pop(k) for k in ("dismissed_heads", "comment") if k in fields}
    opened = pull(number, **fields)
    change = FileChange(
        path=path or f"src/f{number}.py",
        additions=lines // 2,
        deletions=lines - lines // 2,
        spans=spans if spans is not None else ((2 * 100 * number - 1, 2 * 100 * number + 1),),
    )
    findings = (
        (GateFinding(id="F1", severity=severity, title="t", path=change.path, line=1),)
        if severity
        else ()
    )
    return AgentPull(
        pull=opened,
        reviewed_head=opened.head_sha if reviewed else "0" * 40,
        findings=findings,
        files=(change,),
        **extra,
    )


# --------------------------------------------------------------------------- who


@pytest.mark.parametrize(
    ("author", "labels", "settings", "expected"),
    [
        ("codex[bot]", (), {}, True),
        ("some-new-agent[bot]", (), {}, True),  # any [bot] opening a code PR
        ("some-new-agent[bot]", (), {"include_bots": False}, False),
        ("dependabot[bot]", (), {}, False),  # dependency bots excluded by default
        ("renovate[bot]", (), {}, False),
        ("alice", (), {}, False),
        ("alice", ("agent",), {}, True),  # the agent label
        ("acme-codegen", (), {"agents": ("acme-codegen",)}, True),
        ("Codex[bot]", (), {"include_bots": False}, True),  # logins compare without case
    ],
)
def test_which_prs_are_agent_prs(
    author: str, labels: tuple[str, ...], settings: dict[str, Any], expected: bool
) -> None:
    assert is_agent(pull(1, author, labels=labels), QueueSettings(**settings)) is expected


# --------------------------------------------------------------------------- spans


@pytest.mark.parametrize(
    ("patch", "spans"),
    [
        ("@@ -10,3 +10,3 @@\n-a\n-b\n-c\n+A\n+B\n+C", ((19, 25),)),  # lines 10-12
        ("@@ -10,2 +10,3 @@\n a\n+x\n b", ((21, 21),)),  # an insertion before line 11
        ("@@ -0,0 +1,2 @@\n+new\n+file", ((1, 1),)),  # a new file: before line 1
        ("@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n-d\n+D", ((1, 3), (7, 9))),  # two blocks
        (None, (WHOLE_FILE,)),  # no patch (binary, huge): the whole file
    ],
)
def test_changed_base_lines_of_a_patch(patch: str | None, spans: tuple[object, ...]) -> None:
    assert patch_spans(patch) == spans


@pytest.mark.parametrize(
    ("a", "b", "where"),
    [
        ("@@ -10,3 +10,3 @@\n-a\n-b\n-c\n+A\n+B\n+C", "@@ -11,1 +11,1 @@\n-b\n+B", "11"),
        # Adjacent changes conflict in git's merge too: touching is overlapping.
        ("@@ -10,1 +10,1 @@\n-a\n+A", "@@ -11,1 +11,1 @@\n-b\n+B", "11"),
        ("@@ -10,1 +10,1 @@\n-a\n+A", "@@ -10,1 +10,2 @@\n a\n+x", "11"),
        ("@@ -10,1 +10,1 @@\n-a\n+A", "@@ -12,1 +12,1 @@\n-c\n+C", None),  # a line apart
        ("@@ -10,1 +10,1 @@\n-a\n+A", "@@ -40,1 +40,1 @@\n-z\n+Z", None),
        ("@@ -0,0 +1,1 @@\n+x", "@@ -0,0 +1,1 @@\n+y", "1"),  # both add the same file
    ],
)
def test_overlap_of_two_prs(a: str, b: str, where: str | None) -> None:
    first = agent(1, path="src/x.py", spans=patch_spans(a))
    second = agent(2, path="src/x.py", spans=patch_spans(b))
    assert overlap(first, second) == (f"src/x.py:{where}" if where else None)
    assert overlap(agent(3, path="src/y.py", spans=patch_spans(b)), first) is None


# --------------------------------------------------------------------------- risk


@pytest.mark.parametrize(
    ("path", "lines", "severity", "score", "level"),
    [
        ("src/a.py", 10, None, 0, "low"),
        ("src/a.py", 60, None, 1, "low"),
        ("src/a.py", 600, None, 3, "medium"),
        ("src/auth/session.py", 10, None, 3, "medium"),  # a sensitive directory
        ("db/migrations/0042_users.py", 10, None, 3, "medium"),
        (".github/workflows/ci.yml", 10, None, 3, "medium"),
        ("src/a.py", 10, Severity.LOW, 3, "medium"),
        ("src/a.py", 10, MEDIUM, 6, "high"),
        ("src/auth.py", 300, MEDIUM, 11, "high"),
    ],
)
def test_risk_score(
    path: str, lines: int, severity: Severity | None, score: int, level: str
) -> None:
    risk = risk_of(agent(1, path=path, lines=lines, severity=severity), QueueSettings())
    assert (risk.score, risk.level) == (score, level)


# --------------------------------------------------------------------------- decide

SHARED = ((19, 25),)  # lines 10-12 of the same file: overlapping


def statuses(agents: list[AgentPull], **settings: Any) -> list[tuple[int, str, int | None]]:
    rules = QueueRules(
        queue=QueueSettings(**{"max_in_review": 2, **settings}), request_changes_on=HIGH
    )
    return [(e.number, e.status.value, e.position) for e in decide(agents, rules).entries]


ORDER_CASES = {
    "risk first, then age": (
        [agent(1), agent(2, lines=600), agent(3, severity=MEDIUM), agent(4), agent(5)],
        {},
        [(3, "ready", None), (2, "ready", None), (1, "queued", 1), (4, "queued", 2),
         (5, "queued", 3)],
    ),
    "safest first": (
        [agent(1, lines=600), agent(2), agent(3, severity=MEDIUM)],
        {"order": "safest-first"},
        [(2, "ready", None), (1, "ready", None), (3, "queued", 1)],
    ),
    "older first at equal risk": (
        [agent(1, day=9), agent(2, day=3), agent(3, day=5)],
        {},
        [(2, "ready", None), (3, "ready", None), (1, "queued", 1)],
    ),
    "admitted PRs keep their place": (
        [agent(1, severity=MEDIUM), agent(2, labels=("consensus:ready",)), agent(3)],
        {"max_in_review": 1},
        [(2, "ready", None), (1, "queued", 1), (3, "queued", 2)],
    ),
    "a push on an admitted PR keeps it in review": (
        [agent(1, labels=("consensus:ready",), reviewed=False), agent(2)],
        {"max_in_review": 1},
        [(1, "ready", None), (2, "queued", 1)],
    ),
    "a push re-enters the gate": (
        [agent(1, reviewed=False), agent(2)],
        {},
        [(2, "ready", None), (1, "awaiting-review", None)],
    ),
    "a blocking finding sends it back": (
        [agent(1, severity=HIGH), agent(2)],
        {},
        [(2, "ready", None), (1, "changes-requested", None)],
    ),
    "a dismissed request-changes review lets it through": (
        [agent(1, severity=HIGH, dismissed_heads=frozenset({f"{1:040x}"}))],
        {},
        [(1, "ready", None)],
    ),
    "an admitted PR sent back leaves review": (
        [agent(1, severity=HIGH, labels=("consensus:ready",)), agent(2), agent(3)],
        {},
        [(2, "ready", None), (3, "ready", None), (1, "changes-requested", None)],
    ),
    "overlap with an admitted PR": (
        [agent(1, path="x.py", spans=SHARED), agent(2, path="x.py", spans=SHARED), agent(3)],
        {},
        [(1, "ready", None), (3, "ready", None), (2, "conflict", None)],
    ),
    "overlap with an earlier-queued PR": (
        [agent(1), agent(2), agent(3, path="x.py", spans=SHARED),
         agent(4, path="x.py", spans=SHARED)],
        {},
        [(1, "ready", None), (2, "ready", None), (3, "queued", 1), (4, "conflict", None)],
    ),
    "drafts are not in the queue": (
        [agent(1, draft=True), agent(2)],
        {},
        [(2, "ready", None), (1, "draft", None)],
    ),
}  # fmt: skip


@pytest.mark.parametrize(
    ("agents", "settings", "expected"), ORDER_CASES.values(), ids=ORDER_CASES.keys()
)
def test_order_and_admission(
    agents: list[AgentPull], settings: dict[str, Any], expected: list[object]
) -> None:
    assert statuses(agents, **settings) == expected


def test_the_per_reviewer_limit_admits_around_a_busy_reviewer() -> None:
    owners = parse_codeowners("* @alice\n/src/auth/ @bob\n")
    rules = QueueRules(
        queue=QueueSettings(max_in_review=3, max_in_review_per_reviewer=1),
        codeowners=owners,
    )
    agents = [agent(1), agent(2), agent(3, path="src/auth/x.py")]
    view = decide(agents, rules)
    got = [(e.number, e.status.value, e.reviewers, e.waiting_for) for e in view.entries]
    assert got == [
        (3, "ready", ("bob",), "review"),  # risk 3 (auth) comes first
        (1, "ready", ("alice",), "review"),
        (2, "queued", ("alice",), "a review slot of alice"),
    ]


def test_configured_reviewers_win_over_codeowners_and_never_the_author() -> None:
    rules = QueueRules(
        queue=QueueSettings(reviewers=("carol", "dave", "acme/backend")),
        codeowners=parse_codeowners("* @alice\n"),
    )
    [entry] = decide([agent(1, author="carol", labels=("agent",))], rules).entries
    assert entry.reviewers == ("dave", "acme/backend")


# --------------------------------------------------------------------------- plan


def plan(agents: list[AgentPull], **settings: Any) -> list[tuple[int, str, tuple[str, ...]]]:
    rules = QueueRules(
        queue=QueueSettings(
            **{"max_in_review": 1, "reviewers": ("alice", "acme/core"), **settings}
        ),
        request_changes_on=HIGH,
    )
    view = decide(agents, rules)
    changes = plan_changes(view, {a.pull.number: a for a in agents})
    return [(c.number, c.kind.value, c.labels or c.reviewers + c.teams) for c in changes]


PLAN_CASES = {
    "first run": (
        [agent(1), agent(2)],
        [(1, "add_labels", ("consensus:ready",)), (1, "request_reviewers", ("alice", "core")),
         (2, "add_labels", ("consensus:queued",)), (2, "create_comment", ())],
    ),
    "already there: nothing": (
        [agent(1, labels=("consensus:ready",), requested_reviewers=frozenset({"alice"}),
               requested_teams=frozenset({"core"}))],
        [],
    ),
    "a stale label goes": (
        [agent(1, labels=("consensus:queued", "consensus:ready", "bug"),
               requested_reviewers=frozenset({"alice"}), requested_teams=frozenset({"core"}))],
        [(1, "remove_label", ("consensus:queued",))],
    ),
    "sent back: request changes, labels swap": (
        [agent(1, severity=HIGH, labels=("consensus:queued",))],
        [(1, "add_labels", ("consensus:changes-requested",)),
         (1, "remove_label", ("consensus:queued",)), (1, "request_changes", ())],
    ),
}  # fmt: skip


@pytest.mark.parametrize(("agents", "expected"), PLAN_CASES.values(), ids=PLAN_CASES.keys())
def test_plan_is_the_difference(agents: list[AgentPull], expected: list[object]) -> None:
    assert plan(agents) == expected


def test_the_comment_is_edited_only_when_its_text_changes() -> None:
    rules = QueueRules(queue=QueueSettings(max_in_review=1))
    first = [agent(1, labels=("consensus:ready",)), agent(2, labels=("consensus:queued",))]
    view = decide(first, rules)
    body = comment_body(view.entries[1], view)
    same = [first[0], agent(2, labels=("consensus:queued",), comment=QueueComment(id=9, body=body))]
    kinds = [c.kind for c in plan_changes(view, {a.pull.number: a for a in same})]
    assert ChangeKind.EDIT_COMMENT not in kinds and ChangeKind.CREATE_COMMENT not in kinds
    stale = QueueComment(id=9, body=body.replace("position 1", "position 2"))
    moved = [first[0], agent(2, labels=("consensus:queued",), comment=stale)]
    edits = [c for c in plan_changes(view, {a.pull.number: a for a in moved})]
    assert [(c.kind, c.comment_id) for c in edits if c.number == 2] == [
        (ChangeKind.EDIT_COMMENT, 9)
    ]


def test_the_table_has_the_documented_columns() -> None:
    import datetime

    view = decide([agent(1), agent(2)], QueueRules(queue=QueueSettings(max_in_review=1)))
    now = datetime.datetime(2026, 1, 3, 12, tzinfo=datetime.timezone.utc)
    lines = render_queue_table(view, now).splitlines()
    assert lines[0].split() == ["PR", "AGENT", "STATUS", "POS", "RISK", "CONFLICTS", "AGE"]
    assert lines[1].split() == ["#1", "codex[bot]", "ready", "-", "low", "(0)", "-", "2d"]
    assert lines[2].split() == ["#2", "codex[bot]", "queued", "1", "low", "(0)", "-", "1d"]


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize(
    ("path", "owners"),
    [
        ("src/app.py", ("alice",)),
        ("src/auth/login.py", ("bob", "acme/security")),
        ("docs/readme.md", ()),  # a rule without owners: unowned
        ("README.md", ("alice",)),
    ],
)
def test_codeowners_last_match_wins(path: str, owners: tuple[str, ...]) -> None:
    text = "# owners\n* @alice\n/src/auth/ @bob @acme/security\ndocs/\nmail.py dev@example.com\n"
    assert owners_of(path, parse_codeowners(text)) == owners


@pytest.mark.parametrize(
    ("yaml_text", "key"),
    [
        ("queue: {max_in_review: 0}", "queue.max_in_review"),
        ("queue: {max_in_review_per_reviewer: 0}", "queue.max_in_review_per_reviewer"),
        ("queue: {reviewers: ['not a login']}", "queue.reviewers"),
        ("queue: {exclude_bots: ['bad login!']}", "queue.exclude_bots"),
        ("queue: {order: newest}", "queue.order"),
        ("queue: {max_in_reveiw: 2}", "queue.max_in_reveiw"),
    ],
)
def test_queue_config_is_validated(yaml_text: str, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_settings(yaml_text, source=".consensus.yml")
    assert error.value.key == key


def test_queue_config_keys_parse() -> None:
    text = (
        "queue:\n  max_in_review: 2\n  max_in_review_per_reviewer: 1\n"
        "  reviewers: ['@alice', acme/backend]\n  exclude_bots: []\n  order: safest-first\n"
    )
    queue = parse_settings(text, source=".consensus.yml").queue
    assert queue.reviewers == ("alice", "acme/backend") and queue.exclude_bots == ()
    assert (queue.max_in_review, queue.max_in_review_per_reviewer) == (2, 1)


@pytest.mark.parametrize(
    ("path", "owners"),
    [
        ("docs/a.md", ("writers",)),  # `docs/*`: the files directly in docs/
        ("docs/build/b.md", ("alice",)),  # … not below (GitHub's rule, unlike a .gitignore)
        ("api/v1/users.py", ("api-team",)),  # `api/` owns everything below
        ("src/auth/x.py", ("alice",)),  # the `!` and `[ ]` lines are skipped, as GitHub does
        ("src/b.py", ("alice",)),
        ("a/b/c.js", ("js",)),  # no slash: any depth
    ],
)
def test_codeowners_patterns_follow_github(path: str, owners: tuple[str, ...]) -> None:
    text = (
        "* @alice\n"
        "docs/* @writers\n"
        "api/ @api-team\n"
        "*.js @js\n"
        "!src/auth/ @nobody\n"
        "src/[ab].py @nobody\n"
        "\\#comment @nobody\n"
    )
    assert owners_of(path, parse_codeowners(text)) == owners


def test_codeowners_lines_github_skips_are_named() -> None:
    rules = parse_codeowners("* @alice\n!src/auth/ @bob\nsrc/[ab].py @carol\n")
    assert skipped_rules(rules) == [
        "CODEOWNERS:2: `!src/auth/`: GitHub does not support '!' negation in CODEOWNERS: "
        "the line is skipped",
        "CODEOWNERS:3: `src/[ab].py`: GitHub does not support '[ ]' character ranges in "
        "CODEOWNERS: the line is skipped",
    ]


def test_the_queue_run_warns_about_skipped_codeowners_lines() -> None:
    host = FakeGitHubHost()
    info = PullRequestInfo(number=1, head_sha="h" * 40, base_sha="b" * 40, base_repo="a/b")
    host.add_pull(FakePull(info=info, files=[], base_files={".github/CODEOWNERS": "!x @bob\n"}))
    lines: list[str] = []
    reconcile(host, apply=False, log=lines.append)
    assert lines == [
        "warning: CODEOWNERS:1: `!x`: GitHub does not support '!' negation in CODEOWNERS: "
        "the line is skipped"
    ]
