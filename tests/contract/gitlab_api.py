"""GitLab's REST API v4 as python-gitlab defines it, as a checker of the requests our
GitLab adapter sends (recorded by the loopback GitLab, consensus_sim/gitlab).

GitLab publishes an OpenAPI description of part of its API (`doc/api/openapi/
openapi_v2.yaml` in its repository), but no package of the registries CI reaches (PyPI,
npm, Debian) ships it, and CI fetches nothing else: docs/gitlab.md says what was searched.
So the requests are held to the definitions python-gitlab (PyPI, pinned in
constraints.txt) keeps of each endpoint: its managers' paths and mixins (list, get,
create, update, delete), their `_create_attrs` / `_update_attrs` (required and optional
body keys) and `_list_filters`, and the few endpoints python-gitlab reaches with a method
of its own (a file at a ref, the repository tree, a pipeline trigger). A request is then:

- matched to one definition by its method and path template (`{mr_iid}`, `{note_id}`
  and the other ids must be integers; a project may be an id or an encoded path);
- refused if its JSON body lacks a required key or holds a key the definition does not
  name (GitLab ignores unknown keys: a misspelt one would be dropped without a word);
- refused if a query parameter is neither a declared filter nor pagination, where the
  definition declares its filters;
- a discussion's `position` must use the attributes GitLab's documentation names.

A request no definition covers is reported by `uncovered`; the test holds that list to
the one docs/gitlab.md gives.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

PAGINATION = frozenset({"page", "per_page", "pagination", "order_by", "sort"})
# `position` of a diff note, as GitLab's discussions API documents it (text and image notes).
POSITION_KEYS = frozenset(
    {
        "position_type",
        "base_sha",
        "start_sha",
        "head_sha",
        "new_path",
        "old_path",
        "new_line",
        "old_line",
        "line_range",
        "width",
        "height",
        "x",
        "y",
    }
)
LINE_RANGE_END_KEYS = frozenset({"line_code", "type", "old_line", "new_line"})
INTEGER_IDS = frozenset({"mr_iid", "note_id", "user_id", "version_id"})


@dataclass(frozen=True)
class Definition:
    method: str
    template: str
    pattern: re.Pattern[str]
    required: frozenset[str] = frozenset()
    allowed: frozenset[str] | None = None  # body keys; None: no JSON body
    query: frozenset[str] | None = None  # declared filters; None: not declared
    required_query: frozenset[str] = frozenset()
    source: str = ""


def _pattern(template: str) -> re.Pattern[str]:
    out, last = [], 0
    for match in re.finditer(r"\{([^}]+)\}", template):
        out.append(re.escape(template[last : match.start()]))
        out.append(f"(?P<{match.group(1)}>[^/]+)")
        last = match.end()
    out.append(re.escape(template[last:]))
    return re.compile("".join(out))


def _definition(method: str, template: str, source: str, **fields: Any) -> Definition:
    return Definition(method, template, _pattern(template), source=source, **fields)


def _attrs(manager: type, name: str) -> tuple[frozenset[str], frozenset[str]]:
    attrs = getattr(manager, name, None)
    if attrs is None:
        return frozenset(), frozenset()
    required = frozenset(attrs.required)
    return required, required | frozenset(attrs.optional) | frozenset(attrs.exclusive)


@functools.lru_cache(maxsize=1)
def definitions() -> tuple[Definition, ...]:
    """Every endpoint python-gitlab's v4 managers define, and its own custom methods'."""
    from gitlab import mixins
    from gitlab.base import RESTManager
    from gitlab.v4 import objects

    found: list[Definition] = []
    for name, manager in inspect.getmembers(objects, inspect.isclass):
        path = getattr(manager, "_path", None)
        if not (issubclass(manager, RESTManager) and path):
            continue
        filters = getattr(manager, "_list_filters", None)
        listed = frozenset(filters) | PAGINATION if filters else None
        item = f"{path}/{{id_}}"
        create_required, create_allowed = _attrs(manager, "_create_attrs")
        update_required, update_allowed = _attrs(manager, "_update_attrs")
        table = [
            (mixins.ListMixin, "GET", path, {"query": listed}),
            (mixins.GetMixin, "GET", item, {}),
            (mixins.GetWithoutIdMixin, "GET", path, {}),
            (
                mixins.CreateMixin,
                "POST",
                path,
                {"required": create_required, "allowed": create_allowed},
            ),
            (
                mixins.UpdateMixin,
                "PUT",
                item,
                {"required": update_required, "allowed": update_allowed},
            ),
            (mixins.DeleteMixin, "DELETE", item, {}),
        ]
        for mixin, method, template, fields in table:
            if issubclass(manager, mixin):
                found.append(_definition(method, template, name, **fields))
    return (*found, *_custom())


def _custom() -> tuple[Definition, ...]:
    """Endpoints python-gitlab reaches with a method of its own, not a manager's mixin."""
    return (
        _definition(
            "GET",
            "/projects/{project_id}/repository/files/{file_path}",
            "ProjectFileManager.get(file_path, ref)",
            required_query=frozenset({"ref"}),
            query=frozenset({"ref"}),
        ),
        _definition(
            "GET",
            "/projects/{project_id}/repository/tree",
            "Project.repository_tree(path, ref, recursive)",
            query=frozenset({"path", "ref", "recursive"}) | PAGINATION,
        ),
        _definition(
            "GET",
            "/projects/{project_id}/repository/archive.tar.gz",
            "Project.repository_archive(sha, format='tar.gz')",
            query=frozenset({"sha", "path"}),
        ),
        _definition(
            "POST",
            "/projects/{project_id}/trigger/pipeline",
            "Project.trigger_pipeline(ref, token, variables)",
            required=frozenset({"ref", "token"}),
            allowed=frozenset({"ref", "token", "variables", "inputs"}),
        ),
    )


