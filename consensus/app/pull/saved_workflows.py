"""A pull request's saved review workflows, read from its BASE commit through the PullReader
port, like the configuration and the personas: a PR cannot add, rewrite or redirect the
workflow that reviews it."""

from __future__ import annotations

from dataclasses import dataclass, field

from consensus.errors import ConfigError
from consensus.ports import PullReader, PullRequestInfo
from consensus.settings.workflows import (
    NAME_PATTERN,
    WORKFLOW_DIR,
    Workflow,
    check_name,
    parse_workflow,
    reserved_names,
    unknown_workflow,
)


@dataclass(frozen=True)
class BaseWorkflows:
    """Every workflow file of the base commit: the valid ones, and why the others are not."""

    found: dict[str, Workflow] = field(default_factory=dict)
    broken: dict[str, ConfigError] = field(default_factory=dict)  # name → its error

    @property
    def names(self) -> list[str]:
        return sorted({*self.found, *self.broken})


def workflow_names(host: PullReader, info: PullRequestInfo) -> list[str]:
    """The names of the workflow files on the base commit (no file is read)."""
    entries = host.list_dir(WORKFLOW_DIR, info.base_sha) or []
    stems = [e[: -len(".md")] for e in entries if e.endswith(".md") and e.lower() != "readme.md"]
    return sorted(stem for stem in stems if NAME_PATTERN.match(stem))


def base_workflow(host: PullReader, info: PullRequestInfo, name: str) -> Workflow:
    """Workflow `name` of the base commit; a ConfigError naming the file and key when it is
    broken, or listing the workflows there (with a near miss) when it does not exist."""
    check_name(name, path=f"workflow '{name}'")
    path = f"{WORKFLOW_DIR}/{name}.md"
    text = host.read_file(path, info.base_sha)
    if text is None:
        where = f"{WORKFLOW_DIR} (base branch {info.base_ref or info.base_sha[:12]})"
        raise unknown_workflow(name, workflow_names(host, info), where=where)
    return parse_workflow(text, path=path, reserved=reserved_names())


def base_workflows(host: PullReader, info: PullRequestInfo) -> BaseWorkflows:
    """Every workflow of the base commit; a broken file is kept with its error, so a help
    listing can name it without the others failing."""
    result = BaseWorkflows()
    reserved = reserved_names()
    for name in workflow_names(host, info):
        path = f"{WORKFLOW_DIR}/{name}.md"
        text = host.read_file(path, info.base_sha)
        if text is None:
            continue
        try:
            result.found[name] = parse_workflow(text, path=path, reserved=reserved)
        except ConfigError as exc:
            result.broken[name] = exc
    return result
