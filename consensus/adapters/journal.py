"""The run journal: every model call and what came of it in SQLite, for resume and replay.

One row per run (its inputs, status and final report) and one row per call, keyed by a
digest of what was asked (model, messages, parameters), committed the moment the call
ends: a run killed at any instant loses at most the calls in flight. WAL mode and a busy
timeout let several reviews share one journal. Timestamps are kept for people (listing,
timelines, pruning), never read by a decision.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from consensus.adapters.recording import (
    JournaledAnalyzers,
    JournaledClient,
    JournaledSource,
    JournaledTrees,
    RecordedCall,
)
from consensus.adapters.recording import call_digest as call_digest
from consensus.errors import JournalError
from consensus.model.findings import Usage
from consensus.model.journal import BENCH_JUDGE_LABEL as BENCH_JUDGE_LABEL
from consensus.model.journal import RUNS_FIX, CallRow, PhaseRow, RunRow
from consensus.ports import (
    Analyzers,
    Completion,
    CompletionRequest,
    ModelCallError,
    ModelClient,
    SourceReader,
    TreeReader,
)

UNKNOWN_COST = -1.0  # runs.cost_usd of a run that called a model without a known price

APPLICATION_ID = 0x636E7331  # "cns1": tells our database from any other SQLite file
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    base_id TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    label TEXT NOT NULL,
    status TEXT NOT NULL,           -- running | paused | incomplete | done
    phase TEXT NOT NULL,
    cost_usd REAL NOT NULL DEFAULT 0,
    inputs TEXT NOT NULL,           -- JSON: what replay needs to derive every decision again
    report TEXT                     -- JSON of the final report
);
CREATE INDEX IF NOT EXISTS runs_base ON runs (base_id, created);
CREATE TABLE IF NOT EXISTS calls (
    run_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    model TEXT NOT NULL,
    ok INTEGER NOT NULL,
    reply TEXT,
    error_kind TEXT,
    error_message TEXT,
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    latency_s REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 1,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    tool_calls TEXT,                -- JSON: the tools the model asked to run, if any
    PRIMARY KEY (run_id, digest)
);
CREATE TABLE IF NOT EXISTS phases (
    run_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sources (
    run_id TEXT NOT NULL,
    path TEXT NOT NULL,
    text TEXT,
    PRIMARY KEY (run_id, path)
);
CREATE TABLE IF NOT EXISTS trees (  -- what the verification tools read of the PR's trees
    run_id TEXT NOT NULL,
    side TEXT NOT NULL,             -- head | base
    kind TEXT NOT NULL,             -- paths (the listing, JSON) | link | blob
    path TEXT NOT NULL,             -- '' for the listing
    data BLOB,                      -- NULL: no such link or file
    PRIMARY KEY (run_id, side, kind, path)
);
"""


