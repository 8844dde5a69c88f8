"""Model replies as real models write them → ParsedReview / VerdictReply / ReplyError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.model.base import Category, Severity
from consensus.review.converse import parse_converse
from consensus.review.reply import (
    MAX_REPLY_CHARS,
    ParsedReview,
    ReplyError,
    extract_json,
    parse_review,
    parse_same_problem,
    parse_verdict,
    repair_prompt,
)

FINDING = {
    "path": "src/app/db.py",
    "line": 42,
    "end_line": 44,
    "severity": "high",
    "category": "bug",
    "title": "Connection is never closed",
    "body": "`conn` leaks when `execute` raises; use `with`.",
    "evidence": "conn = pool.get()",
    "confidence": 0.8,
}
REPLY = json.dumps({"findings": [FINDING]}, indent=2)


def finding(**changes: object) -> dict[str, object]:
    return {**FINDING, **changes}


def review(*findings: object) -> str:
    return json.dumps({"findings": list(findings)})


def problem_of(text: str) -> str:
    with pytest.raises(ReplyError) as caught:
        parse_review(text)
    return caught.value.problem


def only_title(parsed: ParsedReview) -> str:
    assert parsed.invalid == ()
    [found] = parsed.reply.findings
    return found.title


# --------------------------------------------------------------------------- wrappers


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(REPLY, id="plain"),
        pytest.param(f"```json\n{REPLY}\n```", id="fenced-json-tag"),
        pytest.param(f"```\n{REPLY}\n```\n", id="fenced-no-tag"),
        pytest.param(f"```JSON \r\n{REPLY}\r\n```", id="fenced-crlf"),
        pytest.param(f"{REPLY}\n\nLet me know if you need more details!", id="trailing-prose"),
        pytest.param(f"Here is my review:\n\n{REPLY}", id="leading-prose"),
        pytest.param(
            f"I reviewed the diff.\n```json\n{REPLY}\n```\nHope this helps {{:)}}", id="both"
        ),
        pytest.param(
            "```python\nconn = pool.get()\n```\nFindings:\n```json\n" + REPLY + "\n```",
            id="first-fence-not-json",
        ),
        pytest.param(
            '<think>\nThe user wants JSON like {"findings": []}. Line 42 leaks.\n</think>\n\n'
            + REPLY,
            id="think-preamble",
        ),
        pytest.param(
            'Okay, so {"findings": []} would be wrong here.\n</think>\n' + REPLY,
            id="think-opening-tag-stripped-by-gateway",
        ),
        pytest.param(
            'The config sets `{"debug": true}` which is risky.\n\n' + REPLY,
            id="quoted-json-before-the-reply",
        ),
        pytest.param(json.dumps(REPLY), id="double-encoded"),
    ],
)
def test_wrapped_replies_are_accepted(text: str) -> None:
    assert only_title(parse_review(text)) == "Connection is never closed"


def test_a_closing_think_tag_inside_the_json_is_not_reasoning() -> None:
    text = review(finding(title="Leaks </think> into output"), finding(title="second"))
    parsed = parse_review(text)
    assert [found.title for found in parsed.reply.findings] == [
        "Leaks </think> into output",
        "second",
    ]
    assert parse_review("Intro " + text).reply.findings == parsed.reply.findings


def test_a_think_block_never_supplies_the_findings() -> None:
    draft = review(finding(title="Draft from reasoning"))
    text = f"<think>First idea: {draft}\nNo, that is wrong.</think>\n{review()}"
    assert parse_review(text).reply.findings == []


def test_the_scanner_respects_braces_and_escaped_quotes_inside_strings() -> None:
    tricky = finding(body='Use `{"a": "}"}` and a quote \\" then a } brace', title="Braces")
    text = f"Review follows. {json.dumps({'findings': [tricky]})} Done {{ (stray brace"
    [found] = parse_review(text).reply.findings
    assert found.body == tricky["body"]


def test_a_bare_list_of_findings_is_wrapped() -> None:
    assert extract_json(json.dumps([FINDING])) == {"findings": [FINDING]}
    assert only_title(parse_review(f"Findings:\n{json.dumps([FINDING])}")) == FINDING["title"]


@pytest.mark.parametrize("text", ['{"findings": []}', "[]", "```json\n[]\n```"])
def test_no_findings_is_a_valid_review(text: str) -> None:
    assert parse_review(text) == ParsedReview(reply=parse_review(text).reply, invalid=())
    assert parse_review(text).reply.findings == []


# --------------------------------------------------------------------------- broken JSON


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(REPLY[: REPLY.index("never") + 3], id="cut-mid-string"),
        pytest.param(REPLY[: REPLY.index('"line"')], id="cut-between-keys"),
        pytest.param("```json\n" + REPLY[:-20], id="cut-inside-fence"),
        pytest.param("Here is my review:\n" + REPLY[:-1], id="cut-last-brace"),
    ],
)
def test_truncated_json_is_reported_not_completed(text: str) -> None:
    problem = problem_of(text)
    assert "truncated at character" in problem


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "the reply is empty"),
        ("  \n\t ", "the reply is empty"),
        ("<think>only thoughts</think>", "the reply is empty"),
        ("I found no problems.", "no JSON object"),
        ("42", "no JSON object"),
        ('{"findings": [{"path": "a.py",}]}', "the JSON is invalid"),
        ('{"issues": []}', 'no "findings" list'),
        ('{"findings": "none"}', '"findings" must be a list, not a string'),
        ('{"findings": null}', '"findings" must be a list, not null'),
    ],
)
def test_unusable_replies_raise_with_a_model_readable_problem(text: str, expected: str) -> None:
    assert expected in problem_of(text)


def test_a_broken_reply_is_not_mistaken_for_the_valid_object_inside_it() -> None:
    broken = "Here it is: " + '{"findings": [' + json.dumps(FINDING) + ",]}"
    assert problem_of(broken).startswith("the JSON is invalid: Expecting value: line 1")


def test_deeply_nested_junk_is_refused_without_recursion_error() -> None:
    assert "nested deeper than 64" in problem_of("[" * 200_000 + "]" * 200_000)
    nested = '{"a": ' * 100 + "1" + "}" * 100
    assert "nested deeper than 64" in problem_of(nested)
    assert "nested deeper than 64" in problem_of(f"Result: {nested} ok")


def test_an_integer_too_long_to_convert_is_a_reply_error() -> None:
    assert "invalid" in problem_of('Here: {"findings": [], "n": ' + "9" * 5000 + "}")
    assert "no JSON object" in problem_of("9" * 5000)


def test_replies_over_the_size_limit_are_refused_before_parsing() -> None:
    two_megabytes = review(finding(body="x" * 2_000_000))
    assert "over the limit of 1,000,000" in problem_of(two_megabytes)
    at_limit = review(finding()).ljust(MAX_REPLY_CHARS)
    assert only_title(parse_review(at_limit)) == FINDING["title"]
    assert "over the limit" in problem_of(at_limit + " ")


# --------------------------------------------------------------------------- validation


def test_lenient_variations_are_accepted() -> None:
    loose = finding(severity=" High", category="SECURITY", line="42", extra="ignored")
    text = json.dumps({"findings": [loose], "summary": "one issue"})
    [found] = parse_review(text).reply.findings
    assert (found.severity, found.category, found.line) == (Severity.HIGH, Category.SECURITY, 42)


def test_missing_optional_fields_are_fine() -> None:
    minimal = {key: FINDING[key] for key in ("path", "line", "severity", "category", "title")}
    [found] = parse_review(review({**minimal, "body": ""})).reply.findings
    assert (found.end_line, found.evidence, found.confidence) == (None, None, None)


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (
            {"line": "forty-two"},
            "findings[0].line: Input should be a valid integer, unable to parse string as an "
            'integer (got "forty-two")',
        ),
        (
            {"category": "style"},
            "findings[0].category: Input should be 'bug', 'security', 'performance', "
            "'concurrency', 'api', 'maintainability', 'test' or 'docs' (got \"style\")",
        ),
        ({"line": 0}, "findings[0].line: Input should be greater than or equal to 1 (got 0)"),
        ({"path": ["a.py"]}, "findings[0].path: Input should be a valid string (got an array)"),
    ],
)
def test_a_lone_invalid_finding_sinks_the_reply(bad: dict[str, object], expected: str) -> None:
    assert problem_of(review(finding(**bad))) == expected


def test_a_missing_required_field_is_named_without_echoing_the_finding() -> None:
    incomplete = {key: value for key, value in FINDING.items() if key != "severity"}
    assert problem_of(review(incomplete)) == "findings[0].severity: Field required"


def test_one_bad_finding_among_good_ones_is_reported_not_fatal() -> None:
    text = review(finding(title="first"), finding(category="style"), "not a finding", finding())
    parsed = parse_review(text)
    assert [found.title for found in parsed.reply.findings] == ["first", FINDING["title"]]
    assert [index for index, _ in parsed.invalid] == [1, 2]
    assert parsed.invalid[0][1].startswith("findings[1].category: Input should be 'bug'")
    assert parsed.invalid[1][1].startswith("findings[2]: Input should be a valid dictionary")


def test_problems_list_at_most_five_errors_and_clip_echoed_values() -> None:
    hopeless = {"path": "", "line": "x", "severity": "s" * 5000, "category": 7, "title": ""}
    problem = problem_of(review(hopeless))
    assert problem.count("findings[0].") == 5
    assert problem.endswith("; and 1 more")
    assert "s" * 60 not in problem
    assert '"' + "s" * 58 + "…" in problem
    assert len(problem) < 800


def test_all_findings_invalid_lists_each_in_the_problem() -> None:
    problem = problem_of(review(finding(line="x"), finding(severity="urgent")))
    assert problem.startswith("findings[0].line:")
    assert "; findings[1].severity:" in problem
    many = problem_of(review(*[finding(line="x", category="style")] * 4))
    assert many.count("findings[") == 5
    assert many.endswith("; and 3 more")


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    "text",
    [
        '{"verdict": "confirmed", "reason": "the handle leaks"}',
        '```json\n{"verdict": "Confirmed", "reason": "the handle leaks"}\n```',
        '<think>hmm</think>{"verdict": " CONFIRMED ", "reason": "the handle leaks", "x": 1}',
        'Verdict:\n{"verdict": "confirmed", "reason": "the handle leaks"}\nThanks.',
    ],
)
def test_verdict_replies_are_accepted(text: str) -> None:
    verdict = parse_verdict(text)
    assert (verdict.verdict, verdict.reason) == ("confirmed", "the handle leaks")


def test_other_closed_words_are_read_however_a_model_cases_or_pads_them() -> None:
    same = parse_same_problem('{"verdict": " Same", "reason": "both name the unclosed handle"}')
    answer = parse_converse(
        '{"kind": "Disagreement ", "stands": true, "answer": "It still leaks."}'
    )
    assert (same.verdict, answer.kind) == ("same", "disagreement")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"verdict": "maybe", "reason": "?"}',
            "verdict: Input should be 'confirmed', 'refuted' or 'uncertain' (got \"maybe\")",
        ),
        ('{"verdict": "refuted"}', "reason: Field required"),
        ('"confirmed"', "the reply contains no JSON object"),
        ('["confirmed"]', "verdict: Field required; reason: Field required"),
        ('{"verdict": "refuted", "reason": "', "truncated at character"),
    ],
)
def test_invalid_verdicts_raise(text: str, expected: str) -> None:
    with pytest.raises(ReplyError) as caught:
        parse_verdict(text)
    assert expected in caught.value.problem


def test_repair_prompt_quotes_the_problem() -> None:
    error = ReplyError("findings[0].line: Field required.")
    assert str(error) == error.problem
    assert repair_prompt(error.problem) == (
        "Your reply was not valid: findings[0].line: Field required. "
        "Reply again with only the JSON object."
    )


# --------------------------------------------------------------------------- properties

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from([*FINDING, "findings", "x"]), children, max_size=6)
    ),
    max_leaves=30,
)
_FRAGMENTS = st.lists(
    st.sampled_from(['{"findings": [', "{", "}", "[", "]", '"', "\\", ",", ":", "```json\n"])
    | st.sampled_from(["```", "<think>", "</think>", " prose ", '"line": ', "42", "\n"])
    | st.text(max_size=5),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.text() | _FRAGMENTS | _JSONISH.map(json.dumps))
def test_any_text_parses_or_raises_reply_error(text: str) -> None:
    try:
        parsed = parse_review(text)
    except ReplyError as error:
        assert error.problem
    else:
        assert isinstance(parsed, ParsedReview)
    try:
        parse_verdict(text)
    except ReplyError as error:
        assert error.problem
