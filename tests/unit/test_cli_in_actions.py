"""`consensus review` in a user's own `run:` step: the runner reads what the command line
prints for workflow commands, so a finding's words that would be one are printed inert."""

from __future__ import annotations

import pytest

from consensus.action.log import inert, runner_acts_on
from consensus.cli.options import emit, logger
from consensus.model.base import Status
from consensus.model.report import Report
from tests.unit.test_render import finding, make_report

HOSTILE = (
    "Harmless rename.\n::add-mask::sk-live-key\n  ::error file=.github/x.yml::pwned\n"
    "##[set-env name=X;]1"
)


def hostile_report() -> Report:
    return make_report([finding(1, Status.CONSENSUS, body=HOSTILE)])


def test_inert_marks_each_line_the_runner_would_act_on_and_leaves_the_rest() -> None:
    text = inert("plain line\n::warning::x\n   ::group::y\nsee ##[error]z")
    lines = text.split("\n")
    assert lines[0] == "plain line"
    assert all(line.startswith("(escaped) ") for line in lines[1:])
    assert not any(runner_acts_on(line) for line in lines)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_report_printed_in_an_actions_step_holds_no_workflow_command(
    fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    emit(hostile_report(), fmt, None, lambda line: None)
    out = capsys.readouterr().out
    assert "Harmless rename." in out
    assert not [line for line in out.splitlines() if runner_acts_on(line)]


def test_outside_actions_the_report_is_printed_as_rendered(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    emit(hostile_report(), "markdown", None, lambda line: None)
    assert "(escaped)" not in capsys.readouterr().out


def test_log_lines_in_an_actions_step_hold_no_workflow_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    logger()("FAIL openai/gpt-5.1: server said ##[error]boom\n::stop-commands::abc")
    err = capsys.readouterr().err
    assert err.startswith("consensus: (escaped) ")
    assert not [line for line in err.splitlines() if runner_acts_on(line)]
