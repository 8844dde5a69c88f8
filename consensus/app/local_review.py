"""`consensus review` behind its face: the diff of a branch, a file or stdin, and its job.

The face (cli/review.py) parses its flags into a `LocalRequest`; `prepare_local` reads the
configuration and the saved workflow, layers the flags on top (validated as a whole),
reads the diff, and prepares the ReviewJob with the same `prepare_job` as the Action
(which ingests it). What is left to the face: running it, printing the report, the exit code.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consensus.app.jobs import JobRequest, RawDiff, prepare_job
from consensus.app.services import Services
from consensus.app.wiring import (
    branch_diff,
    default_base,
    gitattributes,
    guidelines_source,
    local_base_source,
    local_source,
    local_trees,
)
from consensus.errors import DiffError, UsageError
from consensus.model.diff import ReviewDiff
from consensus.model.report import Report
from consensus.ports import Analyzers, Log, SourceReader, TreeReader
from consensus.review.guidelines import Guidelines, collect_guidelines
from consensus.review.job import ReviewJob
from consensus.review.pipeline import nothing_to_review, run_id_for
from consensus.settings.calibration_file import with_local_calibration
from consensus.settings.config import ProviderSettings, Settings, layered, load_config
from consensus.settings.personas import Persona, load_personas, select_personas
from consensus.settings.workflows import (
    WORKFLOW_DIR,
    Workflow,
    check_name,
    load_workflow_file,
    narrow_settings,
    reserved_names,
    unknown_workflow,
    workflow_files,
)

# `consensus review`'s preparation; its flags layer the same way for `consensus bench`.
__all__ = [
    "Flags",
    "LocalRequest",
    "Prepared",
    "configured_as",
    "prepare_local",
    "providers_for",
    "with_flags",
]


@dataclass(frozen=True)
class Flags:
    """The command line's choices over the configuration (None: not given)."""

    models: tuple[str, ...] | None = None
    personas: tuple[str, ...] | None = None
    threshold: float | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    verify: bool = True
    sarif: tuple[str, ...] = ()  # --sarif: SARIF files read as analyzers, after the config's


@dataclass(frozen=True)
class LocalRequest:
    """What `consensus review` was asked to review, and how."""

    root: Path
    config: Path | None = None
    diff_path: str | None = None  # a file, or "-" for stdin; None: git diff BASE...HEAD
    base: str | None = None
    head: str | None = None
    workflow: str | None = None
    flags: Flags = Flags()

    def source(self) -> SourceReader | None:
        """Where verifiers read the code around a finding."""
        return local_source(self.root, self.head, from_diff_file=self.diff_path is not None)

    def trees(self) -> TreeReader | None:
        """The trees the judges read, when a commit holds what is reviewed."""
        return local_trees(
            self.root, self.base, self.head, from_diff_file=self.diff_path is not None
        )

    def analyzers(self, settings: Settings, services: Services) -> Analyzers | None:
        """The analyzers and SARIF files `settings` name, on the head (the working tree or
        `--head`) against the merge base; None when it names none."""
        from_file = self.diff_path is not None
        base = local_base_source(self.root, self.base, self.head, from_diff_file=from_file)
        return services.analyzers(settings, self.root, self.source(), base, True)


@dataclass(frozen=True)
class Prepared:
    """The ingested diff under its layered settings; the job, when there is one to run."""

    diff: ReviewDiff
    settings: Settings
    workflow: Workflow | None
    job: ReviewJob | None

    def nothing_to_review(self, log: Log) -> Report:
        """The report of a diff without a reviewable file: no model is called."""
        diff, settings, workflow = self.diff, self.settings, self.workflow
        count = len(diff.skipped)
        log(f"Nothing to review: no changed file can be sent to a model ({count} skipped).")
        run_id = run_id_for(diff, settings, (), workflow)
        return nothing_to_review(diff, settings=settings, run_id=run_id, workflow=workflow)


