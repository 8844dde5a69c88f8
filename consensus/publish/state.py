r"""The summary comment's hidden state: what any runner needs to answer for this PR.

The last line of the summary comment carries it, versioned, compressed, base64:

- v1: the reviewed head and the findings earlier runs published
  (`TrackedFinding`: fingerprint ↔ id, place, whether it went inline, resolved or not);
- v2 adds what slash commands need: `records` (every finding of the latest run, with
  the votes, providers, personas, members and verifier reasons behind it, for
  `explain` and `verify`), `dismissed` (fingerprint, who, why) and `paused`;
- v3 adds `workflows`: each saved review workflow's own head, tracked findings and
  records (`WorkflowState`), apart from the default review's, so that no run resolves
  another's findings. Dismissals stay shared: fingerprints have a namespace per workflow;
- v4 adds `decisions`: per reviewed file, a digest of the diff the models saw,
  the head it was decided on and how many records are its findings, with the digest of
  the settings that decided them. A later run on the same code carries those records as
  its decisions instead of asking the models again (publish/carry.py). Votes keep the
  voter's family and whether it judged its own claim, so a carried record reads as its run;
- v5 adds what people decided (publish/decided.py): `labels` (👍/👎 on our inline
  comments: who, when), a dismissal's `via` (command, reply) and `outcomes`, set when the
  PR closes: each finding we posted, fixed, dismissed or left, with who reported and
  judged it (publish/outcomes.py decides them);
- v6 keeps who reported and judged each tracked finding on the finding itself
  (`TrackedFinding.families`, `personas`, `judges`, and its `category`): a finding a
  push fixed is no longer among the latest run's records, and its outcome is still
  credited to its reporters;
- v7 adds `panel`: the soft counts the last run's estimate of its judges and reporters
  adds to the repository's history (model/history.py); the learnings pool it when the PR
  closes;
- v8 adds `TrackedFinding.refused`: why the host refused a finding's inline comment (a
  422). A later run that carries the finding's decision (its file's patch unchanged, so
  the host would refuse it again) keeps it in the summary without asking the host again;
- v9 adds a static analyzer's members (`MemberNote.source` "analyzer", with its `rule`):
  a finding ruff also reported keeps "also reported by ruff F821", and its outcome is
  credited to the analyzer and its rule.

A v1 to v8 block reads as v9 with empty additions (a tracked finding whose reporters are
not known: its outcome is credited to no one, and the learnings say how many were). A
block that is unreadable, fails validation or has a newer version is ignored (the caller
says so); nothing in it is ever used to decide who may run a command.

The block is read back from a comment, so every field is validated as it is read: ids
match `F\d+`, fingerprints are hex, logins follow GitHub's login rules (never a team, never
markup), roles, verdicts, severities and statuses are closed sets, free text is bounded.
Whether the block may be believed at all (who last edited the comment) is thread.py's
question; free text in it still goes through the sanitiser wherever it is shown.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from consensus.model.base import (
    RULE_FIELD,
    SOURCE_FIELD,
    Category,
    FindingSource,
    Frozen,
    Severity,
    Status,
    VerdictKind,
    source_by_name,
)
from consensus.model.history import PanelTally
from consensus.publish.decided import MAX_LABELS, MAX_OUTCOMES, FindingOutcome, JudgeNote, Label
from consensus.publish.spend import Spent
from consensus.render.untrusted import LOGIN

STATE_VERSION = 9
READABLE_VERSIONS = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9})
MAX_STATE_CHARS = 24_000  # of base64 on the state line; records give way first
MAX_RECORDS = 200  # records of the latest run (explain, verify, carrying); more give way
MAX_RECORD_BODY = 1_500
MAX_REASON = 300
_STATE_LINE = re.compile(r"^<!-- consensus:state v(\d+) ([A-Za-z0-9+/=]{0,60000}) -->$")
_FINGERPRINT = r"^[0-9a-f]{8,64}(?:-\d{1,4})?$"
_ID = r"^F\d{1,5}$"
_LOGIN = r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?$"
_WORKFLOW = r"^[a-z0-9][a-z0-9-]{0,39}$"
MAX_WORKFLOWS = 20  # workflows remembered in the state, the most recently run last
_SHA = r"^[0-9A-Za-z]{0,64}$"  # a commit (hex on GitHub; the fakes use letters too)
_NAME = r"^\S{1,200}$"  # a provider, model, family or persona: shown as code, never parsed
MAX_PATH = 4_096
MAX_TITLE = 300
MAX_DECIDED_FILES = 300  # files whose decisions the state carries; more are decided again
_DIGEST = r"^[0-9a-f]{32}$"


class TrackedFinding(Frozen):
    """A finding an earlier run published, as the summary state remembers it: its place,
    whether it is resolved, and who reported and judged it (its outcome is credited to
    them when the PR closes, whether or not the latest run still has its record)."""

    fingerprint: str = Field(pattern=_FINGERPRINT)
    id: str = Field(pattern=_ID)
    path: str = Field(max_length=MAX_PATH)
    line: int = Field(ge=0)
    severity: Severity
    title: str = Field(max_length=MAX_TITLE)
    inline: bool
    resolved: bool = False
    resolved_reason: str = Field(default="", max_length=MAX_REASON)
    category: Category | None = None  # v6 on: the defect kind a fix or suppression keeps
    families: tuple[Annotated[str, Field(pattern=_NAME)], ...] = ()  # () before v6: unknown
    personas: tuple[Annotated[str, Field(pattern=_NAME)], ...] = ()
    judges: tuple[JudgeNote, ...] = ()
    refused: str = Field(default="", max_length=MAX_REASON + 10)  # v8: the host's refusal


class MemberNote(Frozen):
    """One provider's report inside a cluster: who said it, as which persona, in what words."""

    provider: str = Field(pattern=_NAME)
    family: str = Field(pattern=_NAME)
    persona: str = Field(pattern=_NAME)
    title: str = Field(max_length=MAX_TITLE)
    source: FindingSource = SOURCE_FIELD  # written for the scan's and analyzers' members
    rule: str | None = RULE_FIELD  # v9: an analyzer's rule, written for its members only

    @model_validator(mode="before")
    @classmethod
    def _scan_by_name(cls, data: object) -> object:
        return source_by_name(data)


