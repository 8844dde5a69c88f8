"""The base of every settings model: frozen, unknown keys refused, never copied with an update.

`model_copy(update=...)` skips validation, so a misspelt key or a wrong type would pass
silently; settings are layered by `settings.config.layered` (the merged whole validated)
or built again with `model_validate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    # A field's docstring is its description: the configuration reference reads it
    # (settings/reference.py).
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """Refused with an update: it would accept a misspelt key or a wrong type silently."""
        if update:
            raise TypeError(f"{type(self).__name__} is layered with layered(), not model_copy")
        return super().model_copy(deep=deep)
