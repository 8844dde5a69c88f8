"""Settings layer one way: the merged whole is validated, so a mistake in any layer (a
workflow's narrowing, the Action's inputs, the command line's flags) names its field."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from pydantic import BaseModel

import consensus.settings
from consensus.errors import ConfigError
from consensus.model.base import Severity
from consensus.settings.config import BudgetSettings, Settings, layered
from consensus.settings.strict import Strict


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


def _settings_models() -> list[type[BaseModel]]:
    """Every pydantic model the settings modules define (the front matter readers too)."""
    found: dict[str, type[BaseModel]] = {}
    for info in pkgutil.iter_modules(consensus.settings.__path__):
        module = importlib.import_module(f"consensus.settings.{info.name}")
        for value in vars(module).values():
            defined_here = getattr(value, "__module__", "") == module.__name__
            if isinstance(value, type) and issubclass(value, BaseModel) and defined_here:
                found[f"{module.__name__}.{value.__name__}"] = value
    return [found[name] for name in sorted(found)]


SETTINGS_MODELS = _settings_models()


def test_the_settings_modules_are_searched_for_models() -> None:
    names = {model.__name__ for model in SETTINGS_MODELS}
    assert {"Settings", "BudgetSettings", "Learned", "Workflow", "CommandSpec"} <= names
    assert len(SETTINGS_MODELS) >= 20


@pytest.mark.parametrize(
    "model", SETTINGS_MODELS, ids=lambda model: f"{model.__module__}.{model.__name__}"
)
def test_every_settings_model_refuses_model_copy_with_an_update(model: type[BaseModel]) -> None:
    assert issubclass(model, Strict)
    unchecked = model.model_construct()  # the refusal does not depend on the values
    with pytest.raises(TypeError, match="not model_copy"):
        unchecked.model_copy(update={"a_misspelt_key": 1})
    assert unchecked.model_copy() is not unchecked  # a plain copy is still allowed
