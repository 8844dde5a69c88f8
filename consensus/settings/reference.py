"""The configuration reference, generated from the settings models themselves: every key of
`.consensus.yml` with its type, its default and its description (the docstring under the
field), so the reference cannot drift from what the loader accepts. The documentation
site's build writes it into docs/configuration.md (docs/_hooks/reference.py);
tests/unit/test_reference.py holds every field to a description."""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from consensus.settings.config import Settings

MARKER = "<!-- settings-reference -->"
OPAQUE = {"calibration"}  # a format of its own, described on its page


def sections(model: type[BaseModel] = Settings) -> Iterator[tuple[str, type[BaseModel]]]:
    """(dotted prefix, model) for the top level and each nested section, in order."""
    yield "", model
    for name, field in model.model_fields.items():
        inner = _section(field)
        if inner is not None and name not in OPAQUE:
            for prefix, nested in sections(inner):
                yield f"{name}.{prefix}" if prefix else name, nested


def keys(model: type[BaseModel] = Settings) -> list[tuple[str, FieldInfo]]:
    """Every documented key, dotted (`inspector.rule`), with its field."""
    found = []
    for prefix, section in sections(model):
        for name, field in section.model_fields.items():
            found.append((f"{prefix}.{name}" if prefix else name, field))
    return found


def settings_reference() -> str:
    """The reference as Markdown: one table per section, a row per key."""
    out: list[str] = []
    for prefix, section in sections():
        heading = f"`{prefix}`" if prefix else "Top level"
        out += [f"### {heading}", ""]
        if prefix:
            out += [_first_paragraph(section), ""]
        out += ["| key | type | default | what it does |", "|---|---|---|---|"]
        for name, field in section.model_fields.items():
            key = f"{prefix}.{name}" if prefix else name
            out.append(
                f"| `{key}` | {_type(field.annotation)}{_bounds(field)} | {_default(field)} | "
                f"{_cell(' '.join((field.description or '').split()))} |"
            )
        out.append("")
    return "\n".join(out)


def _bounds(field: FieldInfo) -> str:
    """The field's own bounds, as the type column shows them: "(1 to 25)", "(at most 16)"."""
    found = {type(m).__name__: m for m in field.metadata}
    low = next((getattr(found[k], k.lower()) for k in ("Ge", "Gt") if k in found), None)
    high = next((getattr(found[k], k.lower()) for k in ("Le", "Lt") if k in found), None)
    if high is not None:
        return f" ({low} to {high})" if low is not None else f" (at most {high})"
    longest = found.get("MaxLen")
    if longest is not None and _members(field.annotation) and _type(field.annotation) != "text":
        return f" (at most {longest.max_length})"
    return ""


def _section(field: FieldInfo) -> type[BaseModel] | None:
    for candidate in _members(field.annotation):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _members(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in args for m in _members(arg)]
    if typing.get_origin(annotation) is tuple:
        return [args[0]] if args else []
    return [annotation]


def _type(annotation: Any) -> str:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type(args[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type(arg) for arg in args)
    if origin is typing.Literal:
        return " \\| ".join(f"`{value}`" for value in args)
    if origin is tuple:
        return f"list of {_type(args[0])}" if args else "list"
    if origin is dict:
        return f"mapping of {_type(args[0])} to {_type(args[1])}"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " \\| ".join(f"`{member.value}`" for member in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    names = {str: "text", int: "whole number", float: "number", bool: "true or false"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: Any = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple):
        value = list(value)
    return f"`{json.dumps(value)}`"


def _first_paragraph(model: type[BaseModel]) -> str:
    doc = (model.__doc__ or "").strip().split("\n\n")[0]
    return _cell(" ".join(doc.split()))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
