"""The configuration reference is generated from the settings models, so it cannot drift:
every key the loader accepts is in it, with a description, and the documentation's
configuration page is where the build puts it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from consensus.settings.config import Settings
from consensus.settings.reference import MARKER, OPAQUE, keys, settings_reference

ROOT = Path(__file__).resolve().parents[2]


def every_field(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every key of `model` and the sections below it, walked apart from the generator."""
    found = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        found.append(key)
        for member in (field.annotation, *getattr(field.annotation, "__args__", ())):
            inner = getattr(member, "__args__", (member,))
            for candidate in (member, *inner):
                if (
                    isinstance(candidate, type)
                    and issubclass(candidate, BaseModel)
                    and name not in OPAQUE
                ):
                    found += every_field(candidate, f"{key}.")
    return sorted(set(found))


def test_every_settings_field_is_in_the_reference() -> None:
    reference = settings_reference()
    missing = [key for key in every_field(Settings) if f"| `{key}` |" not in reference]
    assert missing == []


def test_every_key_has_a_description() -> None:
    undescribed = [key for key, field in keys() if not (field.description or "").strip()]
    assert undescribed == []


def test_the_reference_shows_types_and_defaults_as_a_file_writes_them() -> None:
    reference = settings_reference()
    assert "| `threshold` | number (0 to 1) | `0.75` |" in reference  # with its bounds
    assert "| `inspector.voters` | list of text (at most 16) | `[]` |" in reference
    assert '| `inspector.rule` | `weighed` \\| `ahead-by-k` | `"weighed"` |' in reference
    assert "| `providers.model` | text | required |" in reference


def test_the_configuration_page_is_where_the_build_puts_it() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page.count(MARKER) == 1
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "docs/_hooks/reference.py" in mkdocs and "strict: true" in mkdocs
