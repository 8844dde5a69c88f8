"""The verification tools over a pull request's trees: read_file, search, list_tests, and
what every answer holds back (secrets, size) and records (the lines it showed)."""

from __future__ import annotations

import json

import pytest

from consensus.inspect.lookups import Lookups, ToolBudget
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.inspect.tool_results import Span, ToolResult
from consensus.testing.trees import FakeTrees

LONG_MODULE = "".join(f"def handler_{n}(event):\n    return {n}\n" for n in range(1, 151))
AWS_KEY = "AKIAZ7Q4W2M9K3TR8YXB"
HEAD = {
    "app/handlers.py": LONG_MODULE,  # 300 lines
    "app/db.py": "import os\n\n\ndef connect(url):\n    return open_pool(url, size=10)\n",
    "app/settings.py": f'REGION = "eu-west-1"\nAWS_ACCESS_KEY_ID = "{AWS_KEY}"\n',
    "tests/test_db.py": "from app.db import connect\n\n\ndef test_connect():\n    connect('x')\n",
    "tests/test_handlers.py": "from app import handlers\n\n\ndef test_one():\n    handlers\n",
    "tests/test_misc.py": "def test_nothing():\n    assert True\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
}
BASE = {**HEAD, "app/db.py": "def connect(url):\n    return open_pool(url)\n"}


def call(name: str, budget: ToolBudget | None = None, **arguments: object) -> ToolResult:
    snapshot = Snapshot(FakeTrees(head=HEAD, base=BASE), redactor(), PathPolicy())
    return Lookups(snapshot, budget).call(name, json.dumps(arguments))


# --------------------------------------------------------------------------- read_file


def test_read_file_shows_numbered_lines_and_records_them_as_seen() -> None:
    result = call("read_file", path="app/db.py", start_line=4, end_line=5)
    assert result.text.splitlines() == [
        "app/db.py (head), lines 4-5 of 5:",
        "4: def connect(url):",
        "5:     return open_pool(url, size=10)",
    ]
    assert result.spans == (Span(path="app/db.py", start_line=4, end_line=5),)


def test_read_file_clips_201_lines_to_200_and_says_where_to_go_on() -> None:
    result = call("read_file", path="app/handlers.py", start_line=1, end_line=201)
    assert result.spans == (Span(path="app/handlers.py", start_line=1, end_line=200),)
    assert result.text.splitlines()[-1] == "[at most 200 lines a call: ask for lines 201-… next]"


def test_read_file_past_the_end_shows_to_the_end_and_says_so() -> None:
    result = call("read_file", path="app/db.py", start_line=3, end_line=40)
    assert result.spans == (Span(path="app/db.py", start_line=3, end_line=5),)
    assert result.text.endswith("[the file ends at line 5]")


def test_read_file_starting_past_the_end_is_a_tool_error() -> None:
    result = call("read_file", path="app/db.py", start_line=9, end_line=12)
    assert result.error
    assert result.text == "error: app/db.py has 5 lines at the head; line 9 is past its end"


def test_read_file_reads_the_base_side_when_asked() -> None:
    result = call("read_file", path="app/db.py", start_line=1, end_line=2, side="base")
    assert "2:     return open_pool(url)" in result.text.splitlines()
    assert result.spans == (Span(path="app/db.py", side="base", start_line=1, end_line=2),)


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("app/cache.py", "error: 'app/cache.py' is not a file of the head tree"),
        ("assets/logo.png", "error: 'assets/logo.png' is binary or too large to show"),
    ],
)
def test_read_file_of_a_missing_or_binary_file_is_a_tool_error(path: str, said: str) -> None:
    result = call("read_file", path=path, start_line=1, end_line=3)
    assert result.error and result.text == said


def test_a_secret_in_a_file_is_redacted_as_the_prompt_is() -> None:
    result = call("read_file", path="app/settings.py", start_line=1, end_line=2)
    assert AWS_KEY not in result.text
    assert "«redacted:aws-access-key»" in result.text


