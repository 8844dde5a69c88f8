"""The run journal: what is kept, what is served again, what survives a broken file."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

from consensus.adapters.journal import BENCH_JUDGE_LABEL, Journal, JournalError, call_digest
from consensus.adapters.recording import JournaledClient, JournaledSource
from consensus.app.journaled import replay_run
from consensus.model.base import FailureKind
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError
from consensus.testing import FakeModelClient, rate_limited
from tests.flows.flows_world import Counter


def ask(text: str, model: str = "openai/gpt-5.1") -> CompletionRequest:
    return CompletionRequest(model=model, messages=(Message(role="user", content=text),))


def complete(client: JournaledClient, request: CompletionRequest) -> Completion:
    return asyncio.run(client.complete(request))


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.db")


def test_the_digest_ignores_keys_and_timeouts_but_not_the_question() -> None:
    base = ask("review this")
    assert call_digest(base) == call_digest(base.model_copy(update={"api_key_env": "OTHER"}))
    assert call_digest(base) == call_digest(base.model_copy(update={"timeout_s": 5}))
    assert call_digest(base) != call_digest(ask("review that"))
    assert call_digest(base) != call_digest(base.model_copy(update={"temperature": 0.3}))


def test_an_answered_call_is_served_again_without_calling(journal: Journal) -> None:
    inner = FakeModelClient(default='{"findings": []}', tokens_in=700)
    journal.start_run("r1", "r1", "label", "{}")
    first = complete(JournaledClient(journal, "r1", inner), ask("review this"))
    served: list[int] = []
    again = complete(
        JournaledClient(journal, "r1", inner, on_served=lambda m, u: served.append(u.tokens_in)),
        ask("review this"),
    )
    assert len(inner.calls) == 1
    assert again.text == first.text and again.from_journal and not first.from_journal
    assert served == [700]  # credited to the run's budget


def test_a_failed_call_is_tried_again_when_the_run_resumes(journal: Journal) -> None:
    inner = FakeModelClient().queue("openai/gpt-5.1", [rate_limited()])
    client = JournaledClient(journal, "r1", inner)
    with pytest.raises(ModelCallError):
        complete(client, ask("review this"))
    assert complete(client, ask("review this")).text == '{"findings": []}'
    assert len(inner.calls) == 2


def test_replay_serves_failures_too_and_never_calls_anyone(journal: Journal) -> None:
    inner = FakeModelClient().queue("openai/gpt-5.1", [rate_limited()])
    with pytest.raises(ModelCallError):
        complete(JournaledClient(journal, "r1", inner), ask("review this"))
    replay = JournaledClient(journal, "r1", None)
    with pytest.raises(ModelCallError) as raised:
        complete(replay, ask("review this"))
    assert raised.value.kind is FailureKind.RATE_LIMITED
    with pytest.raises(ModelCallError, match="not in the journal"):
        complete(replay, ask("something never asked"))


def test_runs_are_kept_apart(journal: Journal) -> None:
    inner = FakeModelClient()
    complete(JournaledClient(journal, "r1", inner), ask("review this"))
    complete(JournaledClient(journal, "r2", inner), ask("review this"))
    assert len(inner.calls) == 2


def test_the_latest_unfinished_run_is_resumed_and_a_finished_one_is_not(journal: Journal) -> None:
    assert journal.resolve_run("abc", fresh=False, resume=None) == ("abc", False)
    journal.start_run("abc", "abc", "main...feature", "{}")
    assert journal.resolve_run("abc", fresh=False, resume=None) == ("abc", True)
    journal.finish_run("abc", status="paused", report="{}", cost_usd=0.5)
    assert journal.resolve_run("abc", fresh=False, resume=None) == ("abc", True)
    journal.finish_run("abc", status="done", report="{}", cost_usd=0.9)
    assert journal.resolve_run("abc", fresh=False, resume=None) == ("abc-2", False)
    assert journal.resolve_run("abc", fresh=True, resume=None) == ("abc-2", False)
    with pytest.raises(JournalError, match="no run nope"):
        journal.resolve_run("abc", fresh=False, resume="nope")


def test_sources_read_for_verification_are_kept_for_replay(journal: Journal) -> None:
    class Disk:
        reads = 0

        def read(self, path: str) -> str | None:
            Disk.reads += 1
            return "def f():\n    return 1\n" if path == "a.py" else None

    recording = JournaledSource(journal, "r1", Disk())
    assert recording.read("a.py") == "def f():\n    return 1\n"
    assert recording.read("gone.py") is None
    replay = JournaledSource(journal, "r1", None)
    assert replay.read("a.py") == "def f():\n    return 1\n"
    assert replay.read("gone.py") is None
    assert Disk.reads == 2


def test_a_corrupt_journal_is_moved_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(b"this is not a database at all" * 100)
    warnings: list[str] = []
    journal = Journal(path, warn=warnings.append)
    journal.start_run("r1", "r1", "label", "{}")
    assert journal.run("r1") is not None
    [aside] = list(tmp_path.glob("journal.db.broken-*"))
    assert aside.read_bytes().startswith(b"this is not a database")
    assert "moved to" in warnings[0]


def test_a_foreign_sqlite_file_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE photos (id INTEGER)")
    other.commit()
    other.close()
    warnings: list[str] = []
    Journal(path, warn=warnings.append).close()
    assert len(list(tmp_path.glob("journal.db.broken-*"))) == 1
    assert "not a consensus journal" in warnings[0]


def _write_calls(path: str, run_id: str, count: int) -> None:
    journal = Journal(Path(path))
    journal.start_run(run_id, run_id, "concurrent", "{}")
    for n in range(count):
        journal.record(
            run_id,
            f"digest-{n}",
            "openai/gpt-5.1",
            completion=Completion(text=f"answer {n}"),
            error=None,
            started=0.0,
        )
    journal.close()


def test_two_processes_write_one_journal_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "journal.db")
    Journal(Path(path)).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_calls, args=(path, f"run{n}", 200)) for n in (1, 2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    journal = Journal(Path(path))
    assert len(journal.calls("run1")) == 200 and len(journal.calls("run2")) == 200


def test_runs_untouched_for_longer_than_the_limit_are_pruned(journal: Journal) -> None:
    journal.start_run("r1", "r1", "label", "{}")
    complete(JournaledClient(journal, "r1", FakeModelClient()), ask("review this"))
    now = time.time()
    assert journal.prune(max_age_days=1, now=now + 0.5 * 86_400) == 0
    assert journal.prune(max_age_days=1, now=now + 2 * 86_400) == 1
    assert journal.runs() == [] and journal.calls("r1") == []


def test_the_oldest_finished_runs_go_when_the_journal_is_too_large(journal: Journal) -> None:
    big = "x" * 200_000
    now = time.time()
    for n in range(5):
        journal.start_run(f"r{n}", f"r{n}", "label", "{}")
        journal.record(f"r{n}", "d", "m", completion=Completion(text=big), error=None, started=0.0)
        journal.finish_run(f"r{n}", status="done", report="{}", cost_usd=0.0)
    journal.start_run("live", "live", "label", "{}")  # unfinished and recent: kept
    # room for two runs of 200 kB and the tables' own pages
    assert journal.prune(max_age_days=30, now=now, max_bytes=480_000) == 3
    assert [r.run_id for r in journal.runs()][:3] == ["live", "r4", "r3"]
    assert journal.run("r0") is None and journal.run("live") is not None


def test_files_read_for_verification_reach_the_journal_redacted(
    journal: Journal, tmp_path: Path
) -> None:
    from consensus.ingest.redact import RedactedSource

    token = "ghp_" + "Fq7Lr2Wm9Xc4Vb8Nt1Hs6Jd3Kg5Pz0Ya4Qe"

    class Disk:
        def read(self, path: str) -> str | None:
            return f'TOKEN = "{token}"\n'

    source = JournaledSource(journal, "r1", RedactedSource(Disk(), ()))
    assert token not in (source.read("settings.py") or "")
    journal.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("journal.db*"))
    assert token.encode() not in stored


def test_replaying_a_bench_judges_run_says_it_is_not_a_review(journal: Journal) -> None:
    label = f"{BENCH_JUDGE_LABEL} openai/gpt-5.1: cal.com#8087"
    journal.start_run("8f2c41d09a7e", "8f2c41d09a7e", label, "{}")
    with pytest.raises(JournalError) as raised:
        asyncio.run(replay_run("8f2c41d09a7e", journal=journal, counter=Counter()))
    assert "8f2c41d09a7e (bench judge openai/gpt-5.1: cal.com#8087)" in raised.value.message
    assert "a bench judge's run, not a review" in raised.value.message
    assert "consensus runs" in (raised.value.fix or "")


def test_replaying_a_review_an_older_version_recorded_names_the_version_gap(
    journal: Journal,
) -> None:
    older = '{"diff": {"files": []}, "settings": {}, "providers": [], "personas": []}'
    journal.start_run("3c9d0e1f2a4b", "3c9d0e1f2a4b", "service: main...feature", older)
    with pytest.raises(JournalError) as raised:
        asyncio.run(replay_run("3c9d0e1f2a4b", journal=journal, counter=Counter()))
    assert "recorded by a different version of consensus" in raised.value.message
