"""Committable suggestions: the reply field, which provider's text a finding offers, when it
applies, and the block no text can break out of."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from pydantic import ValidationError

from consensus.decide.report import chosen_suggestion
from consensus.model.base import Category, Severity, Status
from consensus.model.findings import Cluster, Finding, Suggestion
from consensus.model.reply import MAX_SUGGESTION_LINES, ReplyFinding
from consensus.model.report import ReportFinding, Votes
from consensus.ports import InlineComment
from consensus.publish.inline import inline_body
from consensus.publish.plan import Scope
from consensus.publish.suggestion import suggestion_block, suggestion_problem

REPLY = {
    "path": "a.py",
    "line": 3,
    "severity": "high",
    "category": "bug",
    "title": "t",
    "body": "b",
}


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("x = 1", "x = 1"),
        ("x = 1\n", "x = 1"),  # the trailing newline is the block's, not the code's
        ("a\r\nb\r\n", "a\nb"),
        ("", ""),  # an empty suggestion deletes the lines
        (None, None),
    ],
)
def test_a_reply_suggestion_is_normalised(given: str | None, kept: str | None) -> None:
    assert ReplyFinding.model_validate({**REPLY, "suggestion": given}).suggestion == kept


@pytest.mark.parametrize("given", ["x\n" * (MAX_SUGGESTION_LINES + 1), "x" * 9_000, 42, ["x = 1"]])
def test_a_bad_reply_suggestion_is_a_validation_error(given: object) -> None:
    with pytest.raises(ValidationError):
        ReplyFinding.model_validate({**REPLY, "suggestion": given})


def member(provider: str, family: str, line: int, end: int, text: str | None) -> Finding:
    suggestion = None if text is None else Suggestion(line=line, end_line=end, text=text)
    return Finding(
        provider=provider,
        family=family,
        persona="correctness",
        chunk=0,
        path="a.py",
        line=line,
        end_line=end,
        severity=Severity.HIGH,
        category=Category.BUG,
        title="t",
        body="b",
        suggestion=suggestion,
    )


def cluster(*members: Finding, line: int = 3, end: int = 4) -> Cluster:
    return Cluster(
        path="a.py",
        line=line,
        end_line=end,
        severity=Severity.HIGH,
        category=Category.BUG,
        title="t",
        body="b",
        members=members,
        fingerprint="f" * 16,
    )


@pytest.mark.parametrize(
    ("members", "chosen"),
    [
        ([member("openai/gpt", "openai", 3, 4, None)], None),
        ([member("openai/gpt", "openai", 3, 4, "fix()")], ("openai/gpt", "fix()")),
        (  # the text two families wrote, over one family's
            [
                member("anthropic/c", "anthropic", 3, 4, "other()"),
                member("openai/gpt", "openai", 3, 4, "fix()"),
                member("google/g", "google", 3, 4, "fix()"),
            ],
            ("google/g", "fix()"),
        ),
        (  # a tie: the provider first in name order, its words whole
            [
                member("openai/gpt", "openai", 3, 4, "b()"),
                member("anthropic/c", "anthropic", 3, 4, "a()"),
            ],
            ("anthropic/c", "a()"),
        ),
        (  # two personas of one family back a text once
            [
                member("openai/gpt", "openai", 3, 4, "x()"),
                member("openai/gpt", "openai", 3, 4, "x()"),
                member("anthropic/c", "anthropic", 3, 4, "y()"),
            ],
            ("anthropic/c", "y()"),
        ),
        (  # for other lines than the finding's: it would replace the wrong code
            [
                member("openai/gpt", "openai", 3, 5, "fix()"),
                member("google/g", "google", 4, 4, "z"),
            ],
            None,
        ),
    ],
)
def test_a_finding_offers_one_reporting_providers_suggestion(
    members: list[Finding], chosen: tuple[str, str] | None
) -> None:
    got = chosen_suggestion(cluster(*members))
    assert (None if got is None else (got.provider, got.text)) == chosen


HEAD = {3: "    query = f'{x}'", 4: "    run(query)", 5: "    return «redacted:token»"}


@pytest.mark.parametrize(
    ("text", "start", "end", "problem"),
    [
        ("    run(x)", 3, 4, None),
        ("", 3, 4, None),  # deletes both lines
        ("    run(x)", 3, 3, "it replaces lines 3-4, the comment is on 3-3"),
        ("    query = f'{x}'\n    run(query)", 3, 4, "it changes nothing"),
        ("    run(«redacted:token»)", 3, 4, "it holds a redaction placeholder"),
        ("    run(x)\u202e", 3, 4, "control or bidirectional-override"),
        ("    run(x)\x1b[2J", 3, 4, "control or bidirectional-override"),
        ("3 + query = 1\n4 + run(query)", 3, 4, "quotes the diff"),
    ],
)
def test_a_suggestion_is_posted_only_when_it_applies_cleanly(
    text: str, start: int, end: int, problem: str | None
) -> None:
    got = suggestion_problem(Suggestion(line=3, end_line=4, text=text), start, end, HEAD)
    assert got == problem if problem is None else (got is not None and problem in got)


def test_no_suggestion_for_lines_whose_head_is_unknown_or_secret() -> None:
    on_secret = Suggestion(line=4, end_line=5, text="x")
    assert suggestion_problem(on_secret, 4, 5, HEAD) == "those lines hold a redacted secret"
    unknown = Suggestion(line=6, end_line=6, text="x")
    assert "not in the diff" in (suggestion_problem(unknown, 6, 6, HEAD) or "")
    assert "not in the diff" in (suggestion_problem(unknown, 6, 6, None) or "")


def fences(markdown: str) -> list[tuple[str, str]]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(t.info, t.content) for t in tokens if t.type == "fence"]


@pytest.mark.parametrize(
    "text",
    [
        "x = 1",
        "```\n@alice <img src=x> [a](https://evil.example)\n```",
        "`````\nclose()",
        "    ````",
        "~~~\nx",
    ],
)
def test_nothing_in_a_suggestion_closes_its_fence(text: str) -> None:
    block = suggestion_block(Suggestion(line=1, end_line=1, text=text))
    after = f"{block}\n\n<!-- consensus:fp=0123456789abcdef -->"
    assert fences(after) == [("suggestion", text + "\n")]
    html = MarkdownIt("commonmark").render(after)
    assert "<img" not in html and "<a " not in html  # inert: shown as code


def report_finding(suggestion: Suggestion | None) -> ReportFinding:
    return ReportFinding(
        id="F1",
        fingerprint="0123456789abcdef",
        path="a.py",
        line=3,
        end_line=4,
        severity=Severity.HIGH,
        category=Category.BUG,
        title="Query built from input",
        body="Use a parameter.",
        agreement=1.0,
        votes=Votes(**{"for": 2, "of": 2}),
        providers=["openai/gpt", "google/g"],
        personas=["security"],
        status=Status.CONSENSUS,
        suggestion=suggestion,
    )


def test_the_inline_body_carries_the_block_and_who_wrote_it() -> None:
    offer = Suggestion(line=3, end_line=4, text="    run(x)", provider="google/g")
    body = inline_body(report_finding(offer), (), offer)
    assert fences(body) == [("suggestion", "    run(x)\n")]
    assert "Suggested change, as `google/g` wrote it:" in body
    assert body.rsplit("\n", 1)[-1] == "<!-- consensus:fp=0123456789abcdef -->"
    assert "suggestion" not in inline_body(report_finding(offer), ())  # not applicable: none


def test_the_plan_posts_the_suggestion_only_on_its_own_lines() -> None:
    from consensus.publish.plan import plan_publish
    from consensus.publish.thread import read_thread
    from consensus.settings.config import PublishSettings
    from tests.unit.test_publish import report as report_with

    offer = Suggestion(line=3, end_line=4, text="    run(x)", provider="google/g")
    report = report_with(report_finding(offer))
    thread = read_thread([], [])

    def posted(hunks: dict[str, list[frozenset[int]]]) -> InlineComment:
        plan = plan_publish(
            report,
            thread,
            PublishSettings(),
            scope=Scope(head_sha="h" * 40, reviewed={"a.py"}, in_diff={"a.py"}),
            hunks=hunks,
            head={"a.py": HEAD},
        )
        assert plan.review is not None
        [comment] = plan.review.comments
        return comment

    both = posted({"a.py": [frozenset({3, 4, 5})]})
    assert (both.start_line, both.line) == (3, 4) and "```suggestion" in both.body
    only_first = posted({"a.py": [frozenset({3}), frozenset({4})]})  # 4 is in another hunk
    assert (only_first.start_line, only_first.line) == (None, 3)
    assert "suggestion" not in only_first.body
