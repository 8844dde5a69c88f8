"""`.consensus.yml` → one frozen Settings object, built at the edge and passed down.

Every key is optional; an unknown key or a wrong type is a ConfigError that names the
file, the key and the fix. Keys for providers live in the environment, never the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.model.bounds import (
    MAX_FOLDERS,
    MAX_INSTRUCTIONS,
    MAX_LOGINS,
    MAX_PATTERNS,
    MAX_PERSONAS,
    MAX_PROVIDERS,
    MAX_REGEXES,
    MAX_WINDOW,
    Glob,
    Name,
    Prose,
    Regex,
)
from consensus.model.calibration import Calibration
from consensus.settings.analyzer_sources import AnalyzerList, SarifList
from consensus.settings.budget import BudgetSettings as BudgetSettings
from consensus.settings.family import base_model, infer_family
from consensus.settings.problems import config_error, yaml_mapping
from consensus.settings.scope import (
    ContextSettings,
    ConversationSettings,
    IgnoreSettings,
    check_path_instructions,
    check_path_patterns,
    check_regexes,
    github_logins,
)
from consensus.settings.strict import Strict

CONFIG_NAMES = (".consensus.yml", ".consensus.yaml")


class ProviderSettings(Strict):
    model: str = Field(
        min_length=3, max_length=200, description="litellm model string, e.g. openai/gpt-5.1"
    )
    """litellm model string, PROVIDER/NAME, e.g. openai/gpt-5.1 or anthropic/claude-sonnet-4-5."""
    api_base: str | None = Field(default=None, max_length=2_000)
    """The endpoint, for a local or OpenAI-compatible server (e.g. http://localhost:11434)."""
    api_key_env: str | None = Field(
        default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=200
    )
    """The NAME of the environment variable that holds the key, never the key."""
    family: str | None = Field(default=None, max_length=200)
    """Who votes: providers of one family count once. Default: the vendor read from the model's
    name."""
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    """Seconds one call may take before it fails."""
    max_concurrency: int = Field(default=4, ge=1, le=64)
    """Calls in flight at once to this provider."""
    context_window: int | None = Field(default=None, ge=2_000, le=MAX_WINDOW)
    """The model's context window, when litellm does not know it."""

    @property
    def voting_family(self) -> str:
        """The family that votes for this provider: one vote per family, however many providers."""
        return self.family or infer_family(self.model)


class InspectorSettings(Strict):
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
    `tool_budget`: the tool calls one judge may make about one claim (inspect/lookups.py).
    `rule`: `weighed` (default): each family's rates as a judge and as a reporter are
    estimated from the run's votes and a finding is verified at `target_precision`
    (decide/evidence.py); `ahead-by-k`: every vote the same.
    """

    model: str | None = Field(default=None, max_length=200)
    """The first judge (default: a reviewing provider of a family that did not report the
    finding)."""
    voters: tuple[Name, ...] = Field(default=(), max_length=MAX_PROVIDERS)
    """The other judges, in order (default: every reviewing provider); at most 16."""
    ahead_by: int = Field(default=2, ge=1, le=10)
    """ahead-by-k: the lead of one verdict that settles a finding; 3 for security and critical ones.
    """
    max_votes: int | None = Field(default=None, ge=1, le=25)
    """The most votes one finding gets (default 12; ahead-by-k: 2 × the lead + 3); then it is
    undecided."""
    check_consensus: bool = False
    """Also check every finding that reached consensus."""
    check_consensus_min_severity: Severity = Severity.HIGH
    """A consensus finding at or above this that not every family reported is checked like any
    other claim."""
    single_family_extra_lead: int = Field(default=1, ge=0, le=5)
    """ahead-by-k: a finding one family reported needs a lead of k + this."""
    rule: Literal["weighed", "ahead-by-k"] = "weighed"
    """How votes decide: weighed (by each judge family's rates, estimated from the run's votes) or
    ahead-by-k (every vote the same)."""
    target_precision: float = Field(default=0.9, gt=0.5, lt=1)
    """weighed: a finding is verified at this probability of being real, rejected as surely against.
    """
    tool_budget: int = Field(default=6, ge=0, le=30)
    """Read-only tool calls (read a file, search, find a definition…) one judge may make about
    one claim, where the run has the pull request's trees; then it must answer. 0 offers no
    tools: each judge is given the evidence in its question instead."""


class PublishSettings(Strict):
    max_inline_comments: int = Field(default=10, ge=0, le=100)
    """Inline comments open on a pull request at most; the rest go to the summary."""
    min_severity: Severity = Severity.LOW
    """Findings below this severity are not posted inline."""
    request_changes_on: Severity = Severity.CRITICAL
    """A new finding at or above this makes the review REQUEST_CHANGES (else COMMENT)."""


_REVIEWER = r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9._-]{1,100})?$"


class QueueSettings(Strict):
    """The agent-PR queue (docs/queue.md).

    Agent PRs: authors in `agents`, any `[bot]` author unless `include_bots` is false or
    it is in `exclude_bots` (dependency bots), and PRs carrying `agent_label`. At most
    `max_in_review` of them are in human review at once, and at most
    `max_in_review_per_reviewer` per reviewer when set. Reviewers: `reviewers` (logins or
    `org/team`) when given, else the CODEOWNERS of the changed files.
    """

    agents: tuple[Name, ...] = Field(
        default=("copilot-swe-agent[bot]", "devin-ai-integration[bot]", "codex[bot]"),
        max_length=MAX_LOGINS,
    )
    """GitHub logins of the agents whose pull requests are queued; at most 64."""
    agent_label: str = Field(default="agent", min_length=1, max_length=50)
    """A label that marks a pull request as an agent's."""
    max_in_review: int = Field(default=3, ge=1, le=100)
    """Agent pull requests in human review at once."""
    max_in_review_per_reviewer: int | None = Field(default=None, ge=1, le=100)
    """Agent pull requests in review per reviewer at once (no limit when left out)."""
    reviewers: tuple[Name, ...] = Field(default=(), max_length=MAX_LOGINS)
    """Who is asked to review an admitted pull request: logins or org/team (default: CODEOWNERS);
    at most 64."""
    include_bots: bool = True
    """Treat any other [bot] author as an agent."""
    exclude_bots: tuple[Name, ...] = Field(
        default=("dependabot[bot]", "renovate[bot]", "pre-commit-ci[bot]", "github-actions[bot]"),
        max_length=MAX_LOGINS,
    )
    """Bots that are never agents (dependency bots); at most 64."""
    sensitive_paths: tuple[Glob, ...] = Field(
        default=(
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
        ),
        max_length=MAX_PATTERNS,
    )
    """Paths that add to a pull request's risk (auth, secrets, migrations, CI); at most 256."""
    order: Literal["riskiest-first", "safest-first"] = "riskiest-first"
    """riskiest-first or safest-first."""

    @field_validator("agents", "exclude_bots")
    @classmethod
    def _logins(cls, logins: tuple[str, ...]) -> tuple[str, ...]:
        return github_logins(logins, example="codex[bot]")

    @field_validator("reviewers")
    @classmethod
    def _reviewer_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:

        for name in names:
            if not re.match(_REVIEWER, name):
                raise ValueError(f"{name!r} is neither a login nor 'org/team'")
        return tuple(name.lstrip("@") for name in names)


class CommandSettings(Strict):
    """Slash commands in PR comments. `mention` (e.g. "@consensus") is accepted at the start
    of a line as an alias of `/consensus`; off unless set."""

    mention: str | None = Field(
        default=None, pattern=r"^@[A-Za-z0-9][A-Za-z0-9-]{0,38}$", max_length=40
    )
    """A mention accepted as /consensus at the start of a line, e.g. @consensus (off when left out).
    """


class Settings(Strict):
    threshold: float = Field(default=0.75, gt=0, le=1)
    """Fraction of the families that reviewed a file that must report a finding for it to reach
    consensus (at least two families always)."""
    min_providers: int = Field(default=2, ge=1, le=MAX_PROVIDERS)
    """Fewer answering families than this: the review is advisory (nothing posted inline,
    exit 3)."""
    paths: tuple[Glob, ...] = Field(default=("**",), max_length=MAX_PATTERNS)
    """What to review: .gitignore patterns; the last one that matches a file decides, `!` takes one
    back. At most 256."""
    exclude: tuple[Glob, ...] = Field(default=(), max_length=MAX_PATTERNS)
    """What not to review, as .gitignore patterns, after `paths`; at most 256."""
    providers: tuple[ProviderSettings, ...] = Field(default=(), max_length=MAX_PROVIDERS)
    """The models that review, as litellm model strings with their endpoint and key; default: one
    per API key found in the environment, and a local Ollama. At most 16."""
    personas: tuple[Name, ...] = Field(
        default=("correctness", "security", "performance", "maintainability"),
        max_length=MAX_PERSONAS,
    )
    """The reviewers' briefs each provider reviews with (`consensus personas` lists them); at most
    32."""
    persona_dirs: tuple[Glob, ...] = Field(default=(".consensus/personas",), max_length=MAX_FOLDERS)
    """Folders of repository personas, added to the built-in ones (same id: the repository's wins);
    at most 16."""
    inspector: InspectorSettings = InspectorSettings()
    """Verification of disputed findings by judges: an inspector, then voters."""
    verify_min_severity: Severity = Severity.MEDIUM
    """Disputed findings below this severity are listed as unverified, not verified."""
    budget: BudgetSettings = BudgetSettings()
    """What one run, and the runs on one pull request, may spend."""
    concurrency: int = Field(default=8, ge=1, le=256)
    """Model calls in flight at once, over all providers."""
    redact: tuple[Regex, ...] = Field(default=(), max_length=MAX_REGEXES)
    """Extra secret patterns (regular expressions), redacted before any provider sees the diff; at
    most 64, each at most 500 characters."""
    publish: PublishSettings = PublishSettings()
    """What a run posts on a pull request."""
    queue: QueueSettings = QueueSettings()
    """The agent-PR queue: which pull requests are agents', and how many are in human review at
    once."""
    commands: CommandSettings = CommandSettings()
    """Slash commands in pull-request comments."""
    conversation: ConversationSettings = ConversationSettings()
    """Answers to people's replies in the threads of consensus's inline comments."""
    ignore: IgnoreSettings = IgnoreSettings()
    """Pull requests that are not reviewed automatically (one log line, exit 0)."""
    context: ContextSettings = ContextSettings()
    """The repository's own guidelines, given to every reviewer after the diff."""
    # .gitignore pattern → extra instructions for the files it matches, after the diff.
    path_instructions: dict[Glob, Prose] = Field(default_factory=dict, max_length=MAX_INSTRUCTIONS)
    """A .gitignore pattern → extra instructions for the files it matches, after the diff; at most
    64 patterns, each text at most 20,000 characters."""
    # BCP 47 tag of the language reviewers write titles, bodies and reasons in.
    response_language: str = Field(
        default="en", pattern=r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$", max_length=35
    )
    """BCP 47 tag of the language reviewers write titles, bodies and reasons in (ids, severities and
    keys never change)."""
    # Undocumented: the fallback when litellm does not know a model's context window.
    default_context_window: int = Field(default=32_000, ge=2_000, le=MAX_WINDOW)
    """The context window assumed for a model litellm does not know (or give the provider a
    `context_window`)."""
    analyzers: AnalyzerList = ()
    """Static analyzers run on the head, each a family in the vote: ruff, semgrep (`- ruff`, or
    `- name: ruff` with `post`, `filter_mode`); at most 8. Not run on a fork's head."""
    sarif: SarifList = ()
    """SARIF 2.1.0 files an earlier CI step wrote, each tool a family in the vote (`- path: x.sarif`
    with `name`, `post`, `filter_mode`, `baseline`); at most 16."""
    # Labelled counts of each judge family and reporter, and the pooled history of earlier
    # runs; or the path of a file holding them (read with the configuration:
    # `with_calibration_file`).
    calibration: Calibration | Glob | None = None
    """Labelled counts of each judge family's verdicts and each reporter's claims, which every run's
    estimate of its panel starts from: a mapping, or the path of a file `consensus calibrate`
    wrote."""

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
        return check_regexes(patterns)


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


class LoadedConfig(Strict):
    """Settings plus where they came from, for `doctor` and error messages."""

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
    data = yaml_mapping(text, source=source)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise config_error(source, exc, Settings) from exc


def layered(base: Settings, overrides: Mapping[str, Any], *, source: str) -> Settings:
    """`base` with `overrides` on top, validated as a whole as a file is: a section (publish,
    inspector, budget…) is overridden key by key with a mapping, and a misspelt key or a
    wrong type is a ConfigError naming `source` and the key. The one way settings layer
    (a workflow's narrowing, the Action's inputs, the command line's flags)."""
    data = _merged(base.model_dump(), overrides)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise config_error(source, exc, Settings) from exc


def _merged(data: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(data)
    for key, value in overrides.items():
        below = merged.get(key)
        nested = (
            isinstance(value, Mapping) and isinstance(below, dict) and key != "path_instructions"
        )
        merged[key] = _merged(below, value) if nested else value  # type: ignore[arg-type]
    return merged


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
                "they count once, so they add cost but no independent opinion"
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
