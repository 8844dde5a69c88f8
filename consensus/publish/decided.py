"""What people decided about our findings, as the summary's state keeps it: a 👍/👎 on an
inline comment (`Label`) and what became of each posted finding when its PR closed
(`FindingOutcome`, with who reported and who judged it). Validated as they are read back,
like every field of the state (publish/state.py): fingerprints are hex, ids `F<n>`,
logins by GitHub's rules, free text bounded."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from consensus.model.base import Category, Frozen, VerdictKind
from consensus.render.untrusted import LOGIN

FINGERPRINT = r"^[0-9a-f]{8,64}(?:-\d{1,4})?$"
FINDING_ID = r"^F\d{1,5}$"
NAME = r"^\S{1,200}$"  # a family or persona: shown as code, never parsed
WHEN = r"^[0-9TZ:.+-]{0,40}$"  # ISO 8601 as GitHub writes it
MAX_LABELS = 200
MAX_OUTCOMES = 200
OutcomeKind = Literal["fixed", "dismissed", "left"]


class Label(Frozen):
    """A person's 👍 (+1) or 👎 (-1) on our inline comment of a finding, as read at a run."""

    fingerprint: str = Field(pattern=FINGERPRINT)
    content: Literal["+1", "-1"]
    by: str = Field(pattern=LOGIN)
    at: str = Field(default="", pattern=WHEN)


class JudgeNote(Frozen):
    family: str = Field(pattern=NAME)
    verdict: VerdictKind


class FindingOutcome(Frozen):
    """What became of a finding we posted, decided when the PR closed: fixed (no longer
    reported where its lines changed), dismissed (by command, reply or a maintainer's 👎),
    or left as it was; with who reported and who judged it, for the learnings."""

    fingerprint: str = Field(pattern=FINGERPRINT)
    id: str = Field(pattern=FINDING_ID)
    path: str = Field(max_length=4_096)
    category: Category | None = None
    title: str = Field(max_length=300)
    outcome: OutcomeKind
    families: tuple[Annotated[str, Field(pattern=NAME)], ...] = ()
    personas: tuple[Annotated[str, Field(pattern=NAME)], ...] = ()
    judges: tuple[JudgeNote, ...] = ()
    by: str = Field(default="", pattern=f"{LOGIN}|^$")
    reason: str = Field(default="", max_length=300)

    @property
    def credited(self) -> bool:
        """Does it name who reported the finding? Every posted finding has a reporting
        family (the scan's is `consensus`), so none means the reporters were not known at
        close: an earlier version lost them once the finding's record was gone."""
        return bool(self.families)
