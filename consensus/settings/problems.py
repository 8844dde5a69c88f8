"""What is wrong with a value in a file a person wrote (`.consensus.yml`, a persona, a
saved workflow), in their words rather than pydantic's: "should be a list (got
'correctness')", not "Input should be a valid tuple". The fix that goes with it is the
caller's, or `config_error`'s for the configuration file: a table of examples by key,
else the field's own description (the one the configuration reference shows).
`yaml_mapping` reads such a file's keys, saying where its YAML breaks."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from consensus.errors import ConfigError

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
    "too_long": "should have at most {max_length} item(s) (it has {actual_length})",
    "string_too_short": "should have at least {min_length} character(s)",
    "string_too_long": "should have at most {max_length} characters",
    "literal_error": "should be one of {expected}",
    "enum": "should be one of {expected}",
}


def yaml_mapping(text: str, *, source: str) -> dict[str, Any]:
    """A YAML file of keys and values, as its mapping (an empty file: no keys); a
    ConfigError saying where the YAML breaks, or that it is not a mapping."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        context = getattr(exc, "context", None)
        detail = f"{context}: {problem}" if context else problem
        raise ConfigError(
            source, None, f"is not valid YAML{where} ({detail})", fix="correct the YAML syntax"
        ) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            source, None, "must be a mapping of keys to values", fix="see docs/configuration.md"
        )
    return data


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
    if kind == "string_too_long" and isinstance(value, str):  # not the whole of a long text
        problem = f"{problem} (got {len(value):,}: {value[:40]!r}…)"
    elif kind != "missing" and not isinstance(value, (dict, list, tuple)):
        problem = f"{problem} (got {value!r})"
    return problem


_UNION_MEMBER = re.compile(r"^(constrained-\w+|literal\[.*\]|float|int|str|bool|none)$")


def config_error(source: str, exc: ValidationError, root: type[BaseModel]) -> ConfigError:
    """The ConfigError of a settings file whose validation against `root` failed: the
    key, the problem in words, the fix."""
    # An unknown key usually explains the other errors (a misspelt required key), so it goes first.
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    error = errors[0]
    parts = [str(part) for part in error["loc"]]
    # pydantic names a union's member after the key ('budget.max_tokens.int'): not a key
    loc = parts[:1] + [part for part in parts[1:] if not _UNION_MEMBER.match(part)]
    key = ".".join(loc) or None
    if error["type"] == "extra_forbidden":
        model = _model_at(root, loc[:-1])
        known = sorted(model.model_fields) if model else []
        close = difflib.get_close_matches(parts[-1], known, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return ConfigError(
            source,
            key,
            "unknown key",
            fix=f"{hint}known keys here: {', '.join(known)}",
        )
    return ConfigError(source, key, problem_in_words(error), fix=_fix_for(root, loc))


def _model_at(model: type[BaseModel], loc: Sequence[str]) -> type[BaseModel] | None:
    """The pydantic model that holds the key at `loc` (list indexes skipped)."""
    current: type[BaseModel] = model
    for part in loc:
        if part.isdigit():
            continue
        field = current.model_fields.get(part)
        if field is None:
            return None
        annotation = field.annotation
        inner = getattr(annotation, "__args__", (annotation,))
        found = next((t for t in inner if isinstance(t, type) and issubclass(t, BaseModel)), None)
        if found is None:
            return None
        current = found
    return current


def _fix_for(root: type[BaseModel], loc: Sequence[str]) -> str:
    last = next((part for part in reversed(loc) if not part.isdigit()), "")
    fixes = {
        "threshold": "a fraction between 0 and 1, e.g. 'threshold: 0.75'",
        "severity": "one of critical, high, medium, low, info",
        "min_severity": "one of critical, high, medium, low, info",
        "request_changes_on": "one of critical, high, medium, low, info",
        "verify_min_severity": "one of critical, high, medium, low, info",
        "check_consensus_min_severity": "one of critical, high, medium, low, info",
        "model": "a litellm model string such as 'openai/gpt-5.1'",
        "api_key_env": "the NAME of an environment variable, never the key itself",
        "max_in_review": "a whole number of PRs from 1 to 100, e.g. 'max_in_review: 3'",
        "max_in_review_per_reviewer": "a whole number of PRs from 1 to 100, or leave it out",
        "reviewers": "GitHub logins or 'org/team' names, e.g. [alice, acme/backend]",
        "agents": "GitHub logins of the agents, e.g. ['codex[bot]']",
        "exclude_bots": "GitHub logins of bots to leave out, e.g. ['dependabot[bot]']",
        "order": "riskiest-first or safest-first",
        "guidelines": "file paths from the repository root, e.g. [AGENTS.md, CONTRIBUTING.md]",
        "max_chars": "a number of characters from 0 to 200000, e.g. 'max_chars: 20000'",
        "path_instructions": "a mapping of .gitignore pattern to text, e.g. "
        "{'migrations/**': 'Check locking and reversibility.'}",
        "response_language": "a BCP 47 language tag, e.g. 'pt-BR', 'ja' or 'en'",
        "paths": ".gitignore patterns, e.g. ['src/**', '!src/generated/**']",
        "exclude": ".gitignore patterns, e.g. ['docs/**', '!docs/api/**']",
        "authors": "GitHub logins, e.g. ['dependabot[bot]', 'renovate[bot]']",
        "title": "regular expressions searched in the PR title, e.g. ['^WIP\\b']",
        "personas": "a list of persona ids, e.g. 'personas: [correctness, security]' "
        "(`consensus personas` lists them)",
        "persona_dirs": "a list of folders, e.g. 'persona_dirs: [.consensus/personas]'",
        "providers": "a list of providers, e.g. 'providers: [{model: openai/gpt-5.1}]'",
        "redact": "a list of regular expressions, e.g. "
        "'redact: [\"(?i)internal-token-[a-z0-9]+\"]'",
    }
    return fixes.get(last) or _described(root, loc) or f"see {REFERENCE}"


REFERENCE = "the configuration reference (docs/configuration.md)"


def _described(root: type[BaseModel], loc: Sequence[str]) -> str | None:
    """The field's own description, as the configuration reference shows it."""
    names = [part for part in loc if not part.isdigit()]
    model = _model_at(root, names[:-1]) if names else None
    field = model.model_fields.get(names[-1]) if model else None
    if field is None or not field.description:
        return None
    return f"{field.description} (see {REFERENCE})"
