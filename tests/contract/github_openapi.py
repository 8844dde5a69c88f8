"""GitHub's published REST description (`@octokit/openapi`, api.github.com, dereferenced)
and GraphQL schema (`@octokit/graphql-schema`), as a checker of the requests our GitHub
adapter sends and of the answers our loopback fake GitHub gives.

`.ci/run` installs the npm packages (pinned in .ci/github-api/package-lock.json) with
`npm ci`; where npm or the packages are missing, `description()` is None and the checks
skip with that reason. Each request is matched to one operation (method and path
template), then:

- its path parameters must fit their schema (`pull_number` an integer);
- every query parameter must be one the operation declares, with a value its schema allows;
- its JSON body must be valid against the request body schema, and every key in it must be
  a property the schema names (GitHub ignores unknown keys, so a misspelt one would be
  dropped without a word: `team_reviewer` for `team_reviewers`);
- an answer of the fake with a 2xx status must be a status the operation documents, and its
  body valid against that response's schema.

A GraphQL request (`POST /graphql`, GHES `/api/graphql`) must be a document that GitHub's
schema validates: every field, argument and input type exists, and the variables are used
as declared.

OpenAPI 3.0's `nullable: true` becomes `anyOf [..., null]` for jsonschema; formats are not
checked (GitHub's own examples would fail `uri` on relative links).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
from graphql import GraphQLError, GraphQLSchema, build_schema, parse, validate

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / ".ci" / "github-api" / "node_modules" / "@octokit"
DESCRIPTION = PACKAGES / "openapi" / "generated" / "api.github.com.deref.json"
GRAPHQL_SCHEMA = PACKAGES / "graphql-schema" / "schema.graphql"
EXAMPLES = PACKAGES / "webhooks-examples"
NOT_INSTALLED = (
    "GitHub's OpenAPI description (npm @octokit/openapi) is not installed: "
    "`.ci/run` installs it with `cd .ci/github-api && npm ci`"
)
# Requests that are not REST operations of the description.
NOT_REST = frozenset({("POST", "/graphql"), ("POST", "/api/graphql")})
# The operations the description is cut down to once loaded (it is 70 MB of JSON).
KEPT_PREFIXES = ("/repos/{owner}/{repo}", "/user", "/rate_limit")
JSON = "application/json"


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    literals: int  # literal characters in the template: the most specific match wins
    spec: Mapping[str, Any]

    def parameters(self, where: str) -> dict[str, Mapping[str, Any]]:
        return {p["name"]: p for p in self.spec.get("parameters", ()) if p["in"] == where}


class GitHubDescription:
    def __init__(self, paths: Mapping[str, Mapping[str, Any]]) -> None:
        self.operations: list[Operation] = []
        self._validators: dict[int, jsonschema.Draft4Validator | None] = {}
        for template, item in paths.items():
            for method, spec in item.items():
                if method in ("parameters", "summary", "description", "servers"):
                    continue
                self.operations.append(
                    Operation(
                        method=method.upper(),
                        template=template,
                        pattern=_template_regex(template),
                        literals=len(re.sub(r"\{[^}]+\}", "", template)),
                        spec=spec,
                    )
                )

    @classmethod
    def load(cls, path: Path = DESCRIPTION) -> GitHubDescription:
        with path.open(encoding="utf-8") as handle:
            paths = json.load(handle)["paths"]
        return cls({t: item for t, item in paths.items() if t.startswith(KEPT_PREFIXES)})

    def operation(self, method: str, path: str) -> Operation | None:
        found = [op for op in self.operations if op.method == method and op.pattern.fullmatch(path)]
        return max(found, key=lambda op: op.literals, default=None)

    def request_problems(
        self, method: str, path: str, query: Mapping[str, str], body: Any
    ) -> list[str]:
        """What GitHub would not accept in this request, or would silently ignore."""
        path = path.removeprefix("/api/v3")  # GitHub Enterprise Server's REST prefix
        if (method, path) in NOT_REST:
            return []
        op = self.operation(method, path)
        if op is None:
            return [f"{method} {path}: no such operation in GitHub's REST API"]
        where = f"{method} {op.template}"
        problems: list[str] = []
        match = op.pattern.fullmatch(path)
        assert match is not None
        for name, value in match.groupdict().items():
            schema = op.parameters("path").get(name, {}).get("schema", {})
            problems += [f"{where}: path parameter {name}: {p}" for p in _scalar(value, schema)]
        declared = op.parameters("query")
        for name, value in query.items():
            if name not in declared:
                problems.append(f"{where}: query parameter {name!r} is not one GitHub knows")
                continue
            schema = declared[name].get("schema", {})
            problems += [f"{where}: query parameter {name}: {p}" for p in _scalar(value, schema)]
        holder = op.spec.get("requestBody")
        validator = self._validator(holder)
        if body is not None and validator is None:
            problems.append(f"{where}: GitHub takes no JSON body here")
        elif validator is not None:
            problems += [f"{where}: body: {p}" for p in _invalid(body, validator)]
            schema = validator.schema
            problems += [f"{where}: body: {p}" for p in _unknown_keys(body, schema, "")]
        return problems

    def response_problems(self, method: str, path: str, status: int, answer: Any) -> list[str]:
        """What in the fake's answer GitHub would not send (2xx answers only)."""
        path = path.removeprefix("/api/v3")
        if (method, path) in NOT_REST or not 200 <= status < 300:
            return []
        op = self.operation(method, path)
        if op is None:
            return []  # reported by request_problems
        where = f"{method} {op.template}"
        responses = op.spec.get("responses", {})
        if str(status) not in responses:
            return [f"{where}: GitHub answers {sorted(responses)}, the fake {status}"]
        validator = self._validator(responses[str(status)])
        if validator is None:
            return [] if answer is None else [f"{where}: GitHub answers {status} without a body"]
        return [f"{where} → {status}: {p}" for p in _invalid(answer, validator)]

    def _validator(self, holder: Mapping[str, Any] | None) -> jsonschema.Draft4Validator | None:
        """The JSON body's validator of a request body or a response (cached: the schemas
        of the description live as long as it does)."""
        key = id(holder)
        if key not in self._validators:
            schema = _json_schema(holder)
            self._validators[key] = None if schema is None else jsonschema.Draft4Validator(schema)
        return self._validators[key]


