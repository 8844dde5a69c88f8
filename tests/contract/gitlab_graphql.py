"""GitLab's GraphQL API, the part of it the GitLab adapter uses (tests/data/gitlab/
note_schema.graphql, a cut of GitLab's published schema whose header names its sources), as
a checker of the documents our adapter sends and of the answers the loopback GitLab gives.

A GraphQL request (`POST /api/graphql`) must be:

- a document GitLab's schema validates: every field and argument exists, variables are
  declared with the argument's type and used as declared;
- sent with variables GitLab would coerce: a `NoteID` is a string `gid://gitlab/<model>/<n>`
  naming `Note` or one of its subclasses (GitLab's `GlobalIDType[::Note]`), never a bare
  number;

and an answer with `data` must be what GitLab's types allow for that document: executing the
document over the answer gives the answer back (no field it did not ask for, none missing, a
non-null field never null, a `Time` as GitLab writes it: ISO 8601 in whole seconds).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    build_schema,
    execute_sync,
    parse,
    validate,
)
from graphql.execution.values import get_variable_values

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "data" / "gitlab" / "note_schema.graphql"
PATH = "/api/graphql"
# Note and its subclasses in GitLab's models (app/models/*note.rb): what a NoteID may name.
NOTE_MODELS = frozenset({"Note", "DiffNote", "DiscussionNote", "LegacyDiffNote"})
_GID = re.compile(r"^gid://gitlab/([A-Za-z:]+)/(\d+)$")
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)$")


def _note_id(value: Any) -> str:
    """GitLab's coercion of a NoteID argument (Types::GlobalIDType[::Note].coerce_input)."""
    match = _GID.match(value) if isinstance(value, str) else None
    if match is None:
        raise GraphQLError(f"{value!r} is not a valid Global ID")
    if match.group(1) not in NOTE_MODELS:
        raise GraphQLError(f"{value!r} does not represent an instance of Note")
    return value


def _time(value: Any) -> str:
    """GitLab's Time as it answers it (`value.iso8601`)."""
    if not isinstance(value, str) or not _TIME.match(value):
        raise GraphQLError(f"{value!r} is not a Time as GitLab writes it (ISO 8601, seconds)")
    return value


@functools.lru_cache(maxsize=1)
def schema() -> GraphQLSchema:
    """The cut of GitLab's schema, with its scalars' rules."""
    built = build_schema(SCHEMA.read_text(encoding="utf-8"))
    note_id, time = built.type_map["NoteID"], built.type_map["Time"]
    assert isinstance(note_id, GraphQLScalarType) and isinstance(time, GraphQLScalarType)
    # graphql-core 3.3 reads `coerce_input_value` / `coerce_output_value`; 3.2 the older names.
    for scalar, rule in ((note_id, _note_id), (time, _time)):
        for name in ("parse_value", "coerce_input_value", "serialize", "coerce_output_value"):
            setattr(scalar, name, rule)
    return built


def request_problems(body: Any) -> list[str]:
    """What GitLab's schema refuses in one request body (document and variables)."""
    query = body.get("query") if isinstance(body, dict) else None
    if not isinstance(query, str):
        return [f"POST {PATH}: no query in the body"]
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [f"POST {PATH}: {exc.message}"]
    problems = [f"POST {PATH}: {error.message}" for error in validate(schema(), document)]
    if problems:
        return problems
    variables = body.get("variables") or {}
    for operation in document.definitions:
        assert isinstance(operation, OperationDefinitionNode)
        coerced = get_variable_values(schema(), operation.variable_definitions or (), variables)
        if isinstance(coerced, list):
            problems += [f"POST {PATH}: {error.message}" for error in coerced]
    return problems


def answer_problems(body: Any, answer: Any) -> list[str]:
    """What GitLab's types refuse in an answer with `data` to a valid request."""
    if request_problems(body) or not isinstance(answer, dict) or "data" not in answer:
        return []
    result = execute_sync(
        schema(),
        parse(body["query"]),
        root_value=answer["data"],
        variable_values=body.get("variables") or {},
    )
    problems = [f"answer to POST {PATH}: {error.message}" for error in result.errors or ()]
    if not problems and result.data != answer["data"]:
        problems.append(
            f"answer to POST {PATH}: {answer['data']!r} is not what GitLab's types give "
            f"for the document ({result.data!r})"
        )
    return problems


def problems_of(requests: Iterable[Any]) -> list[str]:
    """Every problem of the recorded GraphQL requests and their answers
    (consensus_sim.gitlab.state.Request); other requests are gitlab_api's."""
    out: list[str] = []
    for r in requests:
        if r.method == "POST" and r.path.endswith(PATH):
            out += request_problems(r.body)
            if r.status == 200:
                out += answer_problems(r.body, r.answer)
    return sorted(set(out))
