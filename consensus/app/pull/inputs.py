"""What a run on a pull request reads before it reviews: the base branch's settings,
personas, guidelines and learnings (never the head's), and whether the PR is reviewed at all (skip
rules, dependency bots without secrets, forks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from consensus.app.services import ActionsRunner, ProviderKeys
from consensus.errors import ConfigError
from consensus.ports import Log, PullReader, PullRequestInfo
from consensus.review.guidelines import Guidelines, collect_guidelines
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.calibration_file import with_calibration_file, with_learned_calibration
from consensus.settings.config import (
    Settings,
    layered,
    parse_settings,
)
from consensus.settings.learned import LEARNED_PATH, Learned, parse_learned
from consensus.settings.personas import Persona, load_personas, parse_persona, select_personas
from consensus.settings.scope import DEPENDENCY_BOTS, GUIDELINE_FILES

# The base branch's readers, for every flow on a pull request.
__all__ = [
    "BaseFiles",
    "base_guidelines",
    "base_learned",
    "base_settings",
    "fork_setup_link",
    "not_reviewed",
    "repository_personas",
]

FORK_SETUP = "#fork-pull-requests"


class BaseFiles:
    """Files of the BASE commit: the ones every review reads (the config, .gitattributes, the
    default guideline files) fetched together in one GraphQL request, others as asked for."""

    def __init__(self, host: PullReader, sha: str, first: Sequence[str]) -> None:
        self._host, self._sha = host, sha
        self._known: dict[str, str | None] = dict(host.read_files(first, sha)) if first else {}

    @classmethod
    def for_review(cls, host: PullReader, info: PullRequestInfo, inputs: ActionInputs) -> BaseFiles:
        first = [inputs.config, ".gitattributes", LEARNED_PATH, *GUIDELINE_FILES]
        return cls(host, info.base_sha, first)

    def read(self, path: str) -> str | None:
        if path not in self._known:
            self._known[path] = self._host.read_file(path, self._sha)
        return self._known[path]

    def read_many(self, paths: Sequence[str]) -> dict[str, str | None]:
        missing = [p for p in paths if p not in self._known]
        if missing:
            self._known.update(self._host.read_files(missing, self._sha))
        return {p: self._known[p] for p in paths}


def base_settings(
    host: PullReader,
    info: PullRequestInfo,
    inputs: ActionInputs,
    files: BaseFiles | None = None,
) -> Settings:
    """The configuration of the BASE commit: a PR cannot rewrite who reviews it, or how."""
    files = files or BaseFiles(host, info.base_sha, ())
    text = files.read(inputs.config)
    source = f"{inputs.config} (base branch {info.base_ref or info.base_sha[:12]})"
    settings = parse_settings(text, source=source) if text is not None else Settings()
    settings = with_calibration_file(settings, files.read, source)
    settings = with_learned_calibration(settings, files.read)  # when none is configured
    update: dict[str, Any] = {}
    if inputs.min_severity is not None:
        update["min_severity"] = inputs.min_severity
    if inputs.max_inline_comments is not None:
        update["max_inline_comments"] = inputs.max_inline_comments
    overrides: dict[str, Any] = {"publish": update}
    if inputs.analyzer_sarif_paths:  # after the configuration's own SARIF files
        configured = [s.model_dump(mode="json") for s in settings.sarif]
        overrides["sarif"] = [*configured, *({"path": p} for p in inputs.analyzer_sarif_paths)]
    return layered(settings, overrides, source="the action's inputs")


def base_learned(files: BaseFiles, log: Log) -> Learned:
    """`.consensus/learned.yml` of the BASE commit (read in the same request as the config);
    a broken file is reported and ignored: the review runs as if it were absent."""
    text = files.read(LEARNED_PATH)
    if text is None:
        return Learned()
    try:
        return parse_learned(text, source=f"{LEARNED_PATH} (base branch)")
    except ConfigError as exc:
        log(f"warning: {exc.message}: ignored")
        return Learned()


def not_reviewed(
    settings: Settings, info: PullRequestInfo, keys: ProviderKeys, *, event: str, log: Log
) -> bool:
    """The base branch's `ignore` rules, and dependency-bot PRs whose run has no secrets."""
    why = settings.ignore.reason(author=info.author, labels=info.labels, title=info.title)
    if why is not None:
        log(f"PR #{info.number} is not reviewed: {why} (.consensus.yml on the base branch).")
        return True
    bot = info.author
    if event == "pull_request" and bot in DEPENDENCY_BOTS and keys.none_usable(settings):
        log(
            f"PR #{info.number} was opened by {bot} and this pull_request run has no "
            f"provider key{_bot_secrets(bot)}: nothing was reviewed. To skip its PRs "
            f"quietly, list {bot} under ignore.authors in .consensus.yml."
        )
        return True
    return False


def _bot_secrets(author: str) -> str:
    if author.startswith("dependabot"):
        return (
            " (GitHub gives runs that Dependabot triggers only Dependabot secrets: add the "
            "provider keys there to review its PRs)"
        )
    return " (give the workflow the provider keys to review its PRs)"


def base_guidelines(
    host: PullReader, info: PullRequestInfo, settings: Settings, files: BaseFiles | None = None
) -> Guidelines:
    """The repository's guidelines from the BASE commit (at most one request), redacted and
    capped."""
    context = settings.context
    wanted = context.guidelines if context.max_chars else ()
    files = files or BaseFiles(host, info.base_sha, ())
    found = files.read_many(wanted) if wanted else {}
    return collect_guidelines(found.get, context, settings.redact)


def fork_setup_link(runner: ActionsRunner) -> str:
    if runner.action_repository:
        return f"{runner.server_url}/{runner.action_repository}{FORK_SETUP}"
    return f"docs/action.md, 'Fork pull requests' ({FORK_SETUP})"


def repository_personas(
    host: PullReader, info: PullRequestInfo, settings: Settings, *, source: str = ""
) -> list[Persona]:
    available = load_personas([])
    for directory in settings.persona_dirs:
        for name in host.list_dir(directory.strip("/"), info.base_sha) or []:
            if not name.endswith(".md") or name.lower() == "readme.md":
                continue
            path = f"{directory.strip('/')}/{name}"
            text = host.read_file(path, info.base_sha)
            if text is not None:
                persona = parse_persona(text, path=path, source=f"{path} (base branch)")
                available[persona.id] = persona
    return select_personas(available, settings.personas, source=source or f"{info.base_ref} config")
