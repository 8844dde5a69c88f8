"""Fingerprints: same problem at the same place → same id, across rewording and shifts."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consensus.decide.align import align
from consensus.decide.fingerprint import disambiguate, fingerprint
from consensus.model.base import Category, Severity
from consensus.model.findings import Finding

CODE = '    cursor.execute(f"SELECT * FROM users WHERE id = {user_id}")\n'


def test_shape_is_16_hex_characters() -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint("a.py", Category.BUG, CODE))


def test_known_value_is_stable_across_runs() -> None:
    # A golden value: changing the hash input silently would re-post every comment.
    assert fingerprint("src/app/db.py", Category.SECURITY, CODE) == "3862477bb561dfe8"
    payload = "src/app/db.py\0security\0" + " ".join(CODE.split())
    assert hashlib.sha256(payload.encode()).hexdigest()[:16] == "3862477bb561dfe8"


@pytest.mark.parametrize(
    "variant",
    [
        CODE.strip(),
        '\t\tcursor.execute(f"SELECT * FROM users WHERE id = {user_id}")\r\n',
        'cursor.execute(f"SELECT  *  FROM users\n   WHERE id = {user_id}")',
    ],
    ids=["stripped", "reindented-crlf", "rewrapped"],
)
def test_whitespace_does_not_matter(variant: str) -> None:
    assert fingerprint("db.py", Category.SECURITY, variant) == fingerprint(
        "db.py", Category.SECURITY, CODE
    )


@pytest.mark.parametrize(
    ("path", "category", "text"),
    [
        ("other.py", Category.SECURITY, CODE),
        ("db.py", Category.BUG, CODE),
        ("db.py", Category.SECURITY, CODE.replace("user_id", "uid")),
        ("db.py", Category.SECURITY, CODE.upper()),  # code is case-sensitive
    ],
)
def test_place_category_and_code_all_count(path: str, category: Category, text: str) -> None:
    assert fingerprint(path, category, text) != fingerprint("db.py", Category.SECURITY, CODE)


def test_separators_keep_fields_apart() -> None:
    assert fingerprint("a", Category.BUG, "b c") != fingerprint("a b", Category.BUG, "c")


@pytest.mark.parametrize(
    ("given_", "expected"),
    [
        ([], []),
        (["a", "b"], ["a", "b"]),
        (["a", "a", "b", "a"], ["a", "a-2", "b", "a-3"]),
        (["a", "a-2", "a"], ["a", "a-2", "a-3"]),  # a suffix never collides with a value
    ],
)
def test_disambiguate(given_: list[str], expected: list[str]) -> None:
    assert disambiguate(given_) == expected


@given(st.lists(st.sampled_from(["a", "b", "a-2", "c"]), max_size=12))
def test_disambiguate_is_unique_and_keeps_first_occurrences(values: list[str]) -> None:
    result = disambiguate(values)
    assert len(set(result)) == len(result) == len(values)
    for index, value in enumerate(values):
        if value not in values[:index]:
            assert result[index] == value


def finding(provider: str, line: int, title: str) -> Finding:
    return Finding(
        provider=provider,
        family=provider.split("/")[0],
        persona="security",
        chunk=0,
        path="src/app/db.py",
        line=line,
        end_line=line,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title=title,
        body="The query is built with an f-string from request data: SQL injection.",
    )


def test_align_fingerprint_survives_rewording_and_line_shift() -> None:
    first_run = [
        finding("openai/gpt-5.1", 42, "SQL query built with f-string allows injection"),
        finding("anthropic/claude", 43, "SQL injection via f-string"),
    ]
    # Next push: three lines inserted above, and the models word it differently.
    second_run = [
        finding("openai/gpt-5.1", 45, "Possible SQL injection: use parameterized queries"),
        finding("anthropic/claude", 46, "User input interpolated into SQL statement"),
    ]
    (before,) = align(first_run, anchor_text=lambda p, s, e: CODE if s in (42, 43) else "")
    (after,) = align(second_run, anchor_text=lambda p, s, e: CODE if s in (45, 46) else "")
    assert before.title != after.title
    assert (
        before.fingerprint
        == after.fingerprint
        == fingerprint("src/app/db.py", Category.SECURITY, CODE)
    )


def test_align_falls_back_to_the_title_without_code() -> None:
    (cluster,) = align([finding("openai/gpt-5.1", 42, "SQL  Injection via f-string")])
    assert cluster.fingerprint == fingerprint(
        "src/app/db.py", Category.SECURITY, "sql injection via f-string"
    )
    (blank,) = align(
        [finding("openai/gpt-5.1", 42, "SQL  Injection via f-string")],
        anchor_text=lambda p, s, e: "  \n",
    )
    assert blank.fingerprint == cluster.fingerprint


def test_align_makes_fingerprints_unique() -> None:
    # Two problems on one line, same category, same code: same hash, distinct markers.
    findings = [
        finding("openai/gpt-5.1", 42, "SQL injection via f-string"),
        finding("openai/gpt-5.1", 42, "Hard-coded database password in query"),
    ]
    clusters = align(findings, anchor_text=lambda p, s, e: CODE)
    base = fingerprint("src/app/db.py", Category.SECURITY, CODE)
    assert [c.fingerprint for c in clusters] == [base, f"{base}-2"]