def prepare_local(request: LocalRequest, services: Services, *, always: bool = False) -> Prepared:
    """Settings, diff and job for `request`. No job when no file can be reviewed, unless
    `always` (a dry run plans even an empty review)."""
    root = request.root
    loaded = with_local_calibration(load_config(request.config, root=root), root)
    workflow = load_workflow_at(root, request.workflow) if request.workflow else None
    settings = narrow_settings(workflow, loaded.settings) if workflow else loaded.settings
    settings = with_flags(settings, request.flags)
    job_request = JobRequest(
        settings=settings,
        providers=lambda: providers_for(settings, request.flags.models, services),
        personas=lambda chosen, source: _personas(root, chosen, source),
        personas_from="--personas" if request.flags.personas else loaded.source,
        guidelines=lambda chosen: _guidelines(request, chosen),
        label=label(request),
        workflow=workflow,
        verify=request.flags.verify,
        personas_flagged=request.flags.personas is not None,
        skip_empty=not always,
    )
    raw = RawDiff(read_diff(request), gitattributes=gitattributes(root))
    job = prepare_job(raw, job_request, services.keys, services.log)
    skipped = not job.diff.files and not always
    return Prepared(job.diff, settings, workflow, None if skipped else job)


def with_flags(settings: Settings, flags: Flags) -> Settings:
    """The settings with the command line's flags on top, validated as a whole."""
    update: dict[str, Any] = {}
    if flags.personas:
        update["personas"] = flags.personas
    if flags.threshold is not None:
        update["threshold"] = flags.threshold
    budget: dict[str, Any] = {}
    if flags.max_cost is not None:
        budget["max_cost_usd"] = flags.max_cost
    if flags.max_tokens is not None:
        budget["max_tokens"] = flags.max_tokens
    if budget:
        update["budget"] = budget
    if flags.sarif:
        configured = [s.model_dump(mode="json") for s in settings.sarif]
        update["sarif"] = [*configured, *({"path": path} for path in flags.sarif)]
    return layered(settings, update, source="the command line")


def providers_for(
    settings: Settings, models: tuple[str, ...] | None, services: Services
) -> tuple[ProviderSettings, ...]:
    """--models, else the configured providers, else every keyed one and a local Ollama."""
    if models:
        return tuple(p for m in models for p in configured_as(settings, m))
    return services.keys.local_providers(settings)


def configured_as(settings: Settings, name: str) -> tuple[ProviderSettings, ...]:
    """The providers .consensus.yml configures as `name`, with their endpoint, key variable,
    family and limits: by model string, else by the model's name without its route
    (`gpt-test` for `openai/gpt-test`); a name it does not configure is a new provider."""
    exact = tuple(p for p in settings.providers if p.model == name)
    bare = tuple(p for p in settings.providers if p.model.split("/", 1)[-1] == name)
    return exact or bare or (ProviderSettings(model=name),)


def _personas(root: Path, settings: Settings, source: str) -> list[Persona]:
    available = load_personas([root / d for d in settings.persona_dirs])
    return select_personas(available, settings.personas, source=source)


def _guidelines(request: LocalRequest, settings: Settings) -> Guidelines:
    reader = guidelines_source(
        request.root, request.base, from_diff_file=request.diff_path is not None
    )
    return collect_guidelines(reader.read, settings.context, settings.redact)


def load_workflow_at(root: Path, name: str) -> Workflow:
    """The workflow NAME of the repository at `root`; a ConfigError naming what is there."""
    check_name(name, path="--workflow")  # a name, never a path
    directory = root / WORKFLOW_DIR
    path = directory / f"{name}.md"
    if not path.is_file():
        known = [p.stem for p in workflow_files(directory)]
        raise unknown_workflow(name, known, where=f"--workflow {name}")
    return load_workflow_file(path, reserved=reserved_names(), shown=str(path.relative_to(root)))


def read_diff(request: LocalRequest) -> bytes:
    """The diff file, stdin, or `git diff BASE...HEAD`."""
    diff_path, base, head = request.diff_path, request.base, request.head
    if diff_path is not None:
        if base or head:
            raise UsageError(
                "--diff cannot be combined with --base/--head", fix="use one or the other"
            )
        if diff_path == "-":
            return sys.stdin.buffer.read()
        path = Path(diff_path)
        if not path.is_file():
            raise UsageError(f"--diff {diff_path}: no such file")
        return path.read_bytes()
    return branch_diff(request.root, base, head)


def label(request: LocalRequest) -> str:
    """What a run reviewed, in words, for `consensus runs`."""
    if request.diff_path is not None:
        return "diff from stdin" if request.diff_path == "-" else f"diff {request.diff_path}"
    where = request.root.name
    try:  # the branch the diff was taken against, named
        base = request.base or default_base(request.root)
    except DiffError:
        base = "default branch"
    return f"{where}: {base}...{request.head or 'working tree'}"
