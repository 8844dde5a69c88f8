"""The HTML run report: the pure renderer (vote matrix, escaping, timeline bars), the
`consensus report` command, and a real run rendered in headless Chromium."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import struct
import subprocess
import zlib
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from consensus.adapters.journal import Journal
from consensus.app.wiring import consensus_home
from consensus.cli.main import cli
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.journal import CallRow, PhaseRow
from consensus.model.report import (
    FindingMember,
    ProviderReport,
    Quorum,
    Report,
    ReportFinding,
    Votes,
)
from consensus.render.html import Cell, cell, render_html
from consensus_sim.provider_server import FakeProviderServer, Script
from fakes.inprocess import run_consensus
from tests.e2e.test_e2e_journal import command, env_for, run_cli
from tests.e2e.test_e2e_review import repo, script_panel, write_config

__all__ = ["repo"]  # the fixture, imported for use here

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_TITLE = "Fix <script>alert(1)</script> and <img src=x onerror=alert(2)>"

# --------------------------------------------------------------------------- builders


def provider(
    model: str,
    *,
    status: str = "ok",
    files: Sequence[str] = ("src/a.py",),
    error: str | None = None,
) -> ProviderReport:
    return ProviderReport(
        model=model,
        family=model.split("/")[-1].split("-")[0],
        status=status,  # type: ignore[arg-type]
        error=error,
        calls=2,
        tokens_in=1200,
        tokens_out=300,
        cost_usd=0.0123,
        files_seen=list(files),
    )


def finding(
    fid: str, providers: Sequence[str], *, path: str = "src/a.py", title: str = "A bug"
) -> ReportFinding:
    return ReportFinding(
        id=fid,
        fingerprint=f"fp-{fid}",
        path=path,
        line=3,
        end_line=3,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=title,
        body="body",
        agreement=0.5,
        votes=Votes(**{"for": len(providers), "of": 4}),
        providers=list(providers),
        personas=["correctness"],
        status=Status.CONSENSUS,
    )


PANEL = [
    provider("openai/gpt-x", files=("src/a.py", "src/other.py")),
    provider("anthropic/claude-x"),
    provider("openai/llama-x", files=("src/other.py",)),  # its review of src/a.py failed
    provider("ollama/qwen-x", status="failed", files=(), error="auth: invalid api key"),
]


def a_report(findings: Sequence[ReportFinding], providers: Sequence[ProviderReport]) -> Report:
    return Report(
        run_id="run-1",
        findings=list(findings),
        providers=list(providers),
        quorum=Quorum(families_answered=3, min_providers=2, met=True),
        threshold=0.75,
    )


def a_call(model: str, started: float, *, ok: bool = True) -> CallRow:
    return CallRow(
        digest=f"{model}-{started}",
        model=model,
        ok=ok,
        error_kind=None if ok else "timeout",
        tokens_in=100,
        tokens_out=20,
        cost_usd=0.001,
        latency_s=0.5,
        attempts=1,
        started=started,
        finished=started + 0.5,
    )


class Page(HTMLParser):
    """The elements of a rendered page, and the vote matrix's cells row by row."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.matrix: list[list[tuple[str, str]]] = []
        self._in_matrix = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        attr = {k: v or "" for k, v in attrs}
        if tag == "table":
            self._in_matrix = attr.get("class") == "matrix"
        elif self._in_matrix and tag == "tr":
            self.matrix.append([])
        elif self._in_matrix and tag == "td" and attr.get("class", "").startswith("cell "):
            self.matrix[-1].append((attr["class"].split()[1], attr.get("title", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_matrix = False

    def rows(self) -> list[list[tuple[str, str]]]:
        """(state, tooltip) of each matrix cell, one list per finding."""
        return [row for row in self.matrix if row]

    def states(self) -> list[list[str]]:
        return [[state for state, _ in row] for row in self.rows()]


# --------------------------------------------------------------------------- the renderer


@pytest.mark.parametrize(
    ("reporters", "who", "expected", "why"),
    [
        (["openai/gpt-x"], PANEL[0], Cell.REPORTED, "reported this finding"),
        (["openai/gpt-x"], PANEL[1], Cell.SILENT, "reviewed src/a.py and did not report"),
        (["openai/gpt-x"], PANEL[2], Cell.ABSTAINED, "no valid review of src/a.py"),
        (["openai/gpt-x"], PANEL[3], Cell.ABSTAINED, "auth: invalid api key"),
        (
            [],
            provider("x/skipped", status="skipped", files=()),
            Cell.ABSTAINED,
            "provider skipped",
        ),
    ],
)
def test_each_cell_says_what_the_provider_did(
    reporters: list[str], who: ProviderReport, expected: Cell, why: str
) -> None:
    state, reason = cell(finding("F1", reporters), who)
    assert state is expected
    assert why in reason


def test_the_matrix_has_a_row_per_finding_and_a_column_per_provider() -> None:
    report = a_report(
        [
            finding("F1", ["openai/gpt-x", "anthropic/claude-x"]),
            finding("F2", ["openai/llama-x"], path="src/other.py"),
        ],
        PANEL,
    )
    page = Page(render_html(report, [], [], None))
    assert page.states() == [
        ["reported", "reported", "abstained", "abstained"],
        ["silent", "abstained", "reported", "abstained"],
    ]
    assert page.rows()[1][1][1] == "anthropic/claude-x had no valid review of src/other.py"
    qwen_title = page.rows()[1][3][1]
    assert qwen_title == "ollama/qwen-x abstained (failed): auth: invalid api key"


def test_a_finding_from_outside_the_panel_names_who_raised_it() -> None:
    own = finding("F1", ["consensus"], title="Committed credential")
    page = render_html(a_report([own], PANEL[:2]), [], [], None)
    assert "src/a.py:3 · raised by consensus</small>" in page
    assert Page(page).states() == [["silent", "silent"]]


def test_model_and_user_text_is_escaped_everywhere() -> None:
    hostile = finding("F1", ["openai/gpt-x"], title=HOSTILE_TITLE, path="<img src=y>.py")
    hostile = hostile.model_copy(
        update={
            "reason": "'\"><script>alert(3)</script>",
            "verification": Verification(
                confirmed=1,
                votes=(
                    Vote(
                        model="openai/gpt-x",
                        family="openai",
                        role="inspector",
                        verdict=VerdictKind.CONFIRMED,
                        reason="</td><script>alert(4)</script>",
                    ),
                ),
                note="<b>note</b>",
            ),
        }
    )
    evil = provider("evil/<svg onload=alert(5)>", status="failed", error="<script>x</script>")
    report = a_report([hostile], [PANEL[0], evil]).model_copy(
        update={"notes": ["<iframe src=//evil>"]}
    )
    text = render_html(
        report,
        [a_call("evil/<svg onload=alert(5)>", 1.0)],
        [PhaseRow(name="<i>", started=1.0)],
        None,
    )

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(2)&gt;" in text
    for raw in ("<script", "<img", "<iframe", "<svg onload", "<b>note", "<i>"):
        assert raw not in text
    tags = set(Page(text).tags)
    assert not tags & {"script", "img", "iframe", "b", "i"}
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


def test_one_bar_per_call_grouped_by_provider_on_the_phase_timeline() -> None:
    calls = [
        a_call("openai/gpt-x", 100.0),
        a_call("openai/gpt-x", 100.6),
        a_call("anthropic/claude-x", 100.1),
        a_call("ollama/qwen-x", 100.2, ok=False),
        a_call("ollama/qwen-x", 100.8, ok=False),
    ]
    phases = [
        PhaseRow(name="fan-out", started=100.0),
        PhaseRow(name="align and score", started=101.3),
        PhaseRow(name="verify", started=101.4),
    ]
    text = render_html(a_report([], PANEL), calls, phases, None)
    assert text.count("<rect class='call ") == len(calls)
    assert text.count("<rect class='call ok'") == 3
    assert text.count("<rect class='call failed'") == 2
    assert text.count("<rect class='phase ") == 3
    for name in ("fan-out", "align and score", "verify"):
        assert f">{name}</text>" in text
    lanes = [text.index(f"{m}</text>") for m in ("gpt-x", "claude-x", "qwen-x")]
    assert lanes == sorted(lanes)  # one lane per provider, in the report's order
    assert "openai/llama-x</text>" not in text  # no calls, no lane
    assert "(timeout)" in text  # the failure's kind on the bar's tooltip


def test_a_bar_and_its_tooltip_give_the_same_duration() -> None:
    waited = a_call("openai/gpt-x", 100.0).model_dump()
    waited.update(finished=102.83, latency_s=0.32)  # waited for a slot, then answered
    text = render_html(a_report([], PANEL), [CallRow(**waited)], [], None)
    assert "openai/gpt-x: ok, 2.83 s (the model answered in 0.32 s)" in text


def test_a_phase_name_near_the_right_edge_ends_at_it() -> None:
    phases = [
        PhaseRow(name="fan-out", started=100.0),
        PhaseRow(name="align and score", started=109.9),
    ]
    text = render_html(a_report([], PANEL), [a_call("openai/gpt-x", 100.0)], phases, None)
    label = re.search(
        r"<text class='phase-label' x='([\d.]+)' text-anchor='(\w+)'[^>]*>align and score", text
    )
    assert label is not None and label.group(2) == "end"
    width = re.search(r"<svg class='timeline' viewBox='0 0 (\d+)", text)
    assert width is not None and float(label.group(1)) <= int(width.group(1))


def test_provider_errors_notes_and_verification_are_shown_in_words() -> None:
    report = a_report([], PANEL)
    text = render_html(report, [], [], None)
    assert "<td class='error'>auth: invalid api key</td>" in text  # not only in a tooltip
    assert "verification: not_available" not in text and "not_needed" not in text
    assert "No finding was verified: verification did not run" in text
    css = (ROOT / "consensus" / "render" / "templates" / "report.css").read_text()
    assert ".notes { color: var(--muted); }" in css  # plain notes are not alarms


def test_an_empty_run_still_renders() -> None:
    text = render_html(a_report([], []), [], [], None)
    assert "No findings." in text and "No calls recorded." in text
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


# --------------------------------------------------------------------------- the command


def test_an_unknown_run_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "nope", "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "no run nope in the journal" in result.output
    assert "consensus runs" in result.output
    assert not (tmp_path / "r.html").exists()


def test_a_run_without_a_final_report_is_a_clear_error(tmp_path: Path) -> None:
    journal = Journal(consensus_home(os.environ) / "journal.db")
    journal.start_run("abc123", "abc123", "diff x.diff", "{}")
    journal.set_phase("abc123", "fan-out")
    journal.close()
    result = CliRunner().invoke(cli, ["report", "abc123", "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "run abc123 has no final report yet" in result.output
    assert "'fan-out'" in result.output and "--resume abc123" in result.output


# --------------------------------------------------------------------------- in a browser


BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_BROWSER = (
    "no Chromium on PATH (looked for chromium, chromium-browser, google-chrome): install one "
    "to run the browser checks (on Debian, the `chromium` package); tests never install "
    "system packages"
)


@pytest.fixture(scope="session")
def chromium() -> str:
    """A headless Chromium already on the machine; the browser checks skip without one."""
    found = next((path for path in map(shutil.which, BROWSERS) if path), None)
    if found is None:
        pytest.skip(NO_BROWSER)
    return found


def screenshot(chromium: str, page: Path, tmp: Path) -> tuple[bytes, list[str]]:
    """(PNG bytes, console lines about the page) from one headless Chromium run."""
    png = tmp / f"{page.stem}.png"
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp / f'profile-{page.stem}'}",
            f"--screenshot={png}",
            "--window-size=1400,1000",
            "--enable-logging=stderr",
            "--v=0",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.exists(), f"no screenshot (exit {done.returncode}):\n{done.stderr[-3000:]}"
    url = page.as_uri()
    console = [
        line
        for line in done.stderr.splitlines()
        if (":CONSOLE" in line and url in line) or "Uncaught" in line
    ]
    return png.read_bytes(), console


def png_facts(data: bytes) -> tuple[int, int, int]:
    """(width, height, distinct byte values of the pixel data): a flat image has few."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        if data[pos + 4 : pos + 8] == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def test_the_console_check_catches_a_broken_page(chromium: str, tmp_path: Path) -> None:
    """The control for the browser tests below: an error on a page does reach our check."""
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><p>x</p><script>noSuchFunction()</script>")
    _, console = screenshot(chromium, broken, tmp_path)
    assert any("Uncaught ReferenceError" in line for line in console), console


def test_a_hostile_report_runs_nothing_in_a_browser(chromium: str, tmp_path: Path) -> None:
    bait = "<script>console.error('pwned')</script><img src=x onerror=\"console.error('pwned')\">"
    report = a_report([finding("F1", ["openai/gpt-x"], title=bait)], PANEL[:1])
    page = tmp_path / "hostile.html"
    page.write_text(render_html(report, [], [], None), encoding="utf-8")
    _, console = screenshot(chromium, page, tmp_path)
    assert console == []  # neither ran, nor was refused by the CSP: it was text


def test_a_real_run_renders_in_chromium_without_console_errors(
    repo: Path, chromium: str, tmp_path: Path
) -> None:
    with FakeProviderServer(Script(), latency_s=0.1) as server:
        script_panel(server.script, dead=("qwen-test",))
        config = write_config(repo, server.url)
        home = tmp_path / "home"
        code, reviewed, stderr = run_cli(repo, command(config), env_for(home))
    assert code == 0, stderr
    run_id = str(reviewed["run_id"])
    out = tmp_path / "out.html"
    done = run_consensus(
        ["report", run_id, "--html", str(out)], cwd=repo, env=env_for(home, keys=False)
    )
    assert done.returncode == 0, done.stderr
    assert f"HTML report of run {run_id} written to {out}" in done.stderr

    text = out.read_text(encoding="utf-8")
    page = Page(text)
    # F1 (the injection) by all who answered; the off-by-one by gpt and claude only (left
    # undecided: one agreeable judge's confirmations are not enough, so it is listed after
    # the posted findings); the dead qwen abstains on both. Columns are in configuration
    # order. (Findings consensus raises itself, like the committed key, are listed too.)
    states = page.states()
    assert states[0] == ["reported", "reported", "reported", "abstained"], reviewed
    assert ["reported", "reported", "silent", "abstained"] in states[1:], reviewed
    assert "auth" in page.rows()[0][3][1]
    with sqlite3.connect(home / "consensus" / "journal.db") as db:
        calls = db.execute("SELECT count(*) FROM calls WHERE run_id = ?", (run_id,)).fetchone()[0]
    assert calls > 0 and text.count("<rect class='call ") == calls
    assert "inspector" in text and "Checked against the code shown." in text
    assert "http://" not in text and "https://" not in text  # self-contained

    png, console = screenshot(chromium, out, tmp_path)
    assert console == []
    width, height, variety = png_facts(png)
    assert (width, height) == (1400, 1000)
    assert len(png) > 20_000 and variety > 64  # a real page, not a blank or flat image


@pytest.mark.parametrize(
    ("self_votes", "summary"),
    [
        ((False, False), "judged by families that did not report it"),
        ((True, True), "judged by the reporters themselves (no other family answered)"),
    ],
)
def test_the_verification_table_shows_each_judges_family_and_marks_self_votes(
    self_votes: tuple[bool, bool], summary: str
) -> None:
    judges = ("anthropic/claude-x", "ollama/qwen-x")
    votes = tuple(
        Vote(model=m, family=m.split("/")[0], role="voter", verdict=VerdictKind.CONFIRMED,
             reason="ok", self_vote=own)
        for m, own in zip(judges, self_votes, strict=True)
    )  # fmt: skip
    checked = finding("F1", ["openai/gpt-x"]).model_copy(
        update={
            "verification": Verification(confirmed=2, votes=votes),
            "members": (
                FindingMember(
                    provider="openai/gpt-x", family="openai", persona="correctness", line=3,
                    title="A bug",
                ),
            ),
        }
    )  # fmt: skip
    text = render_html(a_report([checked], PANEL), [], [], None)
    section = text[text.index("<h2>Verification</h2>") :]
    assert "<td>anthropic" in section and "<td>ollama" in section  # each judge's family
    assert summary in section and "Reported by openai" in section
    assert section.count("class='self'") == sum(self_votes)
