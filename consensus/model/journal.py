"""What the run journal holds about a run and its calls, as the journal hands it out."""

from __future__ import annotations

from consensus.model.base import Frozen


class RunRow(Frozen):
    """One run: what it reviewed (`label`), where it got to, and what it cost."""

    run_id: str
    base_id: str
    created: float  # Unix time
    label: str
    status: str  # running, paused, done
    phase: str
    cost_usd: float | None  # None: a model the run called has no known price


class CallRow(Frozen):
    """One model call of a run and its outcome, for reports and timelines."""

    digest: str
    model: str
    ok: bool
    error_kind: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 1
    started: float  # Unix time
    finished: float


class PhaseRow(Frozen):
    """A phase of a run and when it started."""

    name: str
    started: float


RUNS_FIX = "`consensus runs` lists the runs it holds (the journal is in $CONSENSUS_HOME)"
BENCH_JUDGE_LABEL = "bench judge"  # how a bench judge's run (no review in it) is labelled
