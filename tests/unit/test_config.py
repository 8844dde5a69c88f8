"""`.consensus.yml`: every key optional, every mistake named with its fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from consensus.decide.panel_prior import ZERO, Beta, Verdicts
from consensus.decide.panel_rates import Observed, estimate, known_counts
from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.settings.calibration_file import with_local_calibration
from consensus.settings.config import (
    ProviderSettings,
    Settings,
    load_config,
    parse_settings,
    resolve_providers,
)

FULL_EXAMPLE = """
threshold: 0.75
min_providers: 2
paths: ["**"]
exclude: ["docs/**"]
providers:
  - model: openai/gpt-5.1
  - model: anthropic/claude-sonnet-4-5
  - model: ollama/qwen2.5-coder:14b
    api_base: http://localhost:11434
  - model: openai/my-model
    api_base: https://llm.internal/v1
    api_key_env: INTERNAL_LLM_KEY
    family: llama
    timeout_s: 120
    max_concurrency: 2
personas: [correctness, security, performance, maintainability]
persona_dirs: [.consensus/personas]
inspector:
  model: anthropic/claude-opus-4-1
  voters: [openai/gpt-5.1, anthropic/claude-sonnet-4-5]
  ahead_by: 2
  max_votes: 7
  check_consensus: false
  check_consensus_min_severity: high
verify_min_severity: medium
budget: {max_cost_usd: 2.00, max_tokens: 600000}
concurrency: 8
redact: [ "(?i)internal-token-[a-z0-9]+" ]
publish:
  max_inline_comments: 10
  min_severity: low
  request_changes_on: critical
queue:
  agents: ["copilot-swe-agent[bot]", "devin-ai-integration[bot]", "codex[bot]"]
  agent_label: agent
  max_in_review: 3
"""


def test_the_documented_example_parses() -> None:
    settings = parse_settings(FULL_EXAMPLE, source=".consensus.yml")
    assert settings.threshold == 0.75
    assert [p.model for p in settings.providers][:2] == [
        "openai/gpt-5.1",
        "anthropic/claude-sonnet-4-5",
    ]
    assert settings.providers[3].voting_family == "llama"
    assert settings.publish.request_changes_on is Severity.CRITICAL
    assert settings.budget.max_tokens == 600_000


def test_an_empty_file_means_defaults() -> None:
    assert parse_settings("", source=".consensus.yml") == Settings()


def test_severe_consensus_is_checked_from_high_unless_configured() -> None:
    assert Settings().inspector.check_consensus_min_severity is Severity.HIGH
    text = "inspector:\n  check_consensus_min_severity: Critical\n"
    with pytest.raises(ConfigError):  # strict like the other severities: lowercase only
        parse_settings(text, source=".consensus.yml")
    text = "inspector:\n  check_consensus_min_severity: medium\n"
    settings = parse_settings(text, source=".consensus.yml")
    assert settings.inspector.check_consensus_min_severity is Severity.MEDIUM


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("treshold: 0.8\n", "treshold", ["unknown key", "did you mean 'threshold'"]),
        ("threshold: high\n", "threshold", ["should be a number", "'high'", "between 0 and 1"]),
        ("threshold: 1.5\n", "threshold", ["should be at most 1"]),
        ("providers:\n  - modle: openai/gpt-5.1\n", "providers.0.modle", ["did you mean 'model'"]),
        ("publish:\n  request_changes_on: severe\n", "publish.request_changes_on", ["critical"]),
        ("budget: {max_cost: 3}\n", "budget.max_cost", ["did you mean 'max_cost_usd'"]),
        ("providers:\n  - model: x/y\n    api_key_env: sk-abc123\n", "api_key_env", ["NAME"]),
        ("redact: ['(unclosed']\n", "redact", ["not a valid regex"]),
        (
            "inspector:\n  check_consensus_min_severity: severe\n",
            "inspector.check_consensus_min_severity",
            ["one of critical, high, medium, low, info"],
        ),
        (
            "inspector:\n  check_consensus_severity: high\n",
            "inspector.check_consensus_severity",
            ["did you mean 'check_consensus_min_severity'"],
        ),
    ],
)
def test_a_mistake_names_the_file_the_key_and_the_fix(
    text: str, key: str, words: list[str]
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings(text, source="repo/.consensus.yml")
    message = str(raised.value)
    assert message.startswith("repo/.consensus.yml: ")
    assert key in message
    for word in words:
        assert word in message


def test_invalid_yaml_says_which_line() -> None:
    with pytest.raises(ConfigError, match="not valid YAML at line 2"):
        parse_settings("threshold: 0.5\npaths: [unclosed\n", source=".consensus.yml")


def test_a_list_at_the_top_is_refused() -> None:
    with pytest.raises(ConfigError, match="must be a mapping"):
        parse_settings("- a\n- b\n", source=".consensus.yml")


def test_config_is_found_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".consensus.yml").write_text("threshold: 0.5\n")
    loaded = load_config(None, root=tmp_path)
    assert loaded.settings.threshold == 0.5
    assert loaded.source.endswith(".consensus.yml")


def test_no_config_file_means_defaults(tmp_path: Path) -> None:
    loaded = load_config(None, root=tmp_path)
    assert loaded.source == "defaults"


def test_a_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.yml", root=tmp_path)


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(ValueError):
        settings.threshold = 0.1  # type: ignore[misc]


def test_providers_come_from_keys_in_the_environment() -> None:
    env = {"OPENAI_API_KEY": "sk-x", "ANTHROPIC_API_KEY": "sk-ant-y", "UNRELATED": "1"}
    providers = resolve_providers(Settings(), env)
    assert [p.model for p in providers] == ["openai/gpt-5.1", "anthropic/claude-sonnet-4-5"]


def test_a_local_ollama_joins_the_detected_providers() -> None:
    providers = resolve_providers(Settings(), {}, ollama_models=["qwen2.5-coder:14b"])
    assert providers == (
        ProviderSettings(model="ollama/qwen2.5-coder:14b", api_base="http://localhost:11434"),
    )


def test_configured_providers_win_over_the_environment() -> None:
    settings = parse_settings("providers:\n  - model: gemini/gemini-2.5-pro\n", source="c")
    providers = resolve_providers(settings, {"OPENAI_API_KEY": "sk-x"})
    assert [p.model for p in providers] == ["gemini/gemini-2.5-pro"]


def test_no_provider_at_all_says_exactly_what_to_set() -> None:
    with pytest.raises(ConfigError) as raised:
        resolve_providers(Settings(), {})
    message = str(raised.value)
    assert raised.value.exit_code == 2
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        assert key in message
    assert "Ollama" in message


def test_the_documented_configuration_block_is_a_valid_config() -> None:
    """Every key the configuration page's example shows is one the loader accepts."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    section = page.split("# Configuration: `.consensus.yml`", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    settings = parse_settings(block, source="docs/configuration.md")
    assert settings.ignore.authors == ("dependabot[bot]", "renovate[bot]")
    assert settings.ignore.reason(author="dev", labels=(), title="WIP: x") is not None


