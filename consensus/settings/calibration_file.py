"""A `calibration: path` in the configuration, read with it (docs/calibration.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml
from pydantic import ValidationError

from consensus.errors import ConfigError
from consensus.model.calibration import Calibration
from consensus.settings.config import LoadedConfig, Settings, layered
from consensus.settings.learned import LEARNED_PATH, learned_calibration, parse_learned


def with_local_calibration(loaded: LoadedConfig, root: Path) -> LoadedConfig:
    """`loaded` with its calibration file (or the learnings) read from the repository at
    `root`."""
    settings = with_calibration_file(loaded.settings, lambda name: read_under(root, name),
                                     loaded.source)  # fmt: skip
    settings = with_learned_calibration(settings, lambda name: read_under(root, name))
    return LoadedConfig(settings=settings, source=loaded.source)


def with_learned_calibration(settings: Settings, read: Callable[[str], str | None]) -> Settings:
    """`settings` knowing what `.consensus/learned.yml` holds (what maintainers decided on
    closed PRs, what those PRs' runs estimated of the panel), added to a calibration the
    configuration names (read first: `with_calibration_file`). A broken file changes
    nothing here (the review reports it where it reads the suppressions)."""
    text = read(LEARNED_PATH)
    try:
        learned = parse_learned(text) if text is not None else None
    except ConfigError:
        return settings
    calibration = learned_calibration(learned) if learned is not None else None
    if calibration is None or not (calibration.families or calibration.history):
        return settings
    if isinstance(settings.calibration, Calibration):
        calibration = settings.calibration.with_knowledge(calibration)
    return layered(settings, {"calibration": calibration.model_dump()}, source=LEARNED_PATH)


def read_under(root: Path, name: str) -> str | None:
    path = root / name
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def with_calibration_file(
    settings: Settings, read: Callable[[str], str | None], source: str
) -> Settings:
    """`settings` with a `calibration: path` replaced by the calibration that file holds
    (read by `read`, relative to the repository root); unchanged when it is not a path."""
    name = settings.calibration
    if not isinstance(name, str):
        return settings
    text = read(name)
    if text is None:
        raise ConfigError(
            source, "calibration", f"names {name!r}, which is not in the repository",
            fix="write it with `consensus calibrate --labels FILE`, or remove the key",
        )  # fmt: skip
    try:
        data = yaml.safe_load(text)
        calibration = Calibration.model_validate(data)
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(
            name, None, f"is not a calibration file ({str(exc).splitlines()[0]})",
            fix="see docs/calibration.md for the format",
        ) from exc  # fmt: skip
    return layered(settings, {"calibration": calibration.model_dump()}, source=source)
