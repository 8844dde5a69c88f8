"""Every list, mapping, number and text a repository's own files set has a bound, and a
value past it is refused with the file, the key and the bound: a pull request that edits
`.consensus.yml` on the target branch cannot make a run ask hundreds of judges."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from enum import Enum

import annotated_types
import pytest
from pydantic import BaseModel

from consensus.errors import ConfigError
from consensus.model.calibration import Calibration
from consensus.settings.config import Settings, parse_settings
from consensus.settings.learned import Learned, parse_learned
from consensus.settings.personas import _FrontMatter as PersonaHeader
from consensus.settings.workflows import _FrontMatter as WorkflowHeader

# What a repository's files are read into: .consensus.yml, a saved workflow's and a
# persona's front matter, .consensus/learned.yml, a calibration file.
ROOTS: tuple[type[BaseModel], ...] = (Settings, WorkflowHeader, PersonaHeader, Learned, Calibration)
UPPER = (annotated_types.Le, annotated_types.Lt)
LOWER = (annotated_types.Ge, annotated_types.Gt)


def constraints(metadata: list[object]) -> list[object]:
    """The annotated-types constraints among a field's metadata (pydantic's own ones too)."""
    out: list[object] = []
    for item in metadata:
        out.append(item)
        out.extend(getattr(item, "metadata", ()))  # a FieldInfo inside an Annotated
        if type(item).__name__ == "StringConstraints" and getattr(item, "max_length", None):
            out.append(annotated_types.MaxLen(item.max_length))  # type: ignore[attr-defined]
    return out


def unbounded(where: str, tp: object, metadata: list[object]) -> Iterator[str]:
    """Where a type leaves something without a bound: a list or mapping without max_length,
    a number without an upper and a lower bound, a text without max_length."""
    found = constraints(metadata)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        inner, *more = typing.get_args(tp)
        yield from unbounded(where, inner, [*metadata, *more])
    elif origin in (typing.Union, types.UnionType):
        for member in typing.get_args(tp):
            yield from unbounded(where, member, metadata)
    elif origin in (tuple, list, dict, set, frozenset):
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        fixed = (
            origin is tuple and len(typing.get_args(tp)) > 1 and Ellipsis not in typing.get_args(tp)
        )
        if not fixed and not any(isinstance(c, annotated_types.MaxLen) for c in found):
            yield f"{where}: a {origin.__name__} without max_length"
        for n, arg in enumerate(args):
            yield from unbounded(
                f"{where}[{'key' if origin is dict and n == 0 else 'item'}]", arg, []
            )
    elif isinstance(tp, type) and issubclass(tp, BaseModel):
        for name, field in tp.model_fields.items():
            yield from unbounded(f"{where}.{name}", field.annotation, list(field.metadata))
    elif tp in (int, float):
        if not any(isinstance(c, UPPER) for c in found) or not any(
            isinstance(c, LOWER) for c in found
        ):
            yield f"{where}: a number without both bounds"
    elif tp is str:
        if not any(isinstance(c, annotated_types.MaxLen) for c in found):
            yield f"{where}: a text without max_length"
    elif (
        tp in (bool, type(None))
        or typing.get_origin(tp) is typing.Literal
        or (isinstance(tp, type) and issubclass(tp, Enum))
    ):
        return
    else:
        yield f"{where}: {tp!r} is a type this check does not know"


@pytest.mark.parametrize("root", ROOTS, ids=lambda root: root.__name__)
def test_every_value_a_repository_sets_has_a_bound(root: type[BaseModel]) -> None:
    assert list(unbounded(root.__name__, root, [])) == []


def test_the_check_finds_an_unbounded_list_a_number_and_a_text() -> None:
    class Loose(BaseModel):
        voters: tuple[str, ...] = ()
        votes: int = 3
        name: str = ""

    assert list(unbounded("Loose", Loose, [])) == [
        "Loose.voters: a tuple without max_length",
        "Loose.voters[item]: a text without max_length",
        "Loose.votes: a number without both bounds",
        "Loose.name: a text without max_length",
    ]


def many(n: int, template: str) -> str:
    return "[" + ", ".join(template.format(i) for i in range(n)) + "]"


@pytest.mark.parametrize(
    ("yaml", "key", "bound"),
    [
        (
            "inspector: {voters: " + many(500, "openai/gpt-{}") + "}",
            "inspector.voters",
            "at most 16 item(s)",
        ),
        ("providers: " + many(17, "{{model: openai/gpt-{}}}"), "providers", "at most 16 item(s)"),
        ("personas: " + many(33, "p{}"), "personas", "at most 32 item(s)"),
        ("paths: " + many(257, "'src/{}/**'"), "paths", "at most 256 item(s)"),
        ("redact: " + many(65, "'token-{}'"), "redact", "at most 64 item(s)"),
        ("redact: ['" + "a" * 501 + "']", "redact.0", "at most 500 characters"),
        ("queue: {agents: " + many(65, "'bot{}[bot]'") + "}", "queue.agents", "at most 64 item(s)"),
        ("publish: {max_inline_comments: 5000}", "publish.max_inline_comments", "at most 100"),
        ("min_providers: 100", "min_providers", "at most 16"),
        ("inspector: {max_votes: 500}", "inspector.max_votes", "at most 25"),
        ("budget: {max_tokens: 99999999999}", "budget.max_tokens", "at most 1000000000"),
        (
            "path_instructions: {'src/**': '" + "x" * 20_001 + "'}",
            "path_instructions.src/**",
            "at most 20000 characters",
        ),
    ],
    ids=lambda value: value if len(value) < 30 else value[:30],
)
def test_a_value_past_its_bound_names_the_file_the_key_and_the_bound(
    yaml: str, key: str, bound: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_settings(yaml, source=".consensus.yml (base branch)")

    said = str(refused.value)
    assert ".consensus.yml (base branch)" in said and key in said and bound in said, said


def test_a_learned_file_with_hundreds_of_families_is_refused() -> None:
    families = "\n".join(f"  f{n}: {{}}" for n in range(65))
    with pytest.raises(ConfigError) as refused:
        parse_learned(f"version: 1\nfamilies:\n{families}\n")

    assert "families" in str(refused.value) and "at most 64 item(s)" in str(refused.value)


def test_the_defaults_are_within_their_bounds() -> None:
    assert Settings() == parse_settings("", source=".consensus.yml")