class VoteNote(Frozen):
    model: str = Field(pattern=_NAME)
    family: str = Field(default="", pattern=f"{_NAME}|^$")
    role: Literal["inspector", "voter"]
    verdict: VerdictKind | None
    reason: str = Field(max_length=MAX_REASON + 10)
    self_vote: bool = False


class VerificationNote(Frozen):
    confirmed: int = 0
    refuted: int = 0
    uncertain: int = 0
    ahead_by: int = 0
    votes: tuple[VoteNote, ...] = ()
    note: str = Field(default="", max_length=MAX_REASON + 10)
    requested_by: str = Field(default="", pattern=f"{LOGIN}|^$")  # who asked `/consensus verify`
    belief: float | None = Field(default=None, ge=0, le=1)


class FindingRecord(Frozen):
    """A finding of the latest run, with what `explain` shows and `verify` needs."""

    id: str = Field(pattern=_ID)
    fingerprint: str = Field(pattern=_FINGERPRINT)
    path: str = Field(max_length=MAX_PATH)
    line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    severity: Severity
    category: Category
    title: str = Field(max_length=MAX_TITLE)
    body: str = Field(max_length=MAX_RECORD_BODY + 40)
    status: Status
    reason: str = Field(default="", max_length=MAX_REASON + 10)
    votes_for: int = Field(default=0, ge=0)
    votes_of: int = Field(default=0, ge=0)
    providers: tuple[Annotated[str, Field(pattern=_NAME)], ...] = ()
    personas: tuple[Annotated[str, Field(pattern=_NAME)], ...] = ()
    members: tuple[MemberNote, ...] = ()
    verification: VerificationNote | None = None

    @property
    def found_by_scan(self) -> bool:
        return any(member.source is FindingSource.SCAN for member in self.members)


class Dismissal(Frozen):
    fingerprint: str = Field(pattern=_FINGERPRINT)
    id: str = Field(default="", pattern=f"{_ID}|^$")
    title: str = Field(default="", max_length=MAX_TITLE)
    by: str = Field(pattern=LOGIN)
    reason: str = Field(default="", max_length=MAX_REASON)
    via: Literal["command", "reply", "reaction"] = "command"  # v5: how it was decided


class Pause(Frozen):
    by: str = Field(pattern=LOGIN)


class DecidedFile(Frozen):
    """One file whose findings a run decided: the digest of the diff the models saw of it,
    the head it was decided on, and how many of the state's records are its findings (a
    file whose records did not all fit is decided again, never carried in part)."""

    path: str = Field(max_length=MAX_PATH)
    digest: str = Field(pattern=_DIGEST)
    head_sha: str = Field(pattern=_SHA)
    findings: int = Field(default=0, ge=0, le=MAX_RECORDS)


class PanelNote(Frozen):
    model: str = Field(pattern=_NAME)
    family: str = Field(pattern=_NAME)


class Decisions(Frozen):
    """What the runs on this PR decided, file by file, and under which settings (`basis`)."""

    basis: str = Field(pattern=_DIGEST)
    families_answered: int = Field(ge=0, le=100)
    min_providers: int = Field(ge=0, le=100)
    panel: tuple[PanelNote, ...] = Field(default=(), max_length=50)
    files: tuple[DecidedFile, ...] = Field(default=(), max_length=MAX_DECIDED_FILES)


class WorkflowState(Frozen):
    """What one saved review workflow's runs published on this PR."""

    name: str = Field(pattern=_WORKFLOW)
    head_sha: str = ""
    findings: tuple[TrackedFinding, ...] = ()
    records: tuple[FindingRecord, ...] = ()
    decisions: Decisions | None = None


