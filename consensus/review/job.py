"""The review job: everything a review decides from, stored in the journal so a replay reruns it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from consensus.model.base import Frozen
from consensus.model.diff import ReviewDiff
from consensus.model.urls import without_userinfo
from consensus.review.budget import Ceiling
from consensus.review.guidelines import Guidelines
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import Persona
from consensus.settings.workflows import Workflow

INPUTS_VERSION = 1


class ReviewJob(Frozen):
    """Everything a review decides from; stored in the journal so a replay can rerun it.
    Built by one function for every face (app/jobs.py `prepare_job`)."""

    diff: ReviewDiff
    settings: Settings
    providers: tuple[ProviderSettings, ...]
    personas: tuple[Persona, ...]
    unavailable: dict[str, str] = Field(default_factory=dict)  # model → why it is not called
    verify: bool = True
    label: str = ""
    workflow: Workflow | None = None  # a saved workflow: its instructions and its name
    # Read from the base branch, redacted, capped (review/guidelines.py).
    guidelines: Guidelines = Guidelines()
    # The most this run may spend whatever its caps (what is left of the PR's budget).
    ceiling: Ceiling | None = None

    def with_diff(self, diff: ReviewDiff) -> ReviewJob:
        """The same job on another diff (the files whose decisions are not carried)."""
        return ReviewJob.model_validate({**dict(self), "diff": diff})

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": INPUTS_VERSION,
                "diff": self.diff.model_dump(mode="json"),
                "settings": _stored(self.settings.model_dump(mode="json")),
                "providers": [_stored_provider(p.model_dump(mode="json")) for p in self.providers],
                "personas": [p.model_dump(mode="json") for p in self.personas],
                "unavailable": dict(self.unavailable),
                "verify": self.verify,
                "label": self.label,
                "workflow": self.workflow.model_dump(mode="json") if self.workflow else None,
                "guidelines": self.guidelines.model_dump(mode="json"),
                "ceiling": self.ceiling.model_dump(mode="json") if self.ceiling else None,
            }
        )

    def with_endpoints_of(self, live: Sequence[ProviderSettings]) -> ReviewJob:
        """This job (read back from the journal, its URLs without userinfo) with the
        credentials of the `live` configuration's endpoints put back where the endpoint is
        the same: a resumed run reaches its providers as the first attempt did."""
        endpoints = {
            (p.model, without_userinfo(p.api_base)): p.api_base for p in live if p.api_base
        }

        def restored(provider: ProviderSettings) -> dict[str, Any]:
            data = provider.model_dump()
            key = (provider.model, provider.api_base or "")
            data["api_base"] = endpoints.get(key, provider.api_base)
            return data

        settings = self.settings.model_dump()
        settings["providers"] = [restored(p) for p in self.settings.providers]
        return ReviewJob.model_validate(
            {
                **dict(self),
                "settings": Settings.model_validate(settings),
                "providers": tuple(
                    ProviderSettings.model_validate(restored(p)) for p in self.providers
                ),
            }
        )

    def decision_inputs(self) -> str:
        """What decides findings besides the diff: a run with the same inputs on the same code
        may carry the earlier run's decisions (publish/carry.py). Where and how much is posted,
        the budget, the concurrency and the other runs' settings decide nothing here."""
        unused = {"budget", "concurrency", "publish", "queue", "commands", "ignore"}
        return json.dumps(
            {
                "version": INPUTS_VERSION,
                "settings": self.settings.model_dump(mode="json", exclude=unused),
                "providers": [p.model_dump(mode="json") for p in self.providers],
                "personas": [p.model_dump(mode="json") for p in self.personas],
                "unavailable": sorted(self.unavailable),
                "verify": self.verify,
                "workflow": self.workflow.model_dump(mode="json", exclude={"budget"})
                if self.workflow
                else None,
                "guidelines": self.guidelines.model_dump(mode="json"),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> ReviewJob:
        data: dict[str, Any] = json.loads(text)
        return cls(
            diff=ReviewDiff.model_validate(data["diff"]),
            settings=Settings.model_validate(data["settings"]),
            providers=tuple(ProviderSettings.model_validate(p) for p in data["providers"]),
            personas=tuple(Persona.model_validate(p) for p in data["personas"]),
            unavailable=data["unavailable"],
            verify=bool(data["verify"]),
            label=str(data["label"]),
            workflow=Workflow.model_validate(data["workflow"]) if data.get("workflow") else None,
            guidelines=Guidelines.model_validate(data.get("guidelines") or {}),
            ceiling=Ceiling.model_validate(data["ceiling"]) if data.get("ceiling") else None,
        )


def _stored_provider(provider: dict[str, Any]) -> dict[str, Any]:
    """A provider as the journal keeps it: its endpoint without user and password."""
    if provider.get("api_base"):
        return {**provider, "api_base": without_userinfo(provider["api_base"])}
    return provider


def _stored(settings: dict[str, Any]) -> dict[str, Any]:
    return {**settings, "providers": [_stored_provider(p) for p in settings["providers"]]}
