"""Workflow files → Workflow: a repository's own named review, run as `/consensus <name>`.

`.consensus/workflows/<name>.md` (the name: lowercase letters, digits and `-`) is
Markdown with YAML front matter, read by the same strict reader as personas and command
files: an unknown key or a wrong value is a ConfigError naming the file and the key. Front
matter keys, all optional but `description`: `title`, `description`, `personas`,
`providers`, `threshold`, `min_severity`, `paths`, `exclude`, `verify` (all | disputed |
none), `ahead_by`, `budget` (`max_cost_usd`, `max_tokens`). The body is extra
instructions given to every reviewer of the run, after the diff.

A workflow only narrows the base configuration: `providers` names models or families the
base configuration already has (never an endpoint, a key or a new model), so a workflow
file can choose among the configured reviewers but never add one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.model.bounds import (
    MAX_PATTERNS,
    MAX_PERSONAS,
    MAX_PROVIDERS,
    MAX_TOKENS,
    MAX_USD,
    Glob,
    Name,
)
from consensus.settings.command_files import CommandSpec, Permission, load_commands
from consensus.settings.config import ProviderSettings, Settings, layered
from consensus.settings.frontmatter import OneLine, Rules, did_you_mean, read_document
from consensus.settings.strict import Strict

WORKFLOW_DIR = ".consensus/workflows"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_INSTRUCTIONS = 8_000  # characters of body: extra instructions, not a second diff
_FIXES = {
    "title": "one line of text, e.g. 'title: Security audit'",
    "description": "one line saying what the workflow checks (shown in /consensus help)",
    "personas": "a list of persona ids, e.g. [security] (built-in or from persona_dirs)",
    "providers": "a list of model names or families from .consensus.yml, e.g. [openai, "
    "anthropic/claude-sonnet-4-5]; never an endpoint or a key",
    "threshold": "a fraction between 0 and 1, e.g. 'threshold: 0.5'",
    "min_severity": "one of critical, high, medium, low, info",
    "paths": "a list of globs, e.g. ['src/auth/**']",
    "exclude": "a list of globs, e.g. ['docs/**']",
    "verify": "all, disputed or none",
    "ahead_by": "a whole number from 1 to 10",
    "budget": "a mapping: {max_cost_usd: 1.0, max_tokens: 300000}",
}
_RULES = Rules(
    id_field=None,
    keys_hint="description (and title, personas, providers, threshold, …)",
    body_hint="the extra instructions",
    fixes=_FIXES,
    default_fix="see docs/workflows.md",
    body_required=False,
)


class VerifyMode(str, Enum):
    """Which findings go to the inspector and redundancy voting."""

    ALL = "all"  # every finding, consensus ones included, at any severity
    DISPUTED = "disputed"  # the configuration's rule (the default)
    NONE = "none"  # no verification: disputed findings stay unverified


class WorkflowBudget(Strict):
    max_cost_usd: float | None = Field(default=None, ge=0, le=MAX_USD)
    max_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKENS)


class _FrontMatter(Strict):
    """The YAML front matter as written: unknown keys are errors."""

    title: OneLine | None = None
    description: OneLine
    personas: tuple[Name, ...] | None = Field(default=None, min_length=1, max_length=MAX_PERSONAS)
    providers: tuple[Name, ...] | None = Field(default=None, min_length=1, max_length=MAX_PROVIDERS)
    threshold: float | None = Field(default=None, gt=0, le=1)
    min_severity: Severity | None = None
    paths: tuple[Glob, ...] | None = Field(default=None, min_length=1, max_length=MAX_PATTERNS)
    exclude: tuple[Glob, ...] | None = Field(default=None, max_length=MAX_PATTERNS)
    verify: VerifyMode = VerifyMode.DISPUTED
    ahead_by: int | None = Field(default=None, ge=1, le=10)
    budget: WorkflowBudget | None = None

    @field_validator("providers", mode="after")
    @classmethod
    def _names_only(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for name in value or ():
            if not name.strip() or "://" in name or any(c.isspace() for c in name):
                raise ValueError(f"{name!r} is not a model or family name")
        return value


class Workflow(Strict):
    """A loaded workflow file. `instructions` is its body; `path` the file it came from."""

    name: str
    title: str
    description: str
    personas: tuple[str, ...] | None = None
    providers: tuple[str, ...] | None = None
    threshold: float | None = None
    min_severity: Severity | None = None
    paths: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    verify: VerifyMode = VerifyMode.DISPUTED
    ahead_by: int | None = None
    budget: WorkflowBudget | None = None
    instructions: str = ""
    path: str


def reserved_names() -> frozenset[str]:
    """Names a workflow may not take: the built-in slash commands and their aliases."""
    return frozenset(w for spec in load_commands().values() for w in (spec.name, *spec.aliases))


def check_name(name: str, *, path: str, reserved: Collection[str] = ()) -> str:
    """`name` if it may name a workflow, else a ConfigError naming `path`."""
    if not NAME_PATTERN.match(name):
        raise ConfigError(
            path,
            "name",
            f"'{name}' is not a workflow name: lowercase letters, digits and '-' only",
            fix=f"name workflows like 'security-audit' (the file {WORKFLOW_DIR}/security-audit.md)",
        )
    if name in reserved:
        raise ConfigError(
            path,
            "name",
            f"'{name}' is a built-in command: `/consensus {name}` would never run this workflow",
            fix="rename the file, e.g. 'my-review.md'",
        )
    return name


def parse_workflow(text: str, *, path: str, reserved: Collection[str] = ()) -> Workflow:
    """Validate workflow text read from `path` (a file, or a blob from the base branch)."""
    name = check_name(Path(path).stem, path=path, reserved=reserved)
    document = read_document(text, path=path, model=_FrontMatter, rules=_RULES)
    front, body = document.front, document.body.strip()
    if len(body) > MAX_INSTRUCTIONS:
        raise ConfigError(
            path,
            "body",
            f"is {len(body):,} characters long; at most {MAX_INSTRUCTIONS:,} are allowed",
            fix="keep the instructions to what this review must check",
        )
    return Workflow(
        name=name,
        **{key: getattr(front, key) for key in _FrontMatter.model_fields if key != "title"},
        title=front.title or name,
        instructions=body,
        path=path,
    )


def load_workflow_file(
    path: Path, *, reserved: Collection[str] = (), shown: str | None = None
) -> Workflow:
    """Read one workflow file; errors name it as `shown` (e.g. relative to the repository)."""
    name = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(name, None, f"cannot be read: {exc}", fix="save as UTF-8") from exc
    return parse_workflow(text, path=name, reserved=reserved)


def workflow_files(directory: Path) -> list[Path]:
    """The workflow files of `directory` (`README.md` is not one), sorted by name."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.md") if p.name.lower() != "readme.md")