class PublishState(Frozen):
    version: int = STATE_VERSION
    head_sha: str = Field(default="", pattern=_SHA)
    findings: tuple[TrackedFinding, ...] = ()
    records: tuple[FindingRecord, ...] = ()
    dismissed: tuple[Dismissal, ...] = ()
    paused: Pause | None = None
    workflows: tuple[WorkflowState, ...] = ()
    decisions: Decisions | None = None
    spent: Spent | None = None
    labels: tuple[Label, ...] = Field(default=(), max_length=MAX_LABELS)  # publish/decided.py
    outcomes: tuple[FindingOutcome, ...] = Field(default=(), max_length=MAX_OUTCOMES)
    closed: Literal["", "merged", "closed"] = ""  # set with the outcomes when the PR closed
    panel: PanelTally | None = None  # what the last run estimated of its panel (learnings)

    def workflow(self, name: str) -> WorkflowState | None:
        return next((w for w in self.workflows if w.name == name), None)

    def record(self, finding_id: str) -> FindingRecord | None:
        """The latest run's finding with this id (ids are per run, as the summary shows)."""
        return next((r for r in self.records if r.id == finding_id), None)

    def tracked(self, finding_id: str) -> TrackedFinding | None:
        """A tracked finding with this id, open ones first (older runs may reuse an id)."""
        matches = [t for t in self.findings if t.id == finding_id]
        return next((t for t in matches if not t.resolved), matches[0] if matches else None)

    def dismissal(self, fingerprint: str) -> Dismissal | None:
        return next((d for d in self.dismissed if d.fingerprint == fingerprint), None)


def encode_state(state: PublishState) -> str:
    """The hidden last line of the summary: versioned, compressed, base64 (no `-->` inside).

    Over `MAX_STATE_CHARS`, finding records give way (bodies first, then the last records),
    then the workflows' records, then the decisions to carry (a file whose records are gone
    is decided again: see `DecidedFile.findings`), so the state never crowds out the page;
    tracked findings and dismissals always stay.
    """
    state = state.model_copy(update={"version": STATE_VERSION})
    line = _line(state)
    if len(line) > MAX_STATE_CHARS:
        short = tuple(r.model_copy(update={"body": r.body[:200]}) for r in state.records)
        state = state.model_copy(update={"records": short})
        line = _line(state)
    while len(line) > MAX_STATE_CHARS and state.records:
        keep = len(state.records) * 3 // 4
        state = state.model_copy(update={"records": state.records[:keep]})
        line = _line(state)
    if len(line) > MAX_STATE_CHARS:  # then the workflows' records
        lean = tuple(w.model_copy(update={"records": ()}) for w in state.workflows)
        state = state.model_copy(update={"workflows": lean})
        line = _line(state)
    if len(line) > MAX_STATE_CHARS and state.decisions is not None:  # then what to carry:
        state = state.model_copy(update={"decisions": None})  # the next run decides anew
        line = _line(state)
    return line


def _line(state: PublishState) -> str:
    packed = zlib.compress(state.model_dump_json(exclude_defaults=True).encode(), 9)
    return f"<!-- consensus:state v{state.version} {base64.b64encode(packed).decode()} -->"


def state_line_present(body: str) -> bool:
    return body.rstrip("\n").rsplit("\n", 1)[-1].startswith("<!-- consensus:state ")


def decode_state(body: str) -> PublishState | None:
    """The state on the last line of `body`; None when absent, unreadable or of a newer version."""
    match = _STATE_LINE.match(body.rstrip("\n").rsplit("\n", 1)[-1])
    if match is None or int(match.group(1)) not in READABLE_VERSIONS:
        return None
    try:
        raw = zlib.decompress(base64.b64decode(match.group(2), validate=True))
        data = json.loads(raw)
        if not isinstance(data, dict):
            return None
        data["version"] = STATE_VERSION  # older versions read as v8 with empty additions
        return PublishState.model_validate(data)
    except (binascii.Error, zlib.error, ValueError, ValidationError):
        return None


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters (an ellipsis where it was cut): free text in the
    state is bounded."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def workflow_view(state: PublishState, name: str) -> PublishState:
    """The state as a run of workflow `name` sees it: its own head, findings and records,
    the PR's dismissals and pause. Planning on it leaves every other run's findings alone."""
    mine = state.workflow(name) or WorkflowState(name=name)
    return PublishState(
        head_sha=mine.head_sha,
        findings=mine.findings,
        records=mine.records,
        dismissed=state.dismissed,
        paused=state.paused,
        decisions=mine.decisions,
    )


def with_workflow(state: PublishState, name: str, planned: PublishState) -> PublishState:
    """`state` with workflow `name`'s part replaced by what its run planned (`planned`, a
    state made from `workflow_view`); the default review's part is kept as it was."""
    entry = WorkflowState(
        name=name,
        head_sha=planned.head_sha,
        findings=planned.findings,
        records=planned.records,
        decisions=planned.decisions,
    )
    others = tuple(w for w in state.workflows if w.name != name)
    return state.model_copy(update={"workflows": (*others, entry)[-MAX_WORKFLOWS:]})
