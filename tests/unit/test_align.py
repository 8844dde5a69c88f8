"""ALIGN: real-looking findings from several models → one cluster per problem."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.decide.align import align, open_questions
from consensus.decide.wording import COMPATIBLE_CATEGORIES, similarity
from consensus.model.base import Category, Severity
from consensus.model.findings import Cluster, Finding

SEC, BUG, CONC = Category.SECURITY, Category.BUG, Category.CONCURRENCY
CRIT, HIGH, MED, LOW = Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW

FAMILY = {
    "openai/gpt-5.1": "openai",
    "anthropic/claude-sonnet-4-5": "anthropic",
    "gemini/gemini-2.5-pro": "google",
    "ollama/qwen2.5-coder:14b": "qwen",
}
GPT, CLAUDE, GEMINI, QWEN = FAMILY


def make(
    provider: str,
    line: int,
    title: str,
    body: str,
    *,
    category: Category = Category.BUG,
    severity: Severity = MED,
    persona: str = "correctness",
    path: str = "src/app/db.py",
    end_line: int | None = None,
    evidence: str | None = None,
) -> Finding:
    return Finding(
        provider=provider,
        family=FAMILY.get(provider, provider),
        persona=persona,
        chunk=0,
        path=path,
        line=line,
        end_line=line if end_line is None else end_line,
        severity=severity,
        category=category,
        title=title,
        body=body,
        evidence=evidence,
    )


SQL_EVIDENCE = 'cursor.execute(f"SELECT * FROM users WHERE id = {user_id}")'

SQL_INJECTION = (
    make(
        GPT, 42, "SQL query built with f-string allows injection",
        "The query interpolates `user_id` with an f-string, so a crafted id can change the "
        "statement. Pass it as a parameter: `cursor.execute(sql, (user_id,))`.",
        category=SEC, severity=CRIT, persona="security", evidence=SQL_EVIDENCE,
    ),
    make(
        CLAUDE, 43, "User input interpolated directly into SQL statement",
        "`user_id` comes from the request and is formatted into the SELECT. An attacker can "
        "read or drop tables. Use a placeholder and bind the value.",
        category=SEC, severity=HIGH, persona="security",
    ),
    make(
        GEMINI, 44, "Possible SQL injection: use parameterized queries",
        "Building SQL from request data is injectable. Replace the f-string with a "
        "parameterized query.",
        category=BUG, severity=HIGH, evidence=SQL_EVIDENCE,
    ),
    make(
        QWEN, 41, "Unsanitized `user_id` concatenated into query string",
        "The value is not escaped before it reaches the database, which opens the door to "
        "SQL injection attacks.",
        category=SEC, severity=HIGH, persona="security",
    ),
)  # fmt: skip

RACE = (
    make(
        GPT, 88, "Race condition: counter incremented without a lock",
        "`self._count += 1` runs on worker threads; two threads can read the same value and "
        "lose an increment. Guard it with `self._lock`.",
        category=CONC, severity=HIGH, path="src/app/stats.py", evidence="self._count += 1",
    ),
    make(
        CLAUDE, 89, "Non-atomic read-modify-write on shared `self._count`",
        "Concurrent calls to `record()` interleave the load and the store, so updates are "
        "lost under load. Use `threading.Lock` or `itertools.count`.",
        category=BUG, severity=MED, path="src/app/stats.py",
    ),
)  # fmt: skip

NULL_DEREF = (
    make(
        GPT, 120, "Possible None dereference of `user`",
        "`find_user()` returns None for an unknown email and `user.name` is read without a "
        "check, raising AttributeError.",
        path="src/app/accounts.py", evidence="return user.name.title()",
    ),
    make(
        GEMINI, 122, "`find_user` may return None; `.name` access will crash",
        "When no account matches, the lookup yields None and the attribute access fails. "
        "Return early or raise a 404.",
        path="src/app/accounts.py", severity=HIGH,
    ),
    make(
        QWEN, 121, "Missing null check before accessing user.name",
        "If the user is not found this raises AttributeError: 'NoneType' object has no "
        "attribute 'name'.",
        path="src/app/accounts.py", persona="security",
    ),
)  # fmt: skip

CONNECTION_LEAK = make(
    CLAUDE, 42, "DB connection never closed",
    "`connect()` opens a connection on every call and nothing closes it; under load the pool "
    "runs dry. Use `with closing(connect()) as conn:`.",
    category=BUG, severity=MED, persona="performance",
)  # fmt: skip

OFF_BY_ONE = make(
    GPT, 17, "Off-by-one in range end",
    "`range(len(items) + 1)` walks one past the last element and raises IndexError on the "
    "final iteration.",
    path="src/app/report.py", evidence="for i in range(len(items) + 1):",
)  # fmt: skip

DIVISION_BY_ZERO = make(
    CLAUDE, 17, "Division by zero when list is empty",
    "`total / len(items)` raises ZeroDivisionError for an empty report; return 0.0 or guard "
    "the empty case first.",
    path="src/app/report.py", evidence="for i in range(len(items) + 1):",
)  # fmt: skip


def groups(clusters: Iterable[Cluster]) -> list[set[tuple[str, int, str]]]:
    """Each cluster as the set of (provider, line, title) of its members."""
    return [{(f.provider, f.line, f.title) for f in c.members} for c in clusters]


def keys(findings: Sequence[Finding]) -> set[tuple[str, int, str]]:
    return {(f.provider, f.line, f.title) for f in findings}


# --------------------------------------------------------------------------- positives


@pytest.mark.parametrize(
    "findings",
    [
        pytest.param(SQL_INJECTION, id="sql-injection-4-models-lines-41-44"),
        pytest.param(RACE, id="race-two-wordings-bug-vs-concurrency"),
        pytest.param(NULL_DEREF, id="null-deref-paraphrased-off-by-two"),
    ],
)
def test_one_problem_in_other_words_is_one_cluster(findings: tuple[Finding, ...]) -> None:
    clusters = align(findings)
    assert groups(clusters) == [keys(findings)]


def test_same_provider_other_persona_merges() -> None:
    second_persona = SQL_INJECTION[0].model_copy(
        update={"persona": "correctness", "line": 45, "title": "f-string SQL is injectable"}
    )
    clusters = align([*SQL_INJECTION, second_persona])
    assert groups(clusters) == [keys([*SQL_INJECTION, second_persona])]


def test_mixed_file_gives_one_cluster_per_problem() -> None:
    # The injection and the leak share lines 41-44 and are reported by the same models.
    leaks = (
        CONNECTION_LEAK,
        make(
            GPT, 43, "Connection leaked on every call",
            "`sqlite3.connect` is never closed; use a context manager.", persona="performance",
        ),
        make(
            GEMINI, 41, "Missing conn.close()",
            "Each request opens a new connection and never releases it.", persona="performance",
        ),
    )  # fmt: skip
    clusters = align([*SQL_INJECTION, *leaks, *NULL_DEREF, *RACE])
    expected = [keys(SQL_INJECTION), keys(leaks), keys(NULL_DEREF), keys(RACE)]
    assert sorted(map(sorted, groups(clusters))) == sorted(map(sorted, expected))


# --------------------------------------------------------------------------- negatives


def test_different_problems_on_the_same_line_stay_two() -> None:
    clusters = align([SQL_INJECTION[0], CONNECTION_LEAK])
    assert len(clusters) == 2


def test_same_category_different_problems_same_line_stay_two() -> None:
    # Same category, same line, even the same evidence line.
    clusters = align([OFF_BY_ONE, DIVISION_BY_ZERO])
    assert len(clusters) == 2


def test_two_findings_of_one_review_never_merge() -> None:
    # Same provider and persona, near-identical words, adjacent lines: the model meant two.
    first = SQL_INJECTION[0]
    second = first.model_copy(update={"line": 43, "title": "SQL query built with f-string"})
    clusters = align([first, second])
    assert len(clusters) == 2
    # And a third model agreeing with both joins only one of them.
    clusters = align([first, second, SQL_INJECTION[2]])
    assert sorted(len(c.members) for c in clusters) == [1, 2]


def test_same_words_far_apart_stay_two() -> None:
    far = SQL_INJECTION[1].model_copy(update={"line": 72, "end_line": 72})
    clusters = align([SQL_INJECTION[0], far])
    assert len(clusters) == 2


@pytest.mark.parametrize(("gap", "clusters"), [(0, 1), (3, 1), (4, 2), (10, 2)])
def test_line_window_is_three_lines_between_ranges(gap: int, clusters: int) -> None:
    first = SQL_INJECTION[0].model_copy(update={"line": 40, "end_line": 42})
    second = SQL_INJECTION[2].model_copy(update={"line": 42 + gap, "end_line": 50})
    assert len(align([first, second])) == clusters
    assert len(align([second, first])) == clusters


def test_different_files_stay_two() -> None:
    other = SQL_INJECTION[1].model_copy(update={"path": "src/app/admin_db.py"})
    clusters = align([SQL_INJECTION[0], other])
    assert [c.path for c in clusters] == ["src/app/admin_db.py", "src/app/db.py"]


def test_incompatible_categories_never_merge() -> None:
    docs = SQL_INJECTION[1].model_copy(update={"category": Category.DOCS})
    assert frozenset((SEC, Category.DOCS)) not in COMPATIBLE_CATEGORIES
    assert similarity(SQL_INJECTION[0], docs) == 0.0
    assert len(align([SQL_INJECTION[0], docs])) == 2


def test_no_findings_no_clusters() -> None:
    assert align([]) == []


# --------------------------------------------------------------------------- representative


def test_representative_fields_follow_the_stated_rule() -> None:
    spans = {GPT: (42, 44), CLAUDE: (43, 43), GEMINI: (44, 46), QWEN: (41, 45)}
    findings = [
        f.model_copy(update={"line": spans[f.provider][0], "end_line": spans[f.provider][1]})
        for f in SQL_INJECTION
    ]
    (cluster,) = align(findings)
    assert (cluster.line, cluster.end_line) == (42, 44)  # lower medians of 41-44, 43-46
    assert cluster.severity is HIGH  # CRIT, HIGH, HIGH, HIGH
    assert cluster.category is SEC  # SEC ×3, BUG ×1
    medoid = max(findings, key=lambda f: sum(similarity(f, g) for g in findings if g != f))
    assert (cluster.title, cluster.body) == (medoid.title, medoid.body)
    assert cluster.members == tuple(sorted(findings, key=lambda f: (f.line, f.end_line)))


def test_ties_go_to_more_severe_then_category_order_then_first_member() -> None:
    # RACE: HIGH concurrency at line 88 and MEDIUM bug at line 89, one each.
    for findings in (RACE, RACE[::-1]):
        (cluster,) = align(findings)
        assert cluster.severity is HIGH
        assert cluster.category is BUG  # declared before CONCURRENCY
        assert cluster.title == RACE[0].title  # equal similarity sums: first by line
        assert (cluster.line, cluster.end_line) == (88, 88)


def test_clusters_ordered_by_path_line_title() -> None:
    clusters = align([*NULL_DEREF, CONNECTION_LEAK, *RACE, *SQL_INJECTION])
    assert [(c.path, c.line, c.title) for c in clusters] == [
        ("src/app/accounts.py", 121, NULL_DEREF[1].title),
        ("src/app/db.py", 42, CONNECTION_LEAK.title),
        ("src/app/db.py", 42, SQL_INJECTION[0].title),
        ("src/app/stats.py", 88, RACE[0].title),
    ]


# --------------------------------------------------------------------------- properties

CORPUS = (
    *SQL_INJECTION,
    *RACE,
    *NULL_DEREF,
    CONNECTION_LEAK,
    OFF_BY_ONE,
    DIVISION_BY_ZERO,
    SQL_INJECTION[0].model_copy(update={"line": 44, "title": "Injectable SELECT"}),
    CONNECTION_LEAK.model_copy(update={"provider": GEMINI, "family": "google"}),
)


@settings(max_examples=60, deadline=None)
@given(st.permutations(CORPUS))
def test_any_input_order_gives_identical_clusters(shuffled: list[Finding]) -> None:
    assert align(shuffled) == align(CORPUS)


TITLES = (
    ("SQL injection via f-string", SEC),
    ("User input interpolated into SQL", SEC),
    ("DB connection never closed", BUG),
    ("Connection leaked on error path", BUG),
    ("Possible None dereference of `user`", BUG),
    ("Off-by-one in range end", BUG),
    ("Division by zero when list is empty", BUG),
    ("Race condition on counter", CONC),
)

random_findings = st.lists(
    st.builds(
        lambda provider, persona, line, span, title: make(
            provider, line, title[0], f"{title[0]}.", category=title[1], persona=persona,
            end_line=line + span, path="a.py" if line % 7 else "b.py",
        ),
        st.sampled_from([GPT, CLAUDE, GEMINI, QWEN]),
        st.sampled_from(["correctness", "security"]),
        st.integers(1, 30),
        st.integers(0, 2),
        st.sampled_from(TITLES),
    ),
    max_size=40,
)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(random_findings, st.data())
def test_partition_cannot_link_and_order_independence(
    findings: list[Finding], data: st.DataObject
) -> None:
    clusters = align(findings)
    members = [m for c in clusters for m in c.members]
    assert sorted(members, key=repr) == sorted(findings, key=repr)  # each exactly once
    for cluster in clusters:
        reviews = [(m.provider, m.persona) for m in cluster.members]
        assert len(reviews) == len(set(reviews))
        assert len({m.path for m in cluster.members}) == 1
    assert align(data.draw(st.permutations(findings))) == clusters
    assert len({c.fingerprint for c in clusters}) == len(clusters)


def test_no_chaining_through_a_finding_that_resembles_both() -> None:
    # B mentions both the injection and the leak; average linkage keeps A and C apart,
    # where single linkage would chain all three into one cluster.
    a = SQL_INJECTION[0].model_copy(update={"line": 40, "end_line": 40})
    b = make(
        CLAUDE, 42, "Connection opened for the f-string query is never closed",
        "The `conn` used to run the injectable f-string query leaks: close it with a context "
        "manager and bind `user_id` as a parameter.",
    )  # fmt: skip
    c = CONNECTION_LEAK.model_copy(update={"provider": GEMINI, "family": "google", "line": 44})
    assert similarity(a, b) > 0.3 and similarity(b, c) > 0.3
    for cluster in align([a, b, c]):
        assert not {a, c} <= set(cluster.members)


# ------------------------------------------------------------------------ one problem, one cluster
# One problem reported by disjoint families at one place in other words is one cluster (one
# inline comment), unless their text clearly names different defects; one family reporting
# two things at one place means two.

WEBHOOK = "src/hooks/webhook.py"
TIMING = make(
    GPT, 88, "Signature compared with ==, which leaks timing",
    "`expected == provided` returns at the first differing byte, so the response time tells "
    "an attacker how much of the signature matched.",
    category=SEC, severity=HIGH, persona="security", path=WEBHOOK, end_line=90,
)  # fmt: skip
COMPARE_DIGEST = tuple(
    make(
        provider, 90, "Use hmac.compare_digest for the MAC check",
        "Replace the equality check with `hmac.compare_digest(expected, provided)`.",
        category=BUG, path=WEBHOOK,
    )
    for provider in (CLAUDE, GEMINI, QWEN)
)  # fmt: skip
LOOP_SYMPTOM = make(
    GPT, 17, "IndexError on the last iteration",
    "When `i == len(rows)` the body reads `rows[i]`, which does not exist.",
    path="src/report/export.py", severity=HIGH,
)  # fmt: skip
LOOP_CAUSE = make(
    GEMINI, 16, "Loop bound should be len(rows), not len(rows) + 1",
    "`range(len(rows) + 1)` runs one time too many.", path="src/report/export.py",
)  # fmt: skip
GO_SQL = make(
    GEMINI, 42, "SQL injection in GetUserByName",
    "The query is assembled with `fmt.Sprintf` and `name` comes straight from the URL.",
    category=SEC, severity=CRIT, path="internal/store/users.go",
)  # fmt: skip
GO_SQL_FIX = make(
    QWEN, 41, "Use a placeholder instead of fmt.Sprintf in the query",
    "Pass the value as an argument: `db.QueryContext(ctx, query, name)`.",
    path="internal/store/users.go", end_line=43,
)  # fmt: skip
NONE_IDS = make(
    CLAUDE, 17, "ids may be None when no filter is given",
    "`len(None)` raises TypeError when the admin view passes no ids.",
    path="src/report/export.py",
)  # fmt: skip


RESPONSE_BEFORE_WRITE = make(
    GEMINI, 55, "Response sent before the database write completes",
    "The handler calls `res.json(user)` right after `saveUser(user)`, so a client that "
    "reads the user back may not find it.", path="web/api/users.ts",
)  # fmt: skip
CRASH_ON_EMPTY = make(
    CLAUDE, 55, "Checkout page shows a blank screen for guests",
    "The template reads `cart.owner.name`.", path="web/api/users.ts",
)  # fmt: skip


@pytest.mark.parametrize(
    ("findings", "clusters"),
    [
        pytest.param((TIMING, *COMPARE_DIGEST), 1, id="cause-vs-fix-4-families-bug-vs-security"),
        pytest.param((LOOP_SYMPTOM, LOOP_CAUSE), 1, id="symptom-vs-cause-one-line-apart"),
        pytest.param((GO_SQL, GO_SQL_FIX), 1, id="class-vs-fix-different-identifiers"),
        pytest.param(
            (TIMING, COMPARE_DIGEST[0].model_copy(update={"line": 93, "end_line": 93})), 1,
            id="three-lines-below-the-range",
        ),
        pytest.param(
            (TIMING, COMPARE_DIGEST[0].model_copy(update={"line": 94, "end_line": 94})), 2,
            id="four-lines-below-the-range",
        ),
        pytest.param((LOOP_SYMPTOM, NONE_IDS), 2, id="off-by-one-and-None-on-one-line"),
        pytest.param(
            (LOOP_SYMPTOM, LOOP_CAUSE.model_copy(update={"provider": GPT, "family": "openai",
                                                        "persona": "performance"})), 1,
            id="same-family-other-persona-same-defect-merges-by-its-words",
        ),
        pytest.param(
            (RESPONSE_BEFORE_WRITE, CRASH_ON_EMPTY.model_copy(
                update={"provider": GEMINI, "family": "google", "persona": "security"})), 2,
            id="same-family-other-persona-unlike-words-stays-two-no-presumption",
        ),
    ],
)  # fmt: skip
def test_who_and_where_decide_first(findings: tuple[Finding, ...], clusters: int) -> None:
    assert len(align(findings)) == clusters
    assert align(findings[::-1]) == align(findings)


def test_the_issues_example_is_one_cluster_of_four_families() -> None:
    [cluster] = align([TIMING, *COMPARE_DIGEST])
    assert cluster.families == {"openai", "anthropic", "google", "qwen"}
    assert cluster.category is BUG  # three of four filed it as a bug


@pytest.mark.parametrize(
    ("answer", "clusters"),
    [
        pytest.param(None, 2, id="unanswered-the-words-decide"),
        pytest.param(True, 1, id="answered-same"),
        pytest.param(False, 2, id="answered-different"),
    ],
)
def test_an_open_question_is_settled_by_its_answer_else_by_the_words(
    answer: bool | None, clusters: int
) -> None:
    # Neither title names a known kind of defect: the text cannot decide.
    findings = [RESPONSE_BEFORE_WRITE, CRASH_ON_EMPTY]
    [question] = open_questions(findings)
    assert {f.title for f in question.first + question.second} == {
        RESPONSE_BEFORE_WRITE.title,
        CRASH_ON_EMPTY.title,
    }
    assert question.default is False  # the words share little
    answers = {} if answer is None else {question: answer}
    assert len(align(findings, answers=answers)) == clusters
    assert len(align(findings[::-1], answers=answers)) == clusters


def test_decided_pairs_raise_no_question() -> None:
    assert open_questions([TIMING, *COMPARE_DIGEST]) == []  # one kind of defect: decided
    assert open_questions([TIMING, LOOP_SYMPTOM]) == []  # other files
    same_family = CRASH_ON_EMPTY.model_copy(update={"provider": GEMINI, "family": "google"})
    assert open_questions([RESPONSE_BEFORE_WRITE, same_family]) == []  # its words decide


def test_different_defects_in_alike_words_are_asked_and_an_answer_can_join_them() -> None:
    # The word lists read an off-by-one and a None check; the words overlap (`rows`, loop,
    # crash): not clearly different, so a verifier may be asked. Unanswered: two.
    [doubt] = open_questions([LOOP_SYMPTOM, NONE_IDS])
    assert doubt.default is False
    assert len(align([LOOP_SYMPTOM, NONE_IDS])) == 2
    assert len(align([LOOP_SYMPTOM, NONE_IDS], answers={doubt: True})) == 1


# The words decide alone only when nearly the same, or when the titles name one kind of
# defect and the words agree too; elsewhere they only set what an unanswered question
# defaults to. Different defects named are asked too: the word lists also misread.

EXPORTS = "exports/render.py"
WORKERS_STOP = make(
    GPT, 40, "Export workers stop after a few hours",
    "Each export opens the template with `open()` and nothing closes it, so the process runs "
    "out of file handles.", path=EXPORTS,
)  # fmt: skip
HANDLE_LEAKED = make(
    CLAUDE, 41, "Template file handle leaked on every export", "Use `with open(path) as f:`.",
    path=EXPORTS,
)  # fmt: skip
WORKERS_STOP_TOO = make(
    GEMINI, 41, "Export workers stop after a few hours",
    "The template file is opened on every export and never closed.", path=EXPORTS,
)  # fmt: skip
INVOICE = "billing/invoice.py"
TAX_PER_LINE = make(
    GPT, 30, "Report totals are computed per line item",
    "Tax is rounded on each `line_item` and summed, instead of on the invoice total.",
    path=INVOICE,
)  # fmt: skip
QUERY_PER_LINE = make(
    GEMINI, 31, "One query per line item",
    "`line_item.product` is loaded inside the loop over line items.", path=INVOICE,
)  # fmt: skip
NONE_AT_GO_SQL = NONE_IDS.model_copy(update={"path": GO_SQL.path, "line": 42, "end_line": 42})
# One kind in both titles ("lock", "thread": a race), but at one place the kind's words name
# the subject both findings share, not the defect: the words must agree too.
OUTBOX = "mail/outbox.py"
LOCK_HELD = make(
    GPT, 20, "Lock held across the network call",
    "`with self._lock:` wraps `smtp.send(msg)`, so every other sender waits for the mail "
    "server.", path=OUTBOX, category=CONC,
)  # fmt: skip
THREADS_NOT_JOINED = make(
    CLAUDE, 21, "Worker threads are never joined",
    "`start()` is called for each thread, but nothing waits for them at shutdown.",
    path=OUTBOX,
)  # fmt: skip


@pytest.mark.parametrize(
    ("findings", "asked", "default", "answer", "clusters"),
    [
        pytest.param((TIMING, COMPARE_DIGEST[0]), False, None, None, 1,
                     id="titles-name-one-kind-one-unasked"),
        pytest.param((WORKERS_STOP, WORKERS_STOP_TOO), False, None, None, 1,
                     id="nearly-the-same-words-one-unasked"),
        pytest.param((GO_SQL, NONE_AT_GO_SQL), True, False, None, 2,
                     id="titles-name-different-kinds-asked-unanswered-two"),
        pytest.param((GO_SQL, NONE_AT_GO_SQL), True, False, True, 1,
                     id="titles-name-different-kinds-answered-one"),
        pytest.param((LOCK_HELD, THREADS_NOT_JOINED), True, True, None, 1,
                     id="titles-name-one-kind-unlike-words-asked-unanswered-one"),
        pytest.param((LOCK_HELD, THREADS_NOT_JOINED), True, True, False, 2,
                     id="titles-name-one-kind-unlike-words-answered-two"),
        pytest.param((WORKERS_STOP, HANDLE_LEAKED), True, True, None, 1,
                     id="kind-named-in-one-body-only-asked-unanswered-one"),
        pytest.param((WORKERS_STOP, HANDLE_LEAKED), True, True, False, 2,
                     id="kind-named-in-one-body-only-answered-two"),
        pytest.param((TAX_PER_LINE, QUERY_PER_LINE), True, True, None, 1,
                     id="alike-words-no-kind-asked-unanswered-one"),
        pytest.param((TAX_PER_LINE, QUERY_PER_LINE), True, True, False, 2,
                     id="alike-words-no-kind-answered-two"),
        pytest.param((LOOP_SYMPTOM, NONE_IDS), True, False, None, 2,
                     id="titles-differ-alike-words-asked-unanswered-two"),
        pytest.param((LOOP_SYMPTOM, NONE_IDS), True, False, True, 1,
                     id="titles-differ-alike-words-answered-one"),
    ],
)  # fmt: skip
def test_the_words_decide_alone_only_where_they_are_sure(
    findings: tuple[Finding, Finding],
    asked: bool,
    default: bool | None,
    answer: bool | None,
    clusters: int,
) -> None:
    questions = open_questions(findings)
    assert [q.default for q in questions] == ([default] if asked else [])
    answers = {} if answer is None else {questions[0]: answer}
    assert len(align(findings, answers=answers)) == clusters
    assert align(findings[::-1], answers=answers) == align(findings, answers=answers)


# A clean PR: two families claim an injection through a report's table name; a third
# remarks, at info severity, on how the query's table and columns are written. The remark
# once joined the claim unasked and made it 3 of 4 families: consensus, posted unverified.
REPORT_SQL = 'sql = f"SELECT {columns} FROM {table} WHERE day = ?"'


def report_finding(
    provider: str, family: str, line: int, end: int, severity: Severity, category: Category,
    title: str, body: str, evidence: str | None = None,
) -> Finding:  # fmt: skip
    return Finding(
        provider=provider, family=family, persona=category.value, chunk=0,
        path="app/reports.py", line=line, end_line=end, severity=severity, category=category,
        title=title, body=body, evidence=evidence,
    )  # fmt: skip


TABLE_CLAIMS = [
    report_finding(
        "openai/gpt-5.1", "openai", 24, 26, Severity.HIGH, Category.SECURITY,
        "Table name from the request is interpolated into the SQL query",
        "`table` comes from the query string and is formatted into `SELECT * FROM {table}`: "
        "an attacker can read any table. Check it against an allow-list of table names.",
        REPORT_SQL,
    ),
    report_finding(
        "anthropic/claude-sonnet-4-5", "anthropic", 25, 25, Severity.HIGH, Category.SECURITY,
        "SQL injection through the report table name",
        "The `table` parameter reaches the SQL string unescaped; validate it against the "
        "known report tables.",
    ),
    report_finding(
        "gemini/gemini-2.5-pro", "google", 23, 26, Severity.INFO, Category.MAINTAINABILITY,
        "Report table query is hard to read",
        "The column list and the table of the report query are built inline in the f-string; "
        "a small helper that builds the SELECT for a report table would read better.",
        REPORT_SQL,
    ),
]  # fmt: skip


def test_a_remark_is_not_counted_as_agreement_with_a_defect_at_the_same_lines() -> None:
    clusters = align(TABLE_CLAIMS)
    assert sorted(sorted(c.families) for c in clusters) == [
        ["anthropic", "openai"],
        ["google"],
    ]
    claim = next(c for c in clusters if c.category is Category.SECURITY)
    assert claim.severity is Severity.HIGH and len(claim.members) == 2
    [question] = open_questions(TABLE_CLAIMS)
    assert question.default is False  # unanswered, they stay two


def test_a_same_problem_answer_may_still_join_a_remark_and_a_defect() -> None:
    [question] = open_questions(TABLE_CLAIMS)
    [joined] = align(TABLE_CLAIMS, answers={question: True})
    assert joined.families == frozenset({"openai", "anthropic", "google"})
