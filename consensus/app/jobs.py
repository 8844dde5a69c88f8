"""One way from what a face asks to the ReviewJob a review decides from.

`consensus review` and the Action (a push, `/consensus review`, a saved workflow) each
say what they review and where their personas and guidelines come from (`JobRequest`);
`prepare_job` does the rest the same way for all of them: the workflow narrows the
providers, duplicate models and missing keys are warned about, the personas are chosen,
verification is on unless the workflow or the flag turns it off, and the run is labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from consensus.app.services import ProviderKeys, unknown_models_error
from consensus.model.diff import ReviewDiff
from consensus.ports import Log
from consensus.review.guidelines import Guidelines
from consensus.review.job import ReviewJob
from consensus.settings.config import ProviderSettings, Settings, duplicate_model_warnings
from consensus.settings.personas import Persona
from consensus.settings.workflows import VerifyMode, Workflow, narrow_providers

# (settings, where the persona list comes from) → the chosen personas
PersonaReader = Callable[[Settings, str], Sequence[Persona]]


@dataclass(frozen=True)
class JobRequest:
    """What a face asks to review. `settings` are layered already (the base configuration,
    the workflow's narrowing, the face's inputs or flags); `providers` are the ones they
    name, before the workflow narrows them."""

    settings: Settings
    providers: tuple[ProviderSettings, ...]
    personas: PersonaReader
    personas_from: str  # where the persona list comes from, for its errors
    guidelines: Callable[[Settings], Guidelines]
    label: str  # what is reviewed, in words, for `consensus runs`
    workflow: Workflow | None = None
    verify: bool = True  # False: --no-verify
    personas_flagged: bool = False  # --personas names them: the workflow's choice is not used


def prepare_job(diff: ReviewDiff, request: JobRequest, keys: ProviderKeys, log: Log) -> ReviewJob:
    """The review job of `diff` as `request` asks, warning about what will not be called."""
    settings, providers, workflow = request.settings, request.providers, request.workflow
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
