"""Files that are data: YAML front matter validated by a pydantic model, then a body.

Personas, slash commands and saved review workflows are such files. Every problem is a
ConfigError that names the file, the field and the fix; the file's name must match its id
(a workflow has no id field: its file name is its name).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Generic, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, StringConstraints, ValidationError

from consensus.errors import ConfigError
from consensus.settings.problems import problem_in_words

Model = TypeVar("Model", bound=BaseModel)


def _one_line(value: str) -> str:
    value = value.strip()
    if not value or "\n" in value:
        raise ValueError("must be one non-empty line")
    return value


# A header field of one line of text, at most 500 characters.
OneLine = Annotated[str, StringConstraints(max_length=500), AfterValidator(_one_line)]


@dataclass(frozen=True)
class Document(Generic[Model]):
    front: Model
    body: str
    body_offset: int  # file lines before the body, for line numbers in later errors


@dataclass(frozen=True)
class Rules:
    """What a kind of file expects: its id field, and the fixes its errors suggest.

    Without `id_field` the file's name is its id (the caller checks it); without
    `body_required` an empty body is allowed.
    """

    id_field: str | None
    keys_hint: str  # the keys a header lists, for "front matter is missing"
    body_hint: str  # what the body holds, for "body is empty"
    fixes: Mapping[str, str]
    default_fix: str
    body_required: bool = True


def read_document(text: str, *, path: str, model: type[Model], rules: Rules) -> Document[Model]:
    header, body, offset = _split(text, path, rules)
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise ConfigError(path, "front matter", f"is not valid YAML{where}", fix=str(exc)) from exc
    if not isinstance(data, dict):
        raise ConfigError(path, "front matter", "must be a mapping", fix="write 'key: value' lines")
    try:
        front = model.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(path, exc, model, rules) from exc
    ident = str(getattr(front, rules.id_field)) if rules.id_field else None
    stem = Path(path).stem
    if rules.id_field and ident != stem:
        raise ConfigError(
            path,
            rules.id_field,
            f"'{ident}' does not match the file name '{stem}'",
            fix=f"set '{rules.id_field}: {stem}' or rename the file to '{ident}.md'",
        )
    if rules.body_required and not body.strip():
        raise ConfigError(path, "body", "is empty", fix=f"write {rules.body_hint} after '---'")
    return Document(front=front, body=body, body_offset=offset)


def closest(word: str, known: Sequence[str], *, prefix: bool = True) -> str | None:
    """The known name `word` most likely meant: one it begins (with `prefix`), else the
    nearest by spelling (difflib, ratio ≥ 0.6); None when nothing is near."""
    prefixed = [k for k in known if prefix and word and k.startswith(word.lower())]
    close = prefixed or difflib.get_close_matches(word.lower(), list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """'did you mean 'x'? ' for a near miss (`closest`), else '': the start of a fix."""
    guess = closest(name, known)
    return f"did you mean '{guess}'? " if guess is not None else ""


def _split(text: str, path: str, rules: Rules) -> tuple[str, str, int]:
    """(YAML header, body, number of file lines before the body)."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if lines[0].strip() == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.rstrip() == "---":
                return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 1
    raise ConfigError(
        path,
        "front matter",
        "is missing: the file must start with a '---' line and close it with another",
        fix=f"start with '---', then {rules.keys_hint}, then '---'",
    )


def _validation_error(
    path: str, exc: ValidationError, model: type[BaseModel], rules: Rules
) -> ConfigError:
    error = exc.errors()[0]
    loc = [str(part) for part in error["loc"] if part != "[key]"]
    key = ".".join(loc) or "front matter"
    field = loc[0] if loc else ""
    if error["type"] == "extra_forbidden":
        known = list(model.model_fields)
        hint = did_you_mean(field, known)
        return ConfigError(path, key, "unknown key", fix=f"{hint}known keys: {', '.join(known)}")
    problem = problem_in_words(error)
    return ConfigError(path, key, problem, fix=rules.fixes.get(field, rules.default_fix))
