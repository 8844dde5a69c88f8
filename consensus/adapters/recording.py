"""Journal-backed ports: a ModelClient and a SourceReader that record, resume and replay.

Recording: a call already answered in this run is served from the journal (and credited
to the run's budget, since an earlier attempt paid for it); any other call, failed ones
included, goes to the inner client and its outcome, answer or failure (a guard's refusal
too), is committed when it ends. Replay: every
outcome comes from the journal, failures included, and nothing is sent anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from consensus.adapters.journal import Journal, call_digest
from consensus.ingest.redact import redact_text
from consensus.model.base import FailureKind
from consensus.model.findings import Usage
from consensus.ports import Completion, CompletionRequest, ModelCallError, ModelClient, SourceReader


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