def definition(method: str, path: str) -> Definition | None:
    """The most specific definition of a request (the most literal characters)."""
    matching = [d for d in definitions() if d.method == method and d.pattern.fullmatch(path)]
    return max(matching, key=lambda d: len(re.sub(r"\{[^}]+\}", "", d.template)), default=None)


def request_problems(method: str, path: str, query: Mapping[str, str], body: Any) -> list[str]:
    """What GitLab, as python-gitlab defines it, would refuse or silently drop."""
    found = definition(method, path)
    if found is None:
        return []  # reported by `uncovered`
    where = f"{method} {found.template} ({found.source})"
    problems: list[str] = []
    match = found.pattern.fullmatch(path)
    assert match is not None
    for name, value in match.groupdict().items():
        if name in INTEGER_IDS and not unquote(value).isdigit():
            problems.append(f"{where}: {name} {value!r} is not an integer")
    if found.query is not None:
        problems += [
            f"{where}: query {k!r} is not a declared filter" for k in query if k not in found.query
        ]
    problems += [
        f"{where}: query {k!r} is required" for k in found.required_query if k not in query
    ]
    if body is None:
        return problems
    if found.allowed is None or not isinstance(body, dict):
        return [*problems, f"{where}: takes no JSON body"]
    problems += [f"{where}: body key {k!r} is required" for k in sorted(found.required - set(body))]
    problems += [
        f"{where}: body key {k!r} is not one GitLab takes" for k in body if k not in found.allowed
    ]
    if isinstance(body.get("position"), dict):
        problems += [f"{where}: position: {p}" for p in _position_problems(body["position"])]
    return problems


def _position_problems(position: Mapping[str, Any]) -> list[str]:
    problems = [f"{k!r} is not a position attribute" for k in position if k not in POSITION_KEYS]
    ranged = position.get("line_range")
    if isinstance(ranged, dict):
        for end in ("start", "end"):
            part = ranged.get(end) or {}
            problems += [
                f"line_range.{end}: {k!r} is not a line attribute"
                for k in part
                if k not in LINE_RANGE_END_KEYS
            ]
            if "line_code" not in part:
                problems.append(f"line_range.{end}: line_code is required")
    return problems


def uncovered(requests: Iterable[Any]) -> set[str]:
    """`METHOD /template` of each request no definition covers (ids shown as `:id`)."""
    out = set()
    for r in requests:
        if definition(r.method, r.path) is None:
            shown = re.sub(r"/(\d+|[0-9a-f]{40})(?=/|$)", "/:id", r.path)
            out.add(f"{r.method} {shown}")
    return out


def problems_of(requests: Iterable[Any]) -> list[str]:
    """Every problem of the recorded requests (consensus_sim.gitlab.state.Request)."""
    out: list[str] = []
    for r in requests:
        out += request_problems(r.method, r.path, r.query, r.body)
    return sorted(set(out))
