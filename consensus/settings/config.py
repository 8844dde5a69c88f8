"""`.consensus.yml` → one frozen Settings object, built at the edge and passed down.

Every key is optional; an unknown key or a wrong type is a ConfigError that names the
file, the key and the fix. Keys for providers live in the environment, never the file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.model.calibration import Calibration
from consensus.settings.budget import BudgetSettings as BudgetSettings
from consensus.settings.family import base_model, infer_family
from consensus.settings.scope import (
    ContextSettings,
    ConversationSettings,
    IgnoreSettings,
    check_path_instructions,
    check_path_patterns,
    github_logins,
)

CONFIG_NAMES = (".consensus.yml", ".consensus.yaml")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """Refused with an update: it would accept a misspelt key or a wrong type silently.
        Settings are layered by `layered`, which validates the merged whole."""
        if update:
            raise TypeError(f"{type(self).__name__} is layered with layered(), not model_copy")
        return super().model_copy(deep=deep)


class ProviderSettings(_Strict):
    model: str = Field(min_length=3, description="litellm model string, e.g. openai/gpt-5.1")
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    family: str | None = None
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    max_concurrency: int = Field(default=4, ge=1, le=64)
    context_window: int | None = Field(default=None, ge=2_000)

    @property
    def voting_family(self) -> str:
        """The family that votes for this provider: one vote per family, however many providers."""
        return self.family or infer_family(self.model)


class InspectorSettings(_Strict):
    """Verification of disputed findings: judges weigh in, family by family, until the
    rule decides.

    `model`: the first judge; `voters`: the others, in order (default: every reviewing
    provider). Neither judges a finding its own family reported while another family
    answered (review/judges.py).
    `ahead_by`: k; security and critical findings use max(k, 3).
    `single_family_extra_lead`: ahead-by-k: a finding only one provider family reported
    is verified only when confirmations lead by k + this (rejected when they trail by k).
    `max_votes`: the cap on votes on one finding (default 12; ahead-by-k: 2 × the lead to
    verify + 3).
    `check_consensus`: also check every finding that reached consensus.
    `check_consensus_min_severity`: a consensus finding at or above this severity that not
    every family reviewing its file reported is checked, from what its reports say, like
    any other claim (agreement is evidence, not proof, where a wrong claim costs most).
    `rule`: `weighed` (default): each family's rates as a judge and as a reporter are
    estimated from the run's votes and a finding is verified at `target_precision`
    (decide/evidence.py); `ahead-by-k`: every vote the same.
    """

    model: str | None = None
    voters: tuple[str, ...] = ()
    ahead_by: int = Field(default=2, ge=1, le=10)
    max_votes: int | None = Field(default=None, ge=1, le=25)
    check_consensus: bool = False
    check_consensus_min_severity: Severity = Severity.HIGH
    single_family_extra_lead: int = Field(default=1, ge=0, le=5)
    rule: Literal["weighed", "ahead-by-k"] = "weighed"
    target_precision: float = Field(default=0.9, gt=0.5, lt=1)


class PublishSettings(_Strict):
    max_inline_comments: int = Field(default=10, ge=0)
    min_severity: Severity = Severity.LOW
    request_changes_on: Severity = Severity.CRITICAL


_REVIEWER = r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9._-]{1,100})?$"


class QueueSettings(_Strict):
    """The agent-PR queue (README, "Agent-PR queue").

    Agent PRs: authors in `agents`, any `[bot]` author unless `include_bots` is false or
    it is in `exclude_bots` (dependency bots), and PRs carrying `agent_label`. At most
    `max_in_review` of them are in human review at once, and at most
    `max_in_review_per_reviewer` per reviewer when set. Reviewers: `reviewers` (logins or
    `org/team`) when given, else the CODEOWNERS of the changed files.
    """

    agents: tuple[str, ...] = (
        "copilot-swe-agent[bot]",
        "devin-ai-integration[bot]",
        "codex[bot]",
    )
    agent_label: str = Field(default="agent", min_length=1, max_length=50)
    max_in_review: int = Field(default=3, ge=1, le=100)
    max_in_review_per_reviewer: int | None = Field(default=None, ge=1, le=100)
    reviewers: tuple[str, ...] = ()
    include_bots: bool = True
    exclude_bots: tuple[str, ...] = (
        "dependabot[bot]",
        "renovate[bot]",
        "pre-commit-ci[bot]",
        "github-actions[bot]",
    )
    sensitive_paths: tuple[str, ...] = (
        "*auth*",
        "*secret*",
        "*crypt*",
        "*password*",
        "migrations",
        "*migration*",
        ".github/workflows",
        ".gitlab-ci.yml",
        "Jenkinsfile",
        "Dockerfile",
        "*.tf",
    )
    order: Literal["riskiest-first", "safest-first"] = "riskiest-first"

    @field_validator("agents", "exclude_bots")
    @classmethod
    def _logins(cls, logins: tuple[str, ...]) -> tuple[str, ...]:
        return github_logins(logins, example="codex[bot]")

    @field_validator("reviewers")
    @classmethod
    def _reviewer_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        import re

        for name in names:
            if not re.match(_REVIEWER, name):
                raise ValueError(f"{name!r} is neither a login nor 'org/team'")
        return tuple(name.lstrip("@") for name in names)


class CommandSettings(_Strict):
    """Slash commands in PR comments. `mention` (e.g. "@consensus") is accepted at the start
    of a line as an alias of `/consensus`; off unless set."""

    mention: str | None = Field(default=None, pattern=r"^@[A-Za-z0-9][A-Za-z0-9-]{0,38}$")


class Settings(_Strict):
    threshold: float = Field(default=0.75, gt=0, le=1)
    min_providers: int = Field(default=2, ge=1)
    paths: tuple[str, ...] = ("**",)
    exclude: tuple[str, ...] = ()
    providers: tuple[ProviderSettings, ...] = ()
    personas: tuple[str, ...] = ("correctness", "security", "performance", "maintainability")
    persona_dirs: tuple[str, ...] = (".consensus/personas",)
    inspector: InspectorSettings = InspectorSettings()
    verify_min_severity: Severity = Severity.MEDIUM
    budget: BudgetSettings = BudgetSettings()
    concurrency: int = Field(default=8, ge=1, le=256)
    redact: tuple[str, ...] = ()
    publish: PublishSettings = PublishSettings()
    queue: QueueSettings = QueueSettings()
    commands: CommandSettings = CommandSettings()
    conversation: ConversationSettings = ConversationSettings()
    ignore: IgnoreSettings = IgnoreSettings()
    context: ContextSettings = ContextSettings()
    # .gitignore pattern → extra instructions for the files it matches, after the diff.
    path_instructions: dict[str, str] = Field(default_factory=dict)
    # BCP 47 tag of the language reviewers write titles, bodies and reasons in.
    response_language: str = Field(
        default="en", pattern=r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$", max_length=35
    )
    # Undocumented: the fallback when litellm does not know a model's context window.
    default_context_window: int = Field(default=32_000, ge=2_000)
    # Each judge family's TPR/TNR and each reporter's precision; or the path of a file
    # holding them (read with the configuration: `with_calibration_file`).
    calibration: Calibration | str | None = None

    def judged_by(self) -> Calibration:
        """What the repository knows of its panel (labels and earlier runs), the prior of
        every run's estimate of it (empty: the estimate's defaults alone)."""
        return self.calibration if isinstance(self.calibration, Calibration) else Calibration()

    @field_validator("paths", "exclude")
    @classmethod
    def _path_patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        return check_path_patterns(patterns)

    @field_validator("path_instructions")
    @classmethod
    def _instructions(cls, instructions: dict[str, str]) -> dict[str, str]:
        return check_path_instructions(instructions)

    @field_validator("redact")
    @classmethod
    def _patterns_compile(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        import re

        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from exc
        return patterns


# Environment keys that, when set, bring in a default provider (no `providers` key).
AUTO_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "openai/gpt-5.1"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ("MISTRAL_API_KEY", "mistral/mistral-large-latest"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("XAI_API_KEY", "xai/grok-4"),
    ("OPENROUTER_API_KEY", "openrouter/qwen/qwen3-coder"),
)


class LoadedConfig(BaseModel):
    """Settings plus where they came from, for `doctor` and error messages."""

    model_config = ConfigDict(frozen=True)

    settings: Settings
    source: str  # a path, or "defaults"


def find_config(root: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = root / name
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None, *, root: Path) -> LoadedConfig:
    """Read `path` (or the repository root's .consensus.yml); defaults when there is none."""
    if path is None:
        path = find_config(root)
        if path is None:
            return LoadedConfig(settings=Settings(), source="defaults")
    elif not path.is_file():
        raise ConfigError(str(path), None, "no such file", fix="pass an existing --config path")
    text = path.read_text(encoding="utf-8", errors="replace")
    settings = parse_settings(text, source=str(path))
    return LoadedConfig(settings=settings, source=str(path))


def parse_settings(text: str, *, source: str) -> Settings:
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
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(source, None, "must be a mapping of keys to values", fix="see README")
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise _config_error(source, data, exc) from exc


def layered(base: Settings, overrides: Mapping[str, Any], *, source: str) -> Settings:
    """`base` with `overrides` on top, validated as a whole as a file is: a section (publish,
    inspector, budget…) is overridden key by key with a mapping, and a misspelt key or a
    wrong type is a ConfigError naming `source` and the key. The one way settings layer
    (a workflow's narrowing, the Action's inputs, the command line's flags)."""
    data = _merged(base.model_dump(), overrides)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise _config_error(source, data, exc) from exc


def _merged(data: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(data)
    for key, value in overrides.items():
        below = merged.get(key)
        nested = (
            isinstance(value, Mapping) and isinstance(below, dict) and key != "path_instructions"
        )
        merged[key] = _merged(below, value) if nested else value  # type: ignore[arg-type]
    return merged


_UNION_MEMBER = re.compile(r"^(constrained-\w+|literal\[.*\]|float|int|str|bool|none)$")


def _config_error(source: str, data: Mapping[str, Any], exc: ValidationError) -> ConfigError:
    # An unknown key usually explains the other errors (a misspelt required key), so it goes first.
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    error = errors[0]
    loc = [str(part) for part in error["loc"] if not _UNION_MEMBER.match(str(part))]
    key = ".".join(loc) or None
    if error["type"] == "extra_forbidden":
        model = _model_at(Settings, loc[:-1])
        known = sorted(model.model_fields) if model else []
        close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return ConfigError(
            source,
            key,
            "unknown key",
            fix=f"{hint}known keys here: {', '.join(known)}",
        )
    problem = error["msg"]
    value = error.get("input")
    if not isinstance(value, (dict, list)):
        problem = f"{problem} (got {value!r})"
    return ConfigError(source, key, problem, fix=_fix_for(loc))


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


def _fix_for(loc: Sequence[str]) -> str:
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
    }
    return fixes.get(last, "see the configuration reference in README.md")


def resolve_providers(
    settings: Settings,
    env: Mapping[str, str],
    *,
    ollama_models: Sequence[str] = (),
) -> tuple[ProviderSettings, ...]:
    """The providers to call: the configured ones, else one per API key found in `env`."""
    if settings.providers:
        return settings.providers
    found = [ProviderSettings(model=model) for key, model in AUTO_PROVIDERS if env.get(key)]
    found += [
        ProviderSettings(model=f"ollama/{name}", api_base="http://localhost:11434")
        for name in ollama_models
    ]
    if not found:
        keys = ", ".join(key for key, _ in AUTO_PROVIDERS)
        raise ConfigError(
            "configuration",
            "providers",
            "no provider configured and no API key found in the environment",
            fix=f"export one of {keys}, start Ollama on localhost:11434, or list models "
            "under 'providers:' in .consensus.yml (`consensus demo` needs none of these)",
        )
    return tuple(found)


def duplicate_model_warnings(providers: Sequence[ProviderSettings]) -> list[str]:
    """Providers that are the same underlying model: agreeing with itself is not consensus."""
    seen: dict[tuple[str, str], str] = {}
    warnings = []
    for provider in providers:
        key = (provider.voting_family, base_model(provider.model))
        if key in seen:
            warnings.append(
                f"{provider.model} and {seen[key]} are the same model ({key[1]}); "
                "they count as one voter, so they add cost but no independent opinion"
            )
        else:
            seen[key] = provider.model
    return warnings


def unavailable_providers(
    providers: Sequence[ProviderSettings],
    env: Mapping[str, str],
    needed_keys: Callable[[str], Sequence[str]],
) -> dict[str, str]:
    """model → why it cannot be called (a key that is not set), checked before any call.

    `needed_keys(model)` names the variables the model's route needs (litellm knows);
    it is asked only for providers that name no key and no endpoint of their own.
    """
    unavailable = {}
    for provider in providers:
        if provider.api_key_env:
            if not env.get(provider.api_key_env):
                unavailable[provider.model] = (
                    f"environment variable {provider.api_key_env} is not set"
                )
        elif not provider.api_base:
            missing = [key for key in needed_keys(provider.model) if not env.get(key)]
            if missing:
                unavailable[provider.model] = f"{' or '.join(missing)} is not set"
    return unavailable
