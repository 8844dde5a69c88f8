"""One way from what a face asks to the ReviewJob a review decides from.

`consensus review`, the Action (a push, `/consensus review`, a saved workflow), the bench
and the demo each say what they review (`RawDiff`: the diff as they read it) and where
their providers, personas and guidelines come from (`JobRequest`); `prepare_job` does the
rest the same way for all of them. The diff is made what a review sees in one order
(`review_diff`: parsed, path-filtered and redacted, the files its source set aside added,
long hunks cut); a diff with nothing to review asks nothing more when the face skips it;
the workflow narrows the providers, duplicate models and missing keys are warned about,
the personas are chosen, verification is on unless the workflow or the flag turns it off,
and the run is labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from consensus.app.services import ProviderKeys, unknown_models_error
from consensus.ingest.chunking import split_large_hunks
from consensus.ingest.review_diff import ingest
from consensus.model.diff import ReviewDiff, SkippedFile
from consensus.ports import Log
from consensus.review.guidelines import Guidelines
from consensus.review.job import ReviewJob
from consensus.settings.config import ProviderSettings, Settings, duplicate_model_warnings
from consensus.settings.personas import Persona
from consensus.settings.workflows import VerifyMode, Workflow, narrow_providers

# (settings, where the persona list comes from) → the chosen personas
PersonaReader = Callable[[Settings, str], Sequence[Persona]]


@dataclass(frozen=True)
class RawDiff:
    """A diff as a face read it, before anything is made of it: its text, the repository's
    .gitattributes (generated and vendored files), the files its source set aside with the
    reason (a PR's omitted patches), and whether the settings' path filters apply (False:
    labelled claims name their own paths)."""

    text: bytes | str
    gitattributes: str = ""
    skipped: tuple[SkippedFile, ...] = ()
    filtered: bool = True


def review_diff(raw: RawDiff, settings: Settings) -> ReviewDiff:
    """The one way a diff becomes what a review (and a judge) sees: ingested under
    `settings` (parsed, path-filtered, redacted), with what its source set aside, then its
    long hunks cut so that what a model is sent fits a prompt."""
    selected = {"include": settings.paths, "exclude": settings.exclude} if raw.filtered else {}
    diff = ingest(
        raw.text, redact_patterns=settings.redact, gitattributes=raw.gitattributes, **selected
    )
    if raw.skipped:
        diff = ReviewDiff.model_validate({**dict(diff), "skipped": (*diff.skipped, *raw.skipped)})
    return split_large_hunks(diff)


@dataclass(frozen=True)
class JobRequest:
    """What a face asks to review. `settings` are layered already (the base configuration,
    the workflow's narrowing, the face's inputs or flags); `providers` are the ones they
    name, before the workflow narrows them (asked for only when there is something to
    review, or the face does not skip an empty diff)."""

    settings: Settings
    providers: Callable[[], Sequence[ProviderSettings]]
    personas: PersonaReader
    personas_from: str  # where the persona list comes from, for its errors
    guidelines: Callable[[Settings], Guidelines]
    label: str  # what is reviewed, in words, for `consensus runs`
    workflow: Workflow | None = None
    verify: bool = True  # False: --no-verify
    personas_flagged: bool = False  # --personas names them: the workflow's choice is not used
    # A diff with no file to review asks no provider, persona or guideline (`consensus
    # review`: it reports what was skipped and calls nothing).
    skip_empty: bool = False


def prepare_job(raw: RawDiff, request: JobRequest, keys: ProviderKeys, log: Log) -> ReviewJob:
    """The review job of `raw` as `request` asks, warning about what will not be called."""
    diff = review_diff(raw, request.settings)
    if not diff.files and request.skip_empty:
        return ReviewJob(diff=diff, settings=request.settings, providers=(), personas=())
    settings, providers, workflow = request.settings, tuple(request.providers()), request.workflow
    if workflow is not None:
        settings, providers = narrow_providers(workflow, settings, providers)
    unknown = keys.unknown(providers)
    if unknown:  # no call to them could be routed: refused before anything is planned or sent
        raise unknown_models_error(unknown)
    for warning in duplicate_model_warnings(providers):
        log(f"warning: {warning}")
    unavailable = keys.unavailable(providers)
    for model, why in unavailable.items():
        log(f"warning: {model} will not be called: {why}")
    chosen_by_workflow = workflow is not None and workflow.personas and not request.personas_flagged
    source = workflow.path if chosen_by_workflow and workflow else request.personas_from
    return ReviewJob(
        diff=diff,
        settings=settings,
        providers=providers,
        personas=tuple(request.personas(settings, source)),
        unavailable=unavailable,
        verify=request.verify and (workflow is None or workflow.verify is not VerifyMode.NONE),
        label=request.label + (f" (workflow {workflow.name})" if workflow else ""),
        workflow=workflow,
        guidelines=request.guidelines(settings),
    )
