"""The GitLab job log: no sequence a foreign text wrote reaches GitLab's log viewer, and
no token or key is printed, whoever writes the line."""

from __future__ import annotations

import io
import sys

from consensus.action.gitlab_log import MASKED, GitLabLog, inert

TOKEN = "glpat-Zx81kQm2vT9yLp4HwN3c"
SECTION = "section_start:1700000000:fake_section[collapsed=true]\r\x1b[0KInstalling"


def log() -> tuple[GitLabLog, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return GitLabLog(out=out, err=err), out, err


def test_ansi_sequences_from_a_title_are_shown_not_acted_on() -> None:
    title = "\x1b[32mAll checks passed\x1b[0m \x1b]8;;https://evil.example\x07click\x1b]8;;\x07"
    shown = inert(title)
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.startswith("^[[32mAll checks passed^[[0m")


def test_a_section_marker_cannot_open_or_hide_a_section() -> None:
    shown = inert(SECTION)
    assert "\r" not in shown and "\x1b" not in shown
    assert "section_start:" not in shown and shown.startswith("section_start%3A1700000000")
    assert "section_end:" not in inert("SECTION_END:1:x")


def test_a_carriage_return_cannot_rewrite_the_line_and_newlines_stay_on_one_line() -> None:
    writer, _, err = log()
    writer("reviewed src/app.py\rconsensus: 0 findings\nPASS")
    assert err.getvalue() == "consensus: reviewed src/app.py^Mconsensus: 0 findings\\nPASS\n"


def test_a_masked_token_never_appears_in_our_lines_nor_in_its_url_encoded_form() -> None:
    writer, _, err = log()
    assert writer.mask([TOKEN, "short"]) == 1  # too short a value would hide words
    writer(f"GET https://gitlab.example.com/api/v4/user?private_token={TOKEN}")
    writer("token=" + TOKEN.replace("-", "%2D"))
    assert TOKEN not in err.getvalue() and MASKED in err.getvalue()


def test_other_writers_are_made_inert_and_redacted_while_the_guard_holds() -> None:
    writer, _, _ = log()
    writer.mask([TOKEN])
    captured = io.StringIO()
    real = sys.stderr
    sys.stderr = captured
    try:
        with writer.guard():
            print(
                f"Traceback ...\n  requests.exceptions.HTTPError: 401 for {TOKEN}", file=sys.stderr
            )
            sys.stderr.write(SECTION)  # a library writing without a newline
        assert sys.stderr is captured
    finally:
        sys.stderr = real
    text = captured.getvalue()
    assert TOKEN not in text and "\x1b" not in text and "\r" not in text
    assert text.splitlines()[-1].startswith("section_start%3A")


def test_a_verbatim_block_keeps_its_lines_but_neither_sequences_nor_secrets() -> None:
    writer, out, _ = log()
    writer.mask([TOKEN])
    writer.verbatim("the reply", f"line one\n\x1b[2Kline two {TOKEN}")
    assert out.getvalue() == f"line one\n^[[2Kline two {MASKED}\n"