class Journal:
    def __init__(self, path: Path, *, warn: Any = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._open(path, warn)

    def _open(self, path: Path, warn: Any) -> sqlite3.Connection:
        try:
            return self._connect(path)
        except sqlite3.DatabaseError as exc:
            # Never lose a report to a broken journal: move it aside and start a new one.
            aside = path.with_name(f"{path.name}.broken-{int(time.time())}")
            path.rename(aside)
            for suffix in ("-wal", "-shm"):
                stale = path.with_name(path.name + suffix)
                if stale.exists():
                    stale.rename(aside.with_name(aside.name + suffix))
            if warn is not None:
                warn(f"journal {path} was unreadable ({exc}); moved to {aside}, starting afresh")
            return self._connect(path)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 30000")
        app = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app != APPLICATION_ID and tables:
            db.close()
            raise sqlite3.DatabaseError("not a consensus journal")
        if app != APPLICATION_ID:
            # Before the first table: lets pruning give space back to the file system.
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if app != APPLICATION_ID:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.executescript(SCHEMA)
        columns = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
        if "tool_calls" not in columns:  # a journal from before tools
            db.execute("ALTER TABLE calls ADD COLUMN tool_calls TEXT")
        db.execute("PRAGMA quick_check").fetchone()
        return db

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ runs

    def resolve_run(self, base_id: str, *, fresh: bool, resume: str | None) -> tuple[str, bool]:
        """(run id, resuming?): the named run, else the latest unfinished run of these
        inputs, else a new run id (`base`, then `base-2`, `base-3` …)."""
        if resume is not None:
            if self.run(resume) is None:
                raise JournalError(f"no run {resume} in the journal {self.path}", fix=RUNS_FIX)
            return resume, True
        rows = self._db.execute(
            "SELECT run_id, status FROM runs WHERE base_id = ? ORDER BY created", (base_id,)
        ).fetchall()
        if rows and not fresh and rows[-1][1] != "done":
            return rows[-1][0], True
        taken = {row[0] for row in rows}
        number = len(rows) + 1
        run_id = base_id if base_id not in taken else f"{base_id}-{number}"
        while run_id in taken:
            number += 1
            run_id = f"{base_id}-{number}"
        return run_id, False

    def start_run(self, run_id: str, base_id: str, label: str, inputs: str) -> None:
        now = time.time()
        self._db.execute(
            "INSERT INTO runs (run_id, base_id, created, updated, label, status, phase, inputs)"
            " VALUES (?, ?, ?, ?, ?, 'running', 'started', ?)"
            " ON CONFLICT (run_id) DO UPDATE SET status = 'running', updated = excluded.updated",
            (run_id, base_id, now, now, label, inputs),
        )

    def set_phase(self, run_id: str, phase: str) -> None:
        now = time.time()
        self._db.execute(
            "UPDATE runs SET phase = ?, updated = ? WHERE run_id = ?", (phase, now, run_id)
        )
        self._db.execute(
            "INSERT INTO phases (run_id, phase, started) VALUES (?, ?, ?)", (run_id, phase, now)
        )

    def phases(self, run_id: str) -> list[PhaseRow]:
        """(phase, start time) in order, for timelines; a resumed run lists each attempt's."""
        rows = self._db.execute(
            "SELECT phase, started FROM phases WHERE run_id = ? ORDER BY started", (run_id,)
        )
        return [PhaseRow(name=str(name), started=float(at)) for name, at in rows.fetchall()]

    def finish_run(self, run_id: str, *, status: str, report: str, cost_usd: float | None) -> None:
        """`cost_usd` None (a model without a known price) is kept as UNKNOWN_COST."""
        self._db.execute(
            "UPDATE runs SET status = ?, phase = 'ended', report = ?, cost_usd = ?, updated = ?"
            " WHERE run_id = ?",
            (status, report, UNKNOWN_COST if cost_usd is None else cost_usd, time.time(), run_id),
        )

    def run(self, run_id: str) -> RunRow | None:
        row = self._db.execute(
            "SELECT run_id, base_id, created, label, status, phase, cost_usd FROM runs"
            " WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        return _run_row(row) if row else None

    def inputs(self, run_id: str) -> str:
        row = self._db.execute("SELECT inputs FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise JournalError(f"no run {run_id} in the journal {self.path}", fix=RUNS_FIX)
        return str(row[0])

    def report(self, run_id: str) -> str | None:
        row = self._db.execute("SELECT report FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return str(row[0]) if row and row[0] is not None else None

    def runs(self, limit: int = 20) -> list[RunRow]:
        rows = self._db.execute(
            "SELECT run_id, base_id, created, label, status, phase, cost_usd FROM runs"
            " ORDER BY created DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [_run_row(row) for row in rows]

    def prune(self, *, max_age_days: float, now: float, max_bytes: int | None = None) -> int:
        """Forget runs not touched for `max_age_days`, then the oldest runs while the file
        is larger than `max_bytes`; returns how many went. Unfinished runs of the last
        day are kept whatever the size: they may be about to resume."""
        cutoff = now - max_age_days * 86_400
        rows = self._db.execute("SELECT run_id FROM runs WHERE updated < ?", (cutoff,))
        gone = [row[0] for row in rows.fetchall()]
        for run_id in gone:
            self._forget(run_id)
        if max_bytes is not None:
            oldest = self._db.execute(
                "SELECT run_id FROM runs WHERE status = 'done' OR updated < ? ORDER BY updated",
                (now - 86_400,),
            ).fetchall()
            for (run_id,) in oldest:
                if self._size() <= max_bytes:
                    break
                self._forget(run_id)
                self._db.execute("PRAGMA incremental_vacuum")
                gone.append(run_id)
        return len(gone)

    def _forget(self, run_id: str) -> None:
        for table in ("calls", "sources", "trees", "phases", "runs"):
            self._db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    def _size(self) -> int:
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
        size = self._db.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)

    # ------------------------------------------------------------------ calls and sources

    def recorded(self, run_id: str, digest: str) -> RecordedCall | None:
        row = self._db.execute(
            "SELECT ok, reply, error_kind, error_message, tokens_in, tokens_out, cost_usd,"
            " latency_s, tool_calls FROM calls WHERE run_id = ? AND digest = ?",
            (run_id, digest),
        ).fetchone()
        return RecordedCall(bool(row[0]), row[1] or "", *row[2:]) if row else None

    def record(
        self,
        run_id: str,
        digest: str,
        model: str,
        *,
        completion: Completion | None,
        error: ModelCallError | None,
        started: float,
    ) -> None:
        """Commit one finished call at once (autocommit): a kill loses only calls in flight."""
        done = completion
        self._db.execute(
            "INSERT INTO calls (run_id, digest, model, ok, reply, error_kind, error_message,"
            " tokens_in, tokens_out, cost_usd, latency_s, attempts, started, finished,"
            " tool_calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (run_id, digest) DO UPDATE SET ok = excluded.ok, reply = excluded.reply,"
            " error_kind = excluded.error_kind, error_message = excluded.error_message,"
            " tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out,"
            " cost_usd = excluded.cost_usd, latency_s = excluded.latency_s,"
            " tool_calls = excluded.tool_calls,"
            " attempts = calls.attempts + 1, finished = excluded.finished",
            (
                run_id,
                digest,
                model,
                1 if done is not None else 0,
                done.text if done is not None else None,
                error.kind.value if error is not None else None,
                error.message if error is not None else None,
                done.tokens_in if done else 0,
                done.tokens_out if done else 0,
                done.cost_usd if done else 0.0,
                done.latency_s if done else 0.0,
                started,
                time.time(),
                _tool_calls_json(done),
            ),
        )

    def calls(self, run_id: str) -> list[CallRow]:
        """Every call of a run, for reports and timelines."""
        cursor = self._db.execute(
            "SELECT digest, model, ok, error_kind, tokens_in, tokens_out, cost_usd, latency_s,"
            " attempts, started, finished FROM calls WHERE run_id = ? ORDER BY started",
            (run_id,),
        )
        names = [column[0] for column in cursor.description]
        return [CallRow.model_validate(dict(zip(names, row, strict=True))) for row in cursor]

    def source(self, run_id: str, path: str) -> tuple[bool, str | None]:
        row = self._db.execute(
            "SELECT text FROM sources WHERE run_id = ? AND path = ?", (run_id, path)
        ).fetchone()
        return (True, row[0]) if row else (False, None)

    def record_source(self, run_id: str, path: str, text: str | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO sources (run_id, path, text) VALUES (?, ?, ?)",
            (run_id, path, text),
        )

    def tree_read(self, run_id: str, side: str, kind: str, path: str) -> tuple[bool, bytes | None]:
        """What the run read of one side's tree: (known, the bytes or None for nothing)."""
        row = self._db.execute(
            "SELECT data FROM trees WHERE run_id = ? AND side = ? AND kind = ? AND path = ?",
            (run_id, side, kind, path),
        ).fetchone()
        return (True, None if row[0] is None else bytes(row[0])) if row else (False, None)

    def record_tree_read(
        self, run_id: str, side: str, kind: str, path: str, data: bytes | None
    ) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO trees (run_id, side, kind, path, data) VALUES (?, ?, ?, ?, ?)",
            (run_id, side, kind, path, data),
        )

    # ------------------------------------------------------------------ the journaled ports

    def recording_client(
        self,
        run_id: str,
        inner: ModelClient | None,
        *,
        on_served: Callable[[str, Usage], None] | None = None,
    ) -> ModelClient:
        """`inner` behind this run's record (None: replay, answered from the journal only)."""
        return JournaledClient(self, run_id, inner, on_served=on_served)

    def recording_source(self, run_id: str, inner: SourceReader | None) -> SourceReader:
        return JournaledSource(self, run_id, inner)

    def recording_trees(self, run_id: str, inner: TreeReader | None) -> TreeReader:
        return JournaledTrees(self, run_id, inner)

    def recording_analyzers(self, run_id: str, inner: Analyzers | None) -> Analyzers | None:
        """`inner` behind this run's record; replay (`inner` None): the runs it recorded,
        or None for a run that had no analyzers."""
        kind = JournaledAnalyzers.KIND
        if inner is None and not self.tree_read(run_id, kind, kind, "")[0]:
            return None
        return JournaledAnalyzers(self, run_id, inner)

    def answered(self, run_id: str, request: CompletionRequest) -> Completion | None:
        """What run `run_id` was answered to this very request, if it was answered."""
        known = self.recorded(run_id, call_digest(request))
        return known.completion() if known is not None and known.ok else None


def _run_row(row: tuple[Any, ...]) -> RunRow:
    names = ("run_id", "base_id", "created", "label", "status", "phase", "cost_usd")
    data = dict(zip(names, row, strict=True))
    if data["cost_usd"] == UNKNOWN_COST:
        data["cost_usd"] = None
    return RunRow.model_validate(data)


def _tool_calls_json(completion: Completion | None) -> str | None:
    if completion is None or not completion.tool_calls:
        return None
    return json.dumps([call.model_dump(mode="json") for call in completion.tool_calls])
