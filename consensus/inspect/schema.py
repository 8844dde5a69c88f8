"""The tools as a model is offered them, and a model's call parsed as untrusted input.

`TOOLS` is the OpenAI-style `tools` list (litellm maps it for Anthropic, Gemini and Ollama),
generated from the argument models below: every argument typed and bounded, unknown ones
refused (`additionalProperties: false`). `parse_call` reads a call's name and arguments
(a JSON string, as OpenAI sends them, or a mapping) and never raises: a wrong type, a
missing or unknown argument, a huge number or broken JSON is a `CallProblem` whose
message the model reads as the tool's answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_ARGUMENT_CHARS = 4_000  # a call's arguments, as JSON
MAX_LINE = 10_000_000
READ_LINES = 200  # read_file shows at most this many lines a call
SEARCH_MATCHES = 50


class _Arguments(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class ReadFileArgs(_Arguments):
    """Numbered lines of one file of the pull request's head (or base) tree, at most 200 a
    call."""

    path: str = Field(min_length=1, max_length=1_000, description="relative to the repository")
    start_line: int = Field(ge=1, le=MAX_LINE, description="the first line, from 1")
    end_line: int = Field(ge=1, le=MAX_LINE, description="the last line (inclusive)")
    side: Literal["head", "base"] = Field(
        default="head", description="head: the change's version; base: before it"
    )


class SearchArgs(_Arguments):
    """Lines of the head tree matching a pattern, as `path:line: text`, at most 50."""

    pattern: str = Field(
        min_length=1, max_length=500, description="an RE2 regular expression (no backreferences)"
    )
    path_glob: str | None = Field(
        default=None, max_length=300, description=".gitignore-style glob, e.g. src/**/*.py"
    )
    fixed: bool = Field(default=False, description="true: the pattern is plain text")


class SymbolArgs(_Arguments):
    """Where a name is defined, or used, in the head tree, from a parser."""

    symbol: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?$",
        description="a name, or Class.member",
    )


class ListTestsArgs(_Arguments):
    """The test files of the head tree that import or name a module."""

    path: str = Field(min_length=1, max_length=1_000, description="the module's file")


ARGUMENTS: dict[str, type[_Arguments]] = {
    "read_file": ReadFileArgs,
    "search": SearchArgs,
    "find_definition": SymbolArgs,
    "find_references": SymbolArgs,
    "list_tests": ListTestsArgs,
}
DESCRIPTIONS = {
    "read_file": ReadFileArgs.__doc__ or "",
    "search": SearchArgs.__doc__ or "",
    "find_definition": "Where a name (function, class, method, type) is defined in the head "
    "tree, from a parser.",
    "find_references": "Where a name is used in the head tree, from a parser (strings and "
    "comments are not uses).",
    "list_tests": ListTestsArgs.__doc__ or "",
}


class CallProblem(BaseModel):
    """A call that cannot run, in words for the model."""

    model_config = ConfigDict(frozen=True)

    message: str


def tool_schemas() -> list[dict[str, Any]]:
    """The OpenAI-style `tools` list: one function per tool, its parameters strict."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": " ".join(DESCRIPTIONS[name].split()),
                "parameters": _parameters(model),
            },
        }
        for name, model in ARGUMENTS.items()
    ]


def parse_call(name: object, arguments: object) -> _Arguments | CallProblem:
    """A model's tool call, validated; never raises."""
    if not isinstance(name, str) or name not in ARGUMENTS:
        known = ", ".join(ARGUMENTS)
        return CallProblem(message=f"there is no tool {str(name)[:80]!r}; the tools are {known}")
    parsed = _decoded(arguments)
    if isinstance(parsed, CallProblem):
        return parsed
    try:
        return ARGUMENTS[name].model_validate(parsed)
    except ValidationError as exc:
        return CallProblem(message=f"{name}: {_problems(exc)}")


def _decoded(arguments: object) -> Mapping[str, object] | CallProblem:
    if arguments is None or arguments == "":
        arguments = {}
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_CHARS:
            return CallProblem(message=f"the arguments are over {MAX_ARGUMENT_CHARS} characters")
        try:
            arguments = json.loads(arguments, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            return CallProblem(message=f"the arguments are not a JSON object ({exc})")
    if not isinstance(arguments, Mapping):
        return CallProblem(message="the arguments must be a JSON object of named arguments")
    if len(json.dumps(arguments, default=str)) > MAX_ARGUMENT_CHARS:
        return CallProblem(message=f"the arguments are over {MAX_ARGUMENT_CHARS} characters")
    return arguments


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number")


def _problems(exc: ValidationError) -> str:
    said = []
    for error in exc.errors(include_url=False)[:5]:
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "is not an argument of this tool"
        elif error["type"] == "missing":
            message = "is missing"
        said.append(f"{where} {message}" if message.startswith("is ") else f"{where}: {message}")
    return "; ".join(said)


def _parameters(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        if "anyOf" in prop:  # `str | None`: a string that may be left out
            prop.update(next(p for p in prop.pop("anyOf") if p.get("type") != "null"))
            prop.pop("default", None)
    schema["additionalProperties"] = False
    return schema
