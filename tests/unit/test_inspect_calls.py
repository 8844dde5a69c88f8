"""A model's tool calls: the schemas it is offered, its arguments read as untrusted input,
and the budget of calls one judge has for one claim."""

from __future__ import annotations

import pytest

from consensus.inspect.lookups import Lookups, ToolBudget
from consensus.inspect.schema import ARGUMENTS, ReadFileArgs, parse_call, tool_schemas
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.settings.config import InspectorSettings
from consensus.testing.trees import FakeTrees

HEAD = {"app/db.py": "def connect(url):\n    return open_pool(url)\n"}


def lookups(calls: int = 6) -> Lookups:
    snapshot = Snapshot(FakeTrees(head=HEAD), redactor(), PathPolicy())
    return Lookups(snapshot, ToolBudget(calls=calls))


def test_every_tool_is_offered_as_a_function_that_refuses_unknown_arguments() -> None:
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == list(ARGUMENTS)
    for schema in schemas:
        assert schema["type"] == "function"
        assert schema["function"]["parameters"]["additionalProperties"] is False
        assert schema["function"]["description"]
    read = schemas[0]["function"]["parameters"]
    assert read["required"] == ["path", "start_line", "end_line"]
    assert read["properties"]["side"]["enum"] == ["head", "base"]


NOT_AN_INT = "start_line: Input should be a valid integer"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ('{"path": 3, "start_line": 1, "end_line": 2}', "path: Input should be a valid string"),
        ('{"path": "a.py", "start_line": "1", "end_line": 2}', NOT_AN_INT),
        ('{"path": "a.py", "start_line": true, "end_line": 2}', NOT_AN_INT),
        ('{"path": "a.py", "start_line": 1e400, "end_line": 2}', NOT_AN_INT),
        (
            '{"path": "a.py", "start_line": 99999999999999999999999, "end_line": 2}',
            "start_line: Input should be less than or equal to 10000000",
        ),
        ('{"path": "a.py", "start_line": NaN, "end_line": 2}', "NaN is not a number"),
        (
            '{"path": "a.py", "start_line": -4, "end_line": 2}',
            "start_line: Input should be greater than or equal to 1",
        ),
        ("{}", "path is missing; start_line is missing; end_line is missing"),
        (
            '{"path": "a.py", "start_line": 1, "end_line": 2, "mode": "w"}',
            "mode is not an argument of this tool",
        ),
        ('{"path": "a.py"', "the arguments are not a JSON object"),
        ("[1, 2]", "the arguments must be a JSON object of named arguments"),
        ('{"path": "' + "a" * 5_000 + '"}', "the arguments are over 4000 characters"),
        ("[" * 100_000, "the arguments are over 4000 characters"),
    ],
)
def test_a_hostile_call_is_a_message_for_the_model_never_an_exception(
    arguments: str, said: str
) -> None:
    result = lookups().call("read_file", arguments)
    assert result.error and said in result.text


def test_a_call_to_no_tool_names_the_tools_there_are() -> None:
    result = lookups().call("write_file", "{}")
    assert result.error
    assert result.text == (
        "error: there is no tool 'write_file'; the tools are read_file, search, "
        "find_definition, find_references, list_tests"
    )


def test_arguments_may_come_as_a_mapping() -> None:
    parsed = parse_call("read_file", {"path": "app/db.py", "start_line": 1, "end_line": 2})
    assert parsed == ReadFileArgs(path="app/db.py", start_line=1, end_line=2)


def test_the_budget_counts_every_call_and_then_tells_the_judge_to_answer() -> None:
    spent = lookups(calls=2)
    first = spent.call("read_file", {"path": "app/db.py", "start_line": 1, "end_line": 1})
    second = spent.call("read_file", "not json")  # a refused call counts too
    third = spent.call("read_file", {"path": "app/db.py", "start_line": 2, "end_line": 2})
    assert not first.error and second.error
    assert spent.exhausted and spent.spent == 2
    assert third.text == (
        "error: the budget of 2 tool calls for this claim is spent: answer now with what you "
        "have, citing what you were shown"
    )
    assert [s.start_line for s in spent.seen()] == [1]


def test_the_budget_defaults_to_six_calls_and_the_setting_is_bounded() -> None:
    assert ToolBudget().calls == InspectorSettings().tool_budget == 6
    assert InspectorSettings(tool_budget=12).tool_budget == 12
    with pytest.raises(ValueError, match="less than or equal to 30"):
        InspectorSettings(tool_budget=500)