def load_workflows(
    directory: Path, *, reserved: Collection[str] = (), root: Path | None = None
) -> dict[str, Workflow]:
    """Every workflow of `directory`, by name; the first broken file is a ConfigError.
    With `root`, files are named relative to it."""
    found = (
        load_workflow_file(p, reserved=reserved, shown=str(p.relative_to(root)) if root else None)
        for p in workflow_files(directory)
    )
    return {w.name: w for w in found}


def unknown_workflow(name: str, known: Sequence[str], *, where: str) -> ConfigError:
    """The error for a workflow name that has no file, with a near miss when there is one."""
    listing = ", ".join(sorted(known)) or "(none)"
    return ConfigError(
        where,
        None,
        f"there is no workflow '{name}'",
        fix=f"{did_you_mean(name, list(known))}workflows here: {listing}",
    )


# --------------------------------------------------------------------------- applying


def narrow_settings(workflow: Workflow, settings: Settings) -> Settings:
    """The base settings with the workflow's choices applied (providers apart: see
    `narrow_providers`, which needs the resolved list), validated as a whole."""
    update: dict[str, Any] = {}
    for key in ("personas", "threshold", "paths", "exclude"):
        value = getattr(workflow, key)
        if value is not None:
            update[key] = value
    if workflow.min_severity is not None:
        update["publish"] = {"min_severity": workflow.min_severity}
    inspector: dict[str, Any] = {}
    if workflow.ahead_by is not None:
        inspector["ahead_by"] = workflow.ahead_by
    if workflow.verify is VerifyMode.ALL:
        inspector["check_consensus"] = True
        update["verify_min_severity"] = Severity.INFO
    if inspector:
        update["inspector"] = inspector
    if workflow.budget is not None:
        update["budget"] = workflow.budget.model_dump(exclude_unset=True)
    return layered(settings, update, source=workflow.path)


def narrow_providers(
    workflow: Workflow, settings: Settings, providers: Sequence[ProviderSettings]
) -> tuple[Settings, tuple[ProviderSettings, ...]]:
    """The providers the workflow names (models or families of `providers`), in the base
    order; the inspector and voters are kept within them, so nothing else is ever called."""
    if workflow.providers is None:
        return settings, tuple(providers)
    wanted = set(workflow.providers)
    known = [*dict.fromkeys([p.model for p in providers] + [p.voting_family for p in providers])]
    for name in workflow.providers:
        if name not in known:
            raise ConfigError(
                workflow.path,
                "providers",
                f"'{name}' is neither a model nor a family of the base configuration",
                fix=f"{did_you_mean(name, known)}name one of: {', '.join(known) or '(none)'}",
            )
    kept = tuple(p for p in providers if p.model in wanted or p.voting_family in wanted)
    families = {p.voting_family for p in kept}
    if len(families) < settings.min_providers:
        raise ConfigError(
            workflow.path,
            "providers",
            f"keeps {len(families)} famil{'y' if len(families) == 1 else 'ies'} "
            f"({', '.join(sorted(families))}) but min_providers is {settings.min_providers}",
            fix="name providers of more families, or lower min_providers in .consensus.yml",
        )
    models = {p.model for p in kept}
    inspector = settings.inspector
    update: dict[str, Any] = {
        "inspector": {
            "model": inspector.model if inspector.model in models else None,
            "voters": tuple(v for v in inspector.voters if v in models),
        }
    }
    if settings.providers:
        update["providers"] = kept
    return layered(settings, update, source=workflow.path), kept


def workflow_spec(workflow: Workflow) -> CommandSpec:
    """The workflow as a slash command's file: `/consensus <name>`, write permission,
    spends tokens."""
    return CommandSpec(
        name=workflow.name,
        usage=f"/consensus {workflow.name}",
        summary=workflow.description,
        permission=Permission.WRITE,
        spends_tokens=True,
        aliases=(),
        help=f"{workflow.title}: {workflow.description}",
        path=workflow.path,
    )


def describe(workflows: Mapping[str, Workflow]) -> list[tuple[str, str, str]]:
    """(name, file, description) rows, by name: what `consensus workflows` lists."""
    return [(w.name, w.path, w.description) for w in sorted(workflows.values(), key=_name)]


def _name(workflow: Workflow) -> str:
    return workflow.name
