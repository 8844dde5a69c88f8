"""Journal-backed ports: a ModelClient, a SourceReader, a TreeReader and the Analyzers that
record, resume and replay.

Recording: a call already answered in this run is served from the journal (and credited
to the run's budget, since an earlier attempt paid for it); any other call, failed ones
included, goes to the inner client and its outcome, answer or failure (a guard's refusal
too), is committed when it ends. Replay: every
outcome comes from the journal, failures included, and nothing is sent anywhere.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from consensus.model.analysis import AnalyzerRun
from consensus.model.base import FailureKind
from consensus.model.completion import ToolCall
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Usage
from consensus.ports import (
    Analyzers,
    Completion,
    CompletionRequest,
    ModelCallError,
    ModelClient,
    Side,
    SourceReader,
    TreeReader,
)


def call_digest(request: CompletionRequest) -> str:
    """What makes two calls the same question: model, messages and parameters (not keys).
    Tool fields at their defaults are left out, so a call that offers no tools has the
    digest it had before tools existed, and journals written then still serve it."""
    asked = request.model_dump(mode="json", exclude={"api_key_env", "timeout_s"})
    if not request.tools:
        del asked["tools"], asked["tool_choice"]
    for message in asked["messages"]:
        if not message["tool_calls"] and message["tool_call_id"] is None:
            del message["tool_calls"], message["tool_call_id"]
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class RecordedCall:
    """A call as the journal recorded it: its reply or its error, and what it cost."""

    ok: bool
    reply: str
    error_kind: str | None
    error_message: str | None
    tokens_in: int
    tokens_out: int
    cost_usd: float
    latency_s: float
    tool_calls: str | None = None  # JSON, as `record` wrote it

    def completion(self) -> Completion:
        if not self.ok:
            kind = FailureKind(self.error_kind or FailureKind.OTHER.value)
            raise ModelCallError(kind, self.error_message or "failed")
        return Completion(
            text=self.reply,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost_usd=self.cost_usd,
            latency_s=self.latency_s,
            from_journal=True,
            tool_calls=tuple(
                ToolCall.model_validate(c) for c in json.loads(self.tool_calls or "[]")
            ),
        )


class CallStore(Protocol):
    """What the journaled ports keep their calls and reads in (adapters/journal.Journal)."""

    def recorded(self, run_id: str, digest: str) -> RecordedCall | None: ...
    def record(
        self,
        run_id: str,
        digest: str,
        model: str,
        *,
        completion: Completion | None,
        error: ModelCallError | None,
        started: float,
    ) -> None: ...
    def source(self, run_id: str, path: str) -> tuple[bool, str | None]: ...
    def record_source(self, run_id: str, path: str, text: str | None) -> None: ...
    def tree_read(
        self, run_id: str, side: str, kind: str, path: str
    ) -> tuple[bool, bytes | None]: ...
    def record_tree_read(
        self, run_id: str, side: str, kind: str, path: str, data: bytes | None
    ) -> None: ...


class JournaledClient:
    def __init__(
        self,
        journal: CallStore,
        run_id: str,
        inner: ModelClient | None,
        *,
        on_served: Callable[[str, Usage], None] | None = None,
    ) -> None:
        """`inner` None means replay: answer from the journal only."""
        self._journal = journal
        self._run_id = run_id
        self._inner = inner
        self._on_served = on_served

    async def complete(self, request: CompletionRequest) -> Completion:
        digest = call_digest(request)
        known = self._journal.recorded(self._run_id, digest)
        if self._inner is None:
            if known is None:
                raise ModelCallError(
                    FailureKind.OTHER, f"replay: this call is not in the journal of {self._run_id}"
                )
            return known.completion()
        if known is not None and known.ok:
            completion = known.completion()
            if self._on_served is not None:
                self._on_served(request.model, completion.usage)
            return completion
        started = time.time()
        try:
            completion = await self._inner.complete(request)
        except ModelCallError as exc:
            self._journal.record(
                self._run_id, digest, request.model, completion=None, error=exc, started=started
            )
            raise
        self._journal.record(
            self._run_id, digest, request.model, completion=completion, error=None, started=started
        )
        return completion


class JournaledSource:
    """Files read for verification are kept, so a replay shows verifiers the same code."""

    def __init__(self, journal: CallStore, run_id: str, inner: SourceReader | None) -> None:
        self._journal = journal
        self._run_id = run_id
        self._inner = inner

    def read(self, path: str) -> str | None:
        known, text = self._journal.source(self._run_id, path)
        if known or self._inner is None:
            return text
        text = self._inner.read(path)
        self._journal.record_source(self._run_id, path, text)
        return text


class JournaledTrees:
    """What the verification tools read of the trees is kept (each side's listing, its
    links, the files read), so a replay answers every tool call as the run did, with no
    checkout. `inner` None means replay: read from the journal only; what the run never
    read is not there."""

    def __init__(self, journal: CallStore, run_id: str, inner: TreeReader | None) -> None:
        self._journal = journal
        self._run_id = run_id
        self._inner = inner

    def paths(self, side: Side) -> tuple[str, ...]:
        known, data = self._journal.tree_read(self._run_id, side, "paths", "")
        if known or self._inner is None:
            return tuple(json.loads(data or b"[]"))
        listed = self._inner.paths(side)
        self._journal.record_tree_read(
            self._run_id, side, "paths", "", json.dumps(list(listed)).encode()
        )
        return listed

    def link_target(self, path: str, side: Side) -> str | None:
        known, data = self._journal.tree_read(self._run_id, side, "link", path)
        if not known and self._inner is not None:
            target = self._inner.link_target(path, side)
            data = None if target is None else target.encode("utf-8", "surrogateescape")
            self._journal.record_tree_read(self._run_id, side, "link", path, data)
        return None if data is None else data.decode("utf-8", "surrogateescape")

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        unread = []
        for path in paths:
            known, data = self._journal.tree_read(self._run_id, side, "blob", path)
            if known:
                if data is not None:
                    found[path] = data
            else:
                unread.append(path)
        if unread and self._inner is not None:
            read = self._inner.read(unread, side)
            for path in unread:
                self._journal.record_tree_read(self._run_id, side, "blob", path, read.get(path))
            found.update(read)
        return found


class JournaledAnalyzers:
    """The analyzers' runs are kept, so that a resumed run does not run them again and a
    replay sees what they reported with no tool and no checkout. `inner` None means replay:
    a run that recorded none had no analyzers."""

    KIND = "analyzers"  # their row in the journal's trees table: side and kind, no path

    def __init__(self, journal: CallStore, run_id: str, inner: Analyzers | None) -> None:
        self._journal = journal
        self._run_id = run_id
        self._inner = inner

    async def analyze(self, diff: ReviewDiff) -> tuple[AnalyzerRun, ...]:
        known, data = self._journal.tree_read(self._run_id, self.KIND, self.KIND, "")
        if known or self._inner is None:
            return tuple(AnalyzerRun.model_validate(run) for run in json.loads(data or b"[]"))
        runs = await self._inner.analyze(diff)
        recorded = json.dumps([run.model_dump(mode="json") for run in runs]).encode()
        self._journal.record_tree_read(self._run_id, self.KIND, self.KIND, "", recorded)
        return runs
