"""What is wrong with a value in a file a person wrote (`.consensus.yml`, a persona, a
saved workflow), in their words rather than pydantic's: "should be a list (got
'correctness')", not "Input should be a valid tuple". The fix that goes with it is the
caller's: it knows the key."""

from __future__ import annotations

from typing import Any

# pydantic's error types, in the words a user of a YAML file reads
EXPECTED = {
    "tuple_type": "should be a list",
    "list_type": "should be a list",
    "set_type": "should be a list",
    "dict_type": "should be a mapping of keys to values",
    "model_type": "should be a mapping of keys to values",
    "model_attributes_type": "should be a mapping of keys to values",
    "string_type": "should be text",
    "int_type": "should be a whole number",
    "int_parsing": "should be a whole number",
    "int_from_float": "should be a whole number",
    "float_type": "should be a number",
    "float_parsing": "should be a number",
    "bool_type": "should be true or false",
    "bool_parsing": "should be true or false",
    "missing": "is missing",
    "string_pattern_mismatch": "is not written the way it should be",
}
BOUNDS = {
    "greater_than": "should be more than {gt}",
    "greater_than_equal": "should be at least {ge}",
    "less_than": "should be less than {lt}",
    "less_than_equal": "should be at most {le}",
    "too_short": "should have at least {min_length} item(s)",
    "string_too_short": "should have at least {min_length} character(s)",
    "string_too_long": "should have at most {max_length} characters",
    "literal_error": "should be one of {expected}",
    "enum": "should be one of {expected}",
}


def problem_in_words(error: Any) -> str:
    """What is wrong with the value of one of pydantic's `errors()`, in plain words, and
    the value given (but for a missing one)."""
    kind, context = error["type"], error.get("ctx") or {}
    if kind in EXPECTED:
        problem = EXPECTED[kind]
    elif kind in BOUNDS:
        problem = BOUNDS[kind].format(**{k: str(v) for k, v in context.items()})
    elif kind == "value_error":  # our own validators' words
        problem = str(context.get("error") or error["msg"]).removeprefix("Value error, ")
    else:
        problem = error["msg"]
    value = error.get("input")
    if kind != "missing" and not isinstance(value, (dict, list)):
        problem = f"{problem} (got {value!r})"
    return problem
