"""Journal-backed ports: a ModelClient, a SourceReader, a TreeReader and the Analyzers that
record, resume and replay.

Recording: a call already answered in this run is served from the journal (and credited
to the run's budget, since an earlier attempt paid for it); any other call, failed ones
included, goes to the inner client and its outcome, answer or failure (a guard's refusal
too), is committed when it ends. Replay: every
outcome comes from the journal, failures included, and nothing is sent anywhere.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from consensus.adapters.journal import Journal, call_digest
from consensus.ingest.redact import redact_text
from consensus.model.analysis import AnalyzerRun
from consensus.model.base import FailureKind
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


class JournaledClient:
    def __init__(
        self,
        journal: Journal,
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


class RedactedSource:
    """A SourceReader whose files come back with secrets replaced, as the diff's were:
    nothing read from the tree, the journal included, ever holds a secret."""

    def __init__(self, inner: SourceReader, patterns: Sequence[str]) -> None:
        self._inner = inner
        self._patterns = patterns

    def read(self, path: str) -> str | None:
        text = self._inner.read(path)
        return None if text is None else redact_text(text, self._patterns)[0]


class JournaledSource:
    """Files read for verification are kept, so a replay shows verifiers the same code."""

    def __init__(self, journal: Journal, run_id: str, inner: SourceReader | None) -> None:
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

    def __init__(self, journal: Journal, run_id: str, inner: TreeReader | None) -> None:
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

    def __init__(self, journal: Journal, run_id: str, inner: Analyzers | None) -> None:
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
