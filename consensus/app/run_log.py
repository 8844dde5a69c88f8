"""A run's log as JSON Lines (`--events PATH`: what happened in the run, not a GitHub webhook
event), and a tee that feeds several observers.

Events: run.created, phase.started, phase.ended, call.finished, run.ended. The TTY
progress and the run log read the same observer calls, so they never disagree.
"""

from __future__ import annotations

import json
import time
from typing import IO, Any

from consensus.model.findings import ModelFailure
from consensus.model.report import Report
from consensus.review.fanout import CallResult, ReviewCall
from consensus.review.pipeline import ReviewObserver


class RunLog:
    """Writes one JSON object per line and flushes it, so a killed run keeps its events."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._phase: str | None = None

    def emit(self, event: str, **fields: Any) -> None:
        record = {"event": event, "time": round(time.time(), 3), **fields}
        self._stream.write(json.dumps(record, sort_keys=True) + "\n")
        self._stream.flush()

    def run_created(self, run_id: str, *, resumed: bool, label: str) -> None:
        self.emit("run.created", run_id=run_id, resumed=resumed, label=label)

    def run_ended(self, report: Report, *, status: str) -> None:
        self._end_phase()
        self.emit(
            "run.ended",
            run_id=report.run_id,
            status=status,
            findings=len(report.findings),
            calls=report.stats.calls,
            tokens=report.stats.tokens_in + report.stats.tokens_out,
            cost_usd=report.stats.cost_usd,
        )

    def phase(self, name: str, detail: str = "") -> None:
        self._end_phase()
        self._phase = name
        self.emit("phase.started", phase=name, detail=detail)

    def planned(self, total: int) -> None:
        self.emit("calls.planned", total=total)

    def call_started(self, call: ReviewCall) -> None:
        return None

    def call_finished(self, call: ReviewCall, result: CallResult) -> None:
        self.emit(
            "call.finished",
            provider=call.provider.model,
            persona=call.persona,
            chunk=call.chunk.index,
            status=result.kind.value if isinstance(result, ModelFailure) else "ok",
            tokens=result.usage.tokens_in + result.usage.tokens_out,
            cost_usd=round(result.usage.cost_usd, 6),
            latency_s=round(result.usage.latency_s, 3),
            from_journal=result.usage.from_journal > 0,
        )

    def _end_phase(self) -> None:
        if self._phase is not None:
            self.emit("phase.ended", phase=self._phase)
            self._phase = None


class Tee:
    """One observer that forwards every event to several."""

    def __init__(self, *observers: ReviewObserver) -> None:
        self._observers = observers

    def phase(self, name: str, detail: str = "") -> None:
        for observer in self._observers:
            observer.phase(name, detail)

    def planned(self, total: int) -> None:
        for observer in self._observers:
            observer.planned(total)

    def call_started(self, call: ReviewCall) -> None:
        for observer in self._observers:
            observer.call_started(call)

    def call_finished(self, call: ReviewCall, result: CallResult) -> None:
        for observer in self._observers:
            observer.call_finished(call, result)
