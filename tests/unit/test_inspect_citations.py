"""A verdict's citations, checked against the tree and against what the judge was shown;
and the evidence a model that cannot call tools is given inline."""

from __future__ import annotations

from consensus.inspect.citations import check_citations, diff_spans
from consensus.inspect.inline_evidence import inline_evidence, mentioned_names
from consensus.inspect.lookups import Lookups
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.inspect.tool_results import Span
from consensus.model.base import Category, Severity
from consensus.model.claim import Claim
from consensus.model.diff import ChangedFile, DiffLine, Hunk
from consensus.model.reply import Citation
from consensus.testing.trees import FakeTrees

POOL = "".join(f"# line {n}\n" for n in range(1, 41)) + (
    "def open_pool(url, size):\n"  # 41
    "    if size  >  MAX_POOL:\n"  # 42
    "        raise ValueError('pool too large')\n"  # 43
    "    return Pool(url,\n"  # 44
    "                size)\n"  # 45
)
HEAD = {
    "app/db.py": (
        "from app.pool import open_pool\n\n\ndef connect(url):\n    return open_pool(url, 10)\n"
    ),
    "app/pool.py": POOL,
}
BASE = {**HEAD, "app/db.py": "def connect(url):\n    return None\n"}
# The change to app/db.py, as ingest parses it: head lines 1-5, base lines 1-2.
DIFF = ChangedFile(
    path="app/db.py",
    status="modified",
    hunks=(
        Hunk(
            old_start=1, old_length=2, new_start=1, new_length=5,
            lines=(
                DiffLine(kind="+", text="from app.pool import open_pool", new_line=1),
                DiffLine(kind="+", text="", new_line=2),
                DiffLine(kind="+", text="", new_line=3),
                DiffLine(kind=" ", text="def connect(url):", old_line=1, new_line=4),
                DiffLine(kind="-", text="    return None", old_line=2),
                DiffLine(kind="+", text="    return open_pool(url, 10)", new_line=5),
            ),
        ),
    ),
)  # fmt: skip


def snapshot() -> Snapshot:
    return Snapshot(FakeTrees(head=HEAD, base=BASE), redactor(), PathPolicy())


def cite(path: str, start: int, end: int, quote: str, side: str = "head") -> Citation:
    return Citation.model_validate(
        {"path": path, "start_line": start, "end_line": end, "quote": quote, "side": side}
    )


def check(*evidence: Citation, seen: tuple[Span, ...] = ()) -> list[str]:
    report = check_citations(evidence, snapshot(), diff_spans([DIFF]) + seen)
    return [c.reason for c in report.checks]


def test_a_quote_of_the_diff_holds() -> None:
    report = check_citations(
        [cite("app/db.py", 5, 5, "return open_pool(url, 10)")], snapshot(), diff_spans([DIFF])
    )
    assert report.grounded
    assert [c.reason for c in report.checks] == ["holds"]


def test_a_quote_that_differs_only_in_whitespace_holds() -> None:
    seen = (Span(path="app/pool.py", start_line=41, end_line=45),)
    quote = "if size > MAX_POOL: raise ValueError('pool too large') return Pool(url, size)"
    assert check(cite("app/pool.py", 42, 45, quote), seen=seen) == ["holds"]


def test_a_quote_that_is_not_in_the_lines_fails() -> None:
    assert check(cite("app/db.py", 4, 5, "return open_pool(url, 100)")) == [
        "the quote is not in app/db.py lines 4-5 (head)"
    ]


def test_lines_past_the_end_of_the_file_fail() -> None:
    assert check(cite("app/db.py", 5, 9, "return open_pool")) == [
        "app/db.py has 5 lines at the head: 9 is past its end"
    ]


def test_a_real_quote_the_judge_never_saw_fails_as_unseen() -> None:
    assert check(cite("app/pool.py", 43, 43, "raise ValueError('pool too large')")) == [
        "app/pool.py line 43 (head) was never shown to this judge: cite the diff, the "
        "context or a tool's answer"
    ]


def test_a_line_a_tool_showed_may_be_cited() -> None:
    lookups = Lookups(snapshot())
    lookups.call("read_file", {"path": "app/pool.py", "start_line": 41, "end_line": 43})
    report = check_citations(
        [cite("app/pool.py", 43, 43, "raise ValueError('pool too large')")],
        snapshot(),
        lookups.seen(),
    )
    assert report.grounded


def test_the_base_side_is_checked_against_the_base_tree() -> None:
    assert check(cite("app/db.py", 2, 2, "return None", side="base")) == ["holds"]
    assert check(cite("app/db.py", 2, 2, "return None")) == [
        "the quote is not in app/db.py lines 2-2 (head)"
    ]