@functools.lru_cache(maxsize=1)
def description() -> GitHubDescription | None:
    """The description, loaded once per test session; None when it is not installed."""
    if not DESCRIPTION.is_file():
        return None
    return GitHubDescription.load()


@functools.lru_cache(maxsize=1)
def graphql_schema() -> GraphQLSchema | None:
    """GitHub's GraphQL schema; None when it is not installed. (Its SDL repeats a few fields
    and deprecates some interface fields unevenly: built as given, not re-validated.)"""
    if not GRAPHQL_SCHEMA.is_file():
        return None
    text = GRAPHQL_SCHEMA.read_text(encoding="utf-8")
    return build_schema(text, assume_valid_sdl=True, assume_valid=True)


def graphql_problems(body: Any, schema: GraphQLSchema) -> list[str]:
    """What GitHub's GraphQL schema rejects in one request body."""
    query = (body or {}).get("query") if isinstance(body, dict) else None
    if not isinstance(query, str):
        return ["POST /graphql: no query in the body"]
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [f"POST /graphql: {exc.message}"]
    return [f"POST /graphql: {error.message}" for error in validate(schema, document)]


def webhook_examples(event: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, payload) of every example of `event`, api.github.com and each GHES flavour."""
    found: list[tuple[str, dict[str, Any]]] = []
    for index in sorted(EXAMPLES.glob("*/index.json")):
        for entry in json.loads(index.read_text(encoding="utf-8")):
            if entry["name"] == event:
                for n, example in enumerate(entry["examples"]):
                    action = example.get("action") or "-"
                    found.append((f"{index.parent.name}:{event}:{action}:{n}", example))
    return found


def _template_regex(template: str) -> re.Pattern[str]:
    """`/repos/{owner}/{repo}/contents/{path}` → a regex with a group per parameter; only a
    parameter named `path` spans slashes (a file's path)."""
    out, last = [], 0
    for match in re.finditer(r"\{([^}]+)\}", template):
        out.append(re.escape(template[last : match.start()]))
        name = match.group(1)
        span = ".+" if name == "path" else "[^/]+"
        out.append(f"(?P<{name}>{span})")
        last = match.end()
    out.append(re.escape(template[last:]))
    return re.compile("".join(out))


def _json_schema(holder: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not holder:
        return None
    content = holder.get("content") or {}
    media = content.get(JSON) or next((v for k, v in content.items() if "json" in k), None)
    if media is None or "schema" not in media:
        return None
    converted: dict[str, Any] = _nullable(media["schema"])
    return converted


def _nullable(schema: Any) -> Any:
    """OpenAPI 3.0 → JSON Schema: `nullable: true` admits null."""
    if isinstance(schema, list):
        return [_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _nullable(v) for k, v in schema.items() if k not in ("nullable", "example")}
    for key in ("properties", "patternProperties", "definitions"):
        if isinstance(schema.get(key), dict):
            out[key] = {name: _nullable(s) for name, s in schema[key].items()}
    if schema.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _invalid(instance: Any, validator: jsonschema.Draft4Validator) -> list[str]:
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in errors[:5]
    ]


def _unknown_keys(instance: Any, schema: Mapping[str, Any], where: str) -> list[str]:
    """Keys the schema does not name (GitHub would ignore them without a word)."""
    if isinstance(instance, list) and isinstance(schema.get("items"), dict):
        return [p for item in instance for p in _unknown_keys(item, schema["items"], where + "[]")]
    if not isinstance(instance, dict) or "properties" not in schema:
        return []
    problems = []
    for key, value in instance.items():
        inner = f"{where}.{key}" if where else key
        if key not in schema["properties"]:
            problems.append(f"{inner}: not a property GitHub knows (it would be ignored)")
        else:
            problems += _unknown_keys(value, schema["properties"][key], inner)
    return problems


def _scalar(value: str, schema: Mapping[str, Any]) -> list[str]:
    if schema.get("type") == "integer" and not re.fullmatch(r"-?\d+", value):
        return [f"{value!r} is not an integer"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{value!r} is not one of {schema['enum']}"]
    return []


def problems_of(requests: Iterable[Any], github: GitHubDescription) -> list[str]:
    """Every problem of the recorded requests (consensus_sim.github_server.Request) and answers."""
    out: list[str] = []
    for r in requests:
        schema = graphql_schema() if (r.method, r.path) in NOT_REST else None
        if schema is not None:
            out += graphql_problems(r.body, schema)
        out += github.request_problems(r.method, r.path, r.query, r.body)
        out += github.response_problems(r.method, r.path, r.status, r.answer)
    return sorted(set(out))
