"""The run journal as the flows use it: a Protocol, so that only app/wiring.py builds the
adapter (adapters/journal.Journal) and every flow is handed one. The journaled ports
(a model client, a source, the trees, the analyzers that record, resume and replay) come
from the journal itself, so a flow never constructs an adapter either."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from consensus.errors import JournalError
from consensus.model.findings import Usage
from consensus.model.journal import BENCH_JUDGE_LABEL, CallRow, PhaseRow, RunRow
from consensus.ports import (
    Analyzers,
    Completion,
    CompletionRequest,
    ModelClient,
    SourceReader,
    TreeReader,
)


class RunJournal(Protocol):
    """Runs and their calls, kept for resume, replay and reports."""

    path: Path

    def close(self) -> None: ...
    def resolve_run(self, base_id: str, *, fresh: bool, resume: str | None) -> tuple[str, bool]: ...
    def start_run(self, run_id: str, base_id: str, label: str, inputs: str) -> None: ...
    def set_phase(self, run_id: str, phase: str) -> None: ...
    def phases(self, run_id: str) -> list[PhaseRow]: ...
    def finish_run(
        self, run_id: str, *, status: str, report: str, cost_usd: float | None
    ) -> None: ...
    def run(self, run_id: str) -> RunRow | None: ...
    def inputs(self, run_id: str) -> str: ...
    def report(self, run_id: str) -> str | None: ...
    def calls(self, run_id: str) -> list[CallRow]: ...
    def tree_read(
        self, run_id: str, side: str, kind: str, path: str
    ) -> tuple[bool, bytes | None]: ...
    def answered(self, run_id: str, request: CompletionRequest) -> Completion | None: ...
    def recording_client(
        self,
        run_id: str,
        inner: ModelClient | None,
        *,
        on_served: Callable[[str, Usage], None] | None = None,
    ) -> ModelClient: ...
    def recording_source(self, run_id: str, inner: SourceReader | None) -> SourceReader: ...
    def recording_trees(self, run_id: str, inner: TreeReader | None) -> TreeReader: ...
    def recording_analyzers(self, run_id: str, inner: Analyzers | None) -> Analyzers | None: ...


def not_a_review(run_id: str, label: str) -> JournalError:
    """The error for a run whose journal holds no review this version can rebuild."""
    what = (
        "a bench judge's run, not a review"
        if label.startswith(BENCH_JUDGE_LABEL)
        else "a review recorded by a different version of consensus"
    )
    return JournalError(
        f"run {run_id} ({label}) cannot be replayed: it is {what}",
        fix="`consensus runs` lists the runs; `consensus bench` re-scores a bench from its "
        "journal without asking any model",
    )
