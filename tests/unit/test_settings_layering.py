"""Settings layer one way: the merged whole is validated, so a mistake in any layer (a
workflow's narrowing, the Action's inputs, the command line's flags) names its field."""

from __future__ import annotations

import pytest

from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.settings.config import BudgetSettings, Settings, layered


def test_a_layer_overrides_a_section_key_by_key() -> None:
    base = Settings(budget=BudgetSettings(max_cost_usd=5.0, max_tokens=1_000))
    settings = layered(base, {"budget": {"max_cost_usd": 1.5}, "threshold": 0.5}, source="flags")
    assert settings.budget == BudgetSettings(max_cost_usd=1.5, max_tokens=1_000)
    assert settings.threshold == 0.5
    assert settings.publish == base.publish


def test_a_misspelt_key_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError) as caught:
        layered(Settings(), {"publish": {"min_severty": "high"}}, source="the action's inputs")
    assert caught.value.key == "publish.min_severty"
    assert "did you mean 'min_severity'" in str(caught.value)
    assert "the action's inputs" in str(caught.value)


def test_a_wrong_type_is_an_error_naming_the_field() -> None:
    with pytest.raises(ConfigError) as caught:
        layered(Settings(), {"threshold": "most"}, source="the command line")
    assert caught.value.key == "threshold"
    assert "'most'" in str(caught.value)


def test_a_value_out_of_range_in_a_section_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError) as caught:
        layered(Settings(), {"budget": {"max_cost_usd": -1}}, source="the command line")
    assert caught.value.key == "budget.max_cost_usd"


def test_settings_refuse_model_copy_with_an_update() -> None:
    with pytest.raises(TypeError, match="layered"):
        Settings().publish.model_copy(update={"min_severty": Severity.HIGH})