def test_a_citation_of_a_path_outside_the_tree_fails_unread() -> None:
    assert check(cite("../etc/passwd", 1, 1, "root")) == [
        "refused '../etc/passwd': '..' is not allowed; name the file from the root"
    ]


def test_a_verdict_that_cites_nothing_is_blind() -> None:
    assert not check_citations([], snapshot(), diff_spans([DIFF])).grounded


def test_one_failing_citation_makes_the_verdict_blind() -> None:
    report = check_citations(
        [cite("app/db.py", 5, 5, "open_pool(url, 10)"), cite("app/db.py", 5, 5, "close()")],
        snapshot(),
        diff_spans([DIFF]),
    )
    assert [c.holds for c in report.checks] == [True, False]
    assert not report.grounded


# --------------------------------------------------------------------------- inline


CLAIM = Claim(
    fingerprint="f1",
    path="app/db.py",
    line=5,
    end_line=5,
    title="connect() passes a pool size `open_pool` may refuse",
    body="open_pool raises ValueError when size exceeds MAX_POOL.",
    category=Category.BUG,
    severity=Severity.MEDIUM,
    families=frozenset({"openai"}),
    providers=("openai/gpt-5.1",),
)


def test_the_names_a_claim_mentions_are_read_from_its_words() -> None:
    assert mentioned_names(f"{CLAIM.title}\n{CLAIM.body}") == [
        "connect",
        "open_pool",
        "ValueError",
        "MAX_POOL",
    ]


def test_inline_evidence_shows_the_claims_lines_and_the_definitions_it_names() -> None:
    result = inline_evidence(snapshot(), CLAIM)
    assert result.text.splitlines()[:3] == [
        "app/db.py (head), lines 1-5 of 5, the claim at 5, in function connect (line 4):",
        "1  from app.pool import open_pool",
        "2  ",
    ]
    assert "open_pool: function, app/pool.py:41" in result.text
    assert Span(path="app/pool.py", start_line=41, end_line=45) in result.spans
    quote = cite("app/pool.py", 43, 43, "raise ValueError('pool too large')")
    assert check_citations([quote], snapshot(), result.spans).grounded


def test_the_first_read_starts_at_the_claims_function_where_the_guard_is() -> None:
    """A guard 50 lines above the claim is beyond 30 lines around it, not beyond its def."""
    body = "".join(f"    step_{n}(order)\n" for n in range(48))
    handler = "def refund(order):\n    if order is None:\n        return\n" + body
    handler += "    order.total -= order.paid\n"  # line 52: the claim
    trees = FakeTrees(head={"app/refunds.py": handler}, base={})
    claim = CLAIM.model_copy(
        update={
            "path": "app/refunds.py",
            "line": 52,
            "end_line": 52,
            "title": "`order` may be None",
        }
    )

    result = inline_evidence(Snapshot(trees, redactor(), PathPolicy()), claim)

    assert result.text.splitlines()[0].startswith("app/refunds.py (head), lines 1-52 of 52")
    assert Span(path="app/refunds.py", start_line=1, end_line=52) in result.spans


def test_the_first_read_shows_where_the_function_is_called_code_before_tests() -> None:
    views = "from app.db import connect\n\n\ndef home(settings):\n"
    views += "    url = settings.url or DEFAULT\n    return connect(url)\n"
    test = "from app.db import connect\n\n\ndef test_connect():\n    assert connect('x')\n"
    trees = FakeTrees(head={**HEAD, "tests/test_db.py": test, "app/views.py": views}, base=BASE)

    result = inline_evidence(Snapshot(trees, redactor(), PathPolicy()), CLAIM)

    text = result.text
    assert text.index("connect used at app/views.py:6 in home:") < text.index(
        "connect used at tests/test_db.py:5 in test_connect:"
    )
    assert "app/views.py:5:     url = settings.url or DEFAULT" in text
    assert Span(path="app/views.py", start_line=4, end_line=6) in result.spans


def test_a_function_used_everywhere_is_not_followed_to_its_callers() -> None:
    calls = "from app.db import connect\n" + "".join(f"connect('{n}')\n" for n in range(30))
    trees = FakeTrees(head={**HEAD, "app/jobs.py": calls}, base=BASE)

    result = inline_evidence(Snapshot(trees, redactor(), PathPolicy()), CLAIM)

    assert "[connect is used in 30 places: ask find_references]" in result.text
    assert not any(s.path == "app/jobs.py" for s in result.spans)