FAMILIES = ("openai", "anthropic", "google", "qwen")
CALIBRATION_YAML = """\
version: 1
families:
  openai:
    judge: {confirmed_real: 48, missed_real: 2, refuted_false: 9, confirmed_false: 41}
    reporter: {right: 30, wrong: 12}
"""


def test_a_calibration_inline_or_in_a_file_is_labels_the_estimate_starts_from(
    tmp_path: Path,
) -> None:
    inline = parse_settings("calibration:\n" + textwrap.indent(CALIBRATION_YAML, "  "),
                            source=".consensus.yml")  # fmt: skip
    known = known_counts(inline.judged_by())
    # Each labelled claim counts once: 48 real ones confirmed, 2 missed; 41 false ones
    # confirmed, 9 refuted.
    assert known.real_verdicts["openai"] == Verdicts(Beta(48, 2), ZERO)
    assert known.false_verdicts["openai"] == Verdicts(Beta(41, 9), ZERO)
    assert known.precision["openai"] == Beta(30, 12)
    assert known.labelled == {"openai": 100}
    (tmp_path / ".consensus").mkdir()
    (tmp_path / ".consensus" / "calibration.yml").write_text(CALIBRATION_YAML)
    config = tmp_path / ".consensus.yml"
    config.write_text("calibration: .consensus/calibration.yml\n")
    loaded = with_local_calibration(load_config(config, root=tmp_path), tmp_path)
    assert loaded.settings.judged_by() == inline.judged_by()


def test_a_calibration_file_that_is_missing_or_wrong_is_an_error_naming_it(tmp_path: Path) -> None:
    config = tmp_path / ".consensus.yml"
    config.write_text("calibration: .consensus/calibration.yml\n")
    with pytest.raises(ConfigError, match=r"calibration: names '.consensus/calibration.yml'"):
        with_local_calibration(load_config(config, root=tmp_path), tmp_path)
    (tmp_path / ".consensus").mkdir()
    (tmp_path / ".consensus" / "calibration.yml").write_text(
        CALIBRATION_YAML.replace("missed_real", "mised_real")
    )
    with pytest.raises(ConfigError, match=r"calibration.yml: is not a calibration file"):
        with_local_calibration(load_config(config, root=tmp_path), tmp_path)


def test_without_a_calibration_no_family_is_assumed_to_be_any_kind_of_judge() -> None:
    known = known_counts(Settings().judged_by())
    assert not known.real_verdicts and not known.false_verdicts and not known.labelled
    # With no vote cast, every family is the prior's judge: none is singled out.
    claim = Observed(reporters=frozenset({"openai"}), reviewers=frozenset(FAMILIES))
    panel = estimate([claim], known)
    judges = {(panel.family(f).real, panel.family(f).false) for f in FAMILIES}
    assert len(judges) == 1


@pytest.mark.parametrize(
    ("text", "said", "fix"),
    [
        (
            "personas: correctness\n",
            "personas: should be a list (got 'correctness')",
            "e.g. 'personas: [correctness, security]'",
        ),
        ("concurrency: lots\n", "concurrency: should be a whole number (got 'lots')", None),
        ("min_providers: 0\n", "min_providers: should be at least 1 (got 0)", None),
        ("inspector: {rule: majority}\n", "inspector.rule: should be one of 'weighed'", None),
        ("none: 1\n", "none: unknown key", "known keys here"),
    ],
)
def test_a_mistake_is_said_in_our_words_not_pydantics(
    text: str, said: str, fix: str | None
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, source=".consensus.yml")
    message = f"{caught.value}\n{caught.value.fix}"
    assert f".consensus.yml: {said}" in message
    assert "Input should" not in message and "valid tuple" not in message
    if fix is not None:
        assert fix in message
