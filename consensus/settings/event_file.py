"""A CI host's event file read as its payload model: what GitHub's runner wrote for a step
(`GITHUB_EVENT_PATH`) and what a webhook sent GitLab's trigger (`TRIGGER_PAYLOAD`). Both
faces read it the same way, with a UsageError naming the variable, the file and the
field. The payload is untrusted (model/events.py, model/gitlab_events.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from consensus.errors import UsageError

P = TypeVar("P", bound=BaseModel)


def read_event_file(variable: str, path: Path) -> object:
    """The file's JSON; a UsageError naming `variable` and the file when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{variable} {path}: cannot read the event: {exc}") from exc


def event_payload(model: type[P], data: object, *, invalid: str, fix: str) -> P:
    """`data` as `model`; otherwise a UsageError saying `invalid` (what the file is not)
    and the first field that is wrong."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(the payload)"
        raise UsageError(f"{invalid}: {where}: {first['msg']}", fix=fix) from exc
