"""The run journal: every model call and what came of it in SQLite, for resume and replay.

One row per run (its inputs, status and final report) and one row per call, keyed by a
digest of what was asked (model, messages, parameters), committed the moment the call
ends: a run killed at any instant loses at most the calls in flight. WAL mode and a busy
timeout let several reviews share one journal. Timestamps are kept for people (listing,
timelines, pruning), never read by a decision.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consensus.errors import JournalError
from consensus.model.base import FailureKind
from consensus.model.completion import ToolCall
from consensus.model.journal import CallRow, PhaseRow, RunRow
from consensus.ports import Completion, CompletionRequest, ModelCallError

UNKNOWN_COST = -1.0  # runs.cost_usd of a run that called a model without a known price

RUNS_FIX = "`consensus runs` lists the runs it holds (the journal is in $CONSENSUS_HOME)"
BENCH_JUDGE_LABEL = "bench judge"  # how a bench judge's run (no review in it) is labelled
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


def _run_row(row: tuple[Any, ...]) -> RunRow:
    names = ("run_id", "base_id", "created", "label", "status", "phase", "cost_usd")
    data = dict(zip(names, row, strict=True))
    if data["cost_usd"] == UNKNOWN_COST:
        data["cost_usd"] = None
    return RunRow.model_validate(data)


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


def _tool_calls_json(completion: Completion | None) -> str | None:
    if completion is None or not completion.tool_calls:
        return None
    return json.dumps([call.model_dump(mode="json") for call in completion.tool_calls])
