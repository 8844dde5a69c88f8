"""Judges that look: a judge is offered the verification tools over the pull request's
trees, its tool calls are answered from them, and its verdict counts as grounded only when
every line it cites is in the tree as quoted and was shown to it; a model that cannot
call tools is given the same evidence inline."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence

from consensus.inspect.lookups import ToolBudget
from consensus.inspect.snapshot import Snapshot, redactor
from consensus.model.base import Category, FailureKind, FileStatus, Severity, Status
from consensus.model.completion import ToolCall
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff
from consensus.model.findings import Cluster, Finding, ScoredCluster, Vote
from consensus.ports import Completion, CompletionRequest, ModelCallError
from consensus.review.guard import GuardedClient
from consensus.review.judge_tools import Looker
from consensus.review.ledger import Ledger
from consensus.review.verify import Reading, verify
from consensus.settings.config import BudgetSettings, InspectorSettings, ProviderSettings, Settings
from consensus.testing import FakeModelClient
from consensus.testing.trees import FakeTrees, Link

CART = "\n".join(
    [
        "from decimal import Decimal",
        "",
        "",
        "def checkout(items):",
        "    total = Decimal(0)",
        "    for item in items:",
        "        total += item.price",
        "    return total",
        "",
    ]
)
VIEWS = "\n".join(
    [
        "from shop.cart import checkout",
        "",
        "",
        "def pay(request):",
        "    items = request.session.get('items')",
        "    return checkout(items or [])",
        "",
    ]
)
GUARD = "return checkout(items or [])"  # views.py line 6: the caller never passes None
INLINE_HEADING = "What the repository holds that bears on it"  # verify.j2
TAX = 'from decimal import Decimal\n\nRATE = Decimal("0.2")\n'  # bears on nothing: never shown
FIRST_READ = "inline src/shop/cart.py:1-8, src/shop/views.py:4-6"  # the function, its caller
TREES = FakeTrees(
    head={
        "src/shop/cart.py": CART,
        "src/shop/views.py": VIEWS,
        "src/shop/tax.py": TAX,
        "docs/passwd": Link("../../../etc/passwd"),
    },
    base={"src/shop/cart.py": CART.replace("item.price", "item.cost"), "src/shop/views.py": VIEWS},
)
DIFF = ReviewDiff(
    files=(
        ChangedFile(
            path="src/shop/cart.py",
            status=FileStatus.MODIFIED,
            hunks=(
                Hunk(
                    old_start=6,
                    old_length=2,
                    new_start=6,
                    new_length=2,
                    lines=(
                        DiffLine(kind=" ", text="    for item in items:", old_line=6, new_line=6),
                        DiffLine(kind="-", text="        total += item.cost", old_line=7),
                        DiffLine(kind="+", text="        total += item.price", new_line=7),
                    ),
                ),
            ),
        ),
    )
)
TITLE = "`checkout` iterates `items`, which may be None"
PANEL = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
)
Answer = Callable[[CompletionRequest], "str | Completion | ModelCallError"]


def disputed() -> ScoredCluster:
    """One family's claim on line 6 of cart.py: an invention the caller's guard refutes."""
    member = Finding(
        provider="ollama/qwen2.5-coder",
        family="qwen",
        persona="correctness",
        chunk=0,
        path="src/shop/cart.py",
        line=6,
        end_line=6,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=TITLE,
        body="A None `items` raises TypeError.",
    )
    cluster = Cluster(
        path=member.path,
        line=6,
        end_line=6,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=TITLE,
        body=member.body,
        members=(member,),
        fingerprint="fedcba9876543210",
    )
    return ScoredCluster(
        cluster=cluster,
        votes_for=1,
        votes_of=4,
        agreement=0.25,
        needed=3,
        status=Status.UNVERIFIED,
        reason="disputed: 1 of 4 families; needs verification",
        needs_verification=True,
    )


def verdict(kind: str, *cited: dict[str, object]) -> str:
    return json.dumps({"verdict": kind, "reason": "read the caller", "evidence": list(cited)})


def cite(path: str, line: int, quote: str) -> dict[str, object]:
    return {"path": path, "start_line": line, "end_line": line, "quote": quote}


def tool_answers(request: CompletionRequest) -> list[str]:
    return [m.content for m in request.messages if m.role == "tool"]


def calling(*calls: tuple[str, dict[str, object]]) -> Completion:
    return Completion(
        text="",
        tool_calls=tuple(
            ToolCall(id=f"call_{n}", name=name, arguments=json.dumps(arguments))
            for n, (name, arguments) in enumerate(calls)
        ),
    )


def judged(answer: Answer, budget: int = 6, claims: int = 1) -> tuple[list[Vote], FakeModelClient]:
    """The votes on the disputed claim(s), each judge answering by `answer`."""
    client = FakeModelClient(by_request=answer)
    ledger = Ledger(BudgetSettings(max_cost_usd=None, max_tokens=None))
    settings = Settings(inspector=InspectorSettings(rule="ahead-by-k", ahead_by=1, max_votes=1))
    looker = Looker(Snapshot(TREES, redactor()), ToolBudget(calls=budget))
    done = asyncio.run(
        verify(
            [disputed() for _ in range(claims)],
            diff=DIFF,
            panel=PANEL,
            settings=settings,
            client=GuardedClient(client, ledger),
            ledger=ledger,
            reading=Reading(looker=looker),
        )
    )
    votes = [v for item in done.items if item.verification for v in item.verification.votes]
    return votes, client


def reads_the_caller(request: CompletionRequest) -> str | Completion:
    """A judge that looks up who calls `checkout` before it answers, and cites the guard."""
    answers = tool_answers(request)
    if request.tools and not answers:
        return calling(("find_references", {"symbol": "checkout"}))
    if any(GUARD in a for a in answers):
        return verdict("refuted", cite("src/shop/views.py", 6, GUARD))
    return verdict("confirmed")


def test_a_judge_that_reads_the_caller_refutes_with_a_checked_citation() -> None:
    [vote], client = judged(reads_the_caller)

    assert vote.verdict is not None and vote.verdict.value == "refuted"
    assert vote.grounded
    assert [(c.path, c.start_line, c.quote) for c in vote.evidence] == [
        ("src/shop/views.py", 6, GUARD)
    ]
    assert vote.looked == (
        FIRST_READ,
        "find_references src/shop/views.py:1-1, src/shop/views.py:6-6",
    )
    [asked, answered] = client.calls
    assert [t.name for t in asked.tools] == [
        "read_file",
        "search",
        "find_definition",
        "find_references",
        "list_tests",
    ]
    assert GUARD in tool_answers(answered)[0]


def test_every_judge_is_first_shown_the_claims_function_and_where_it_is_called() -> None:
    """The product's first read: the function from its `def`, and the caller's lines up to
    the call, in the question itself, so a judge that asks for nothing may cite the guard."""
    [vote], client = judged(lambda request: verdict("refuted", cite("src/shop/views.py", 6, GUARD)))

    question = client.calls[0].messages[-1].content
    assert INLINE_HEADING in question
    assert "def checkout(items):" in question and "def pay(request):" in question
    assert vote.grounded and vote.looked == (FIRST_READ,)


def test_a_citation_of_lines_the_judge_never_read_is_a_blind_vote() -> None:
    """True lines, quoted right, but never shown to this judge: it did not look."""
    [vote], _ = judged(
        lambda request: verdict("refuted", cite("src/shop/tax.py", 3, 'RATE = Decimal("0.2")'))
    )

    assert vote.verdict is not None and not vote.grounded and vote.evidence == ()


def test_a_citation_whose_quote_is_not_on_its_lines_is_a_blind_vote() -> None:
    def misquotes(request: CompletionRequest) -> str | Completion:
        if request.tools and not tool_answers(request):
            return calling(
                ("read_file", {"path": "src/shop/views.py", "start_line": 1, "end_line": 7})
            )
        return verdict("refuted", cite("src/shop/views.py", 6, "if items is None: return 0"))

    [vote], _ = judged(misquotes)

    assert not vote.grounded


def test_a_verdict_citing_nothing_is_a_blind_vote() -> None:
    [vote], _ = judged(lambda request: verdict("confirmed"))

    assert vote.verdict is not None and not vote.grounded and vote.looked == (FIRST_READ,)


def test_a_judge_may_cite_the_code_its_question_showed_without_reading_it_again() -> None:
    [vote], _ = judged(
        lambda r: verdict("confirmed", cite("src/shop/cart.py", 6, "for item in items:"))
    )

    assert vote.grounded


def test_a_traversal_and_a_symlink_out_of_the_tree_are_refused_not_read() -> None:
    def escapes(request: CompletionRequest) -> str | Completion:
        if request.tools and not tool_answers(request):
            return calling(
                ("read_file", {"path": "../../etc/passwd", "start_line": 1, "end_line": 5}),
                ("read_file", {"path": "docs/passwd", "start_line": 1, "end_line": 5}),
            )
        return verdict("uncertain")

    [vote], client = judged(escapes)

    refusals = tool_answers(client.calls[-1])
    assert len(refusals) == 2 and all(a.startswith("error: refused") for a in refusals)
    assert "root:" not in "".join(refusals)
    assert vote.looked[0] == FIRST_READ
    assert all(w.startswith("read_file: refused") for w in vote.looked[1:])


def test_the_budget_ends_the_lookups_and_the_judge_is_told_to_answer() -> None:
    def never_stops(request: CompletionRequest) -> str | Completion:
        if request.tool_choice == "none":
            return verdict("uncertain")
        return calling(("search", {"pattern": "items"}), ("search", {"pattern": "total"}))

    _, client = judged(never_stops, budget=3)

    rounds = client.calls
    assert [r.tool_choice for r in rounds] == ["auto", "auto", "none"]
    answers = tool_answers(rounds[-1])
    assert len(answers) == 4  # every call answered, the fourth with the budget's note
    assert "budget of 3 tool calls" in answers[-1]


def test_a_model_without_tools_gets_the_evidence_inline_and_is_not_offered_them_again() -> None:
    def no_tools(request: CompletionRequest) -> str | ModelCallError:
        if request.tools:
            return ModelCallError(FailureKind.NO_TOOLS, "litellm lists no tool calling")
        return verdict("refuted", cite("src/shop/cart.py", 6, "for item in items:"))

    votes, client = judged(no_tools, claims=2)

    offered = [r for r in client.calls if r.tools]
    assert len(offered) == 1  # asked with tools once in the run, then inline only
    inline = [r for r in client.calls if not r.tools]
    assert len(inline) == 2 and all(INLINE_HEADING in r.messages[-1].content for r in inline)
    assert "def checkout(items):" in inline[0].messages[-1].content
    assert all(v.grounded for v in votes)


def test_a_refused_model_keeps_its_breaker_closed_for_the_review_that_follows() -> None:
    calls: list[Sequence[object]] = []

    def no_tools(request: CompletionRequest) -> str | ModelCallError:
        calls.append(request.tools)
        if request.tools:
            return ModelCallError(FailureKind.NO_TOOLS, "the provider refused tools")
        return verdict("confirmed")

    votes, _ = judged(no_tools, claims=4)

    assert len(votes) == 4 and all(v.verdict is not None for v in votes)