def test_search_cannot_find_what_redaction_hides() -> None:
    result = call("search", pattern="AKIA[A-Z0-9]{4}")
    assert result.text == "no match for 'AKIA[A-Z0-9]{4}' in the head tree"


def test_an_answer_over_its_size_cap_keeps_whole_lines_and_records_only_those() -> None:
    budget = ToolBudget(result_chars=400)
    result = call("read_file", budget, path="app/handlers.py", start_line=1, end_line=100)
    assert len(result.text) <= 400 + 80
    assert result.text.endswith("[cut: the answer reached 400 characters; ask for less]")
    (span,) = result.spans
    shown = [line for line in result.text.splitlines() if line.lstrip()[:1].isdigit()]
    assert (span.start_line, span.end_line) == (1, len(shown))


# --------------------------------------------------------------------------- search


def test_search_answers_path_line_text() -> None:
    result = call("search", pattern=r"open_pool\(")
    assert result.text == "app/db.py:5:     return open_pool(url, size=10)"
    assert result.spans == (Span(path="app/db.py", start_line=5, end_line=5),)


def test_search_with_fixed_reads_the_pattern_as_plain_text() -> None:
    assert call("search", pattern="open_pool(url,", fixed=True).text.startswith("app/db.py:5:")
    assert call("search", pattern="size=1.", fixed=True).text.startswith("no match")


def test_search_narrows_to_a_path_glob() -> None:
    result = call("search", pattern="connect", path_glob="tests/**")
    assert [line.split(":")[0] for line in result.text.splitlines()] == ["tests/test_db.py"] * 3


def test_search_refuses_a_backreference_with_what_re2_does_not_have() -> None:
    result = call("search", pattern=r"(\w+) \1")
    assert result.error
    assert result.text == (
        "error: the pattern '(\\\\w+) \\\\1' is no RE2 regular expression (invalid escape "
        "sequence: \\1); RE2 has no backreferences or lookarounds: search for the text itself"
    )


def test_search_runs_a_catastrophic_looking_pattern_in_linear_time() -> None:
    line = "a" * 100_000 + "!"
    snapshot = Snapshot(FakeTrees(head={"data.txt": line + "\n"}), redactor(), PathPolicy())
    result = Lookups(snapshot).call("search", {"pattern": "(a+)+$"})
    assert result.text == "no match for '(a+)+$' in the head tree"


def test_search_stops_at_50_matches_and_says_there_are_more() -> None:
    result = call("search", pattern=r"^def handler_")
    lines = result.text.splitlines()
    assert len(lines) == 51
    assert lines[-1] == "[more than 50 matches: narrow the pattern or path_glob]"
    assert result.spans == tuple(
        Span(path="app/handlers.py", start_line=n, end_line=n) for n in range(1, 100, 2)
    )


# --------------------------------------------------------------------------- list_tests


def test_list_tests_names_the_tests_that_import_the_module() -> None:
    result = call("list_tests", path="app/db.py")
    assert result.text == "tests/test_db.py: imports app.db"


def test_list_tests_finds_a_module_imported_from_its_package() -> None:
    result = call("list_tests", path="app/handlers.py")
    assert result.text == "tests/test_handlers.py: imports app.handlers"


def test_list_tests_says_when_no_test_names_the_module() -> None:
    result = call("list_tests", path="app/settings.py")
    assert result.text == "no test file in the head tree imports or names app/settings.py"


def test_read_file_of_an_empty_file_says_it_is_empty() -> None:
    snapshot = Snapshot(FakeTrees(head={"pkg/__init__.py": ""}), redactor(), PathPolicy())
    result = Lookups(snapshot).call(
        "read_file", {"path": "pkg/__init__.py", "start_line": 1, "end_line": 20}
    )
    assert not result.error and result.text == "pkg/__init__.py (head) is empty"
