"""The Actions log: foreign text never becomes a workflow command; our own commands are
the only ones; credentials are masked. Checked with a parser of workflow commands written
from GitHub's documentation (tests/workflow_commands.py)."""

from __future__ import annotations

import io
import logging
import secrets
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.action.log import ActionLog, escape_data
from consensus.action.main import action_secrets, guarded
from consensus.app.secrets import credential_values
from tests.workflow_commands import Command, commands

# What an attacker writes in a PR title, a file name, a model's finding or a provider error.
HOSTILE = [
    "::error file=app.py,line=1::Your session expired, re-authenticate at https://evil.example",
    "  ::warning::indented after leading spaces",
    "::add-mask::ghs_hide_everything",
    "::stop-commands::abc",
    "::group::fold the rest",
    "::set-output name=verdict::approved",
    "::save-state name=x::y",
    "::debug::noise",
    "title\n::error::second line of a multi-line title",
    "title\r::notice::after a carriage return",
    "title\r\n::notice::after CRLF",
    "see ##[error]legacy command in the middle",
    "##[add-mask]legacy-mask",
    "100% sure %0A::error::pre-escaped newline",
]


def _log() -> tuple[ActionLog, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return ActionLog(out, err), out, err


# ---------------------------------------------------------------- the parser itself


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "::error file=app.js,line=1::Missing semicolon",
            [Command("error", "Missing semicolon", 1, {"file": "app.js", "line": "1"})],
        ),
        ("   ::WARNING::loud", [Command("warning", "loud", 1)]),
        ("::notice::a%0Ab%25", [Command("notice", "a\nb%", 1)]),
        ("::error title=a%3Ab%2Cc::x", [Command("error", "x", 1, {"title": "a:b,c"})]),
        ("ok\r::debug::x", [Command("debug", "x", 2)]),
        ("text ##[warning]legacy", [Command("warning", "legacy", 1, legacy=True)]),
        ("consensus: ::error::not at the start", []),
        ("::no closing marker", []),
        (
            "::stop-commands::tok\n::error::ignored\n::tok::\n::notice::again",
            [
                Command("stop-commands", "tok", 1),
                Command("resume-commands", "tok", 3),
                Command("notice", "again", 4),
            ],
        ),
    ],
)
def test_the_parser_reads_commands_as_the_runner_does(output: str, expected: list[Command]) -> None:
    assert commands(output) == expected


# ---------------------------------------------------------------- the one writer


@pytest.mark.parametrize("text", HOSTILE)
def test_a_log_line_carrying_a_command_is_one_inert_line(text: str) -> None:
    log, out, err = _log()
    log(f"PR title: {text}")
    assert commands(out.getvalue() + err.getvalue()) == []
    assert err.getvalue().count("\n") == 1 and out.getvalue() == ""
    assert err.getvalue().startswith("consensus: PR title: ")


# Text built from the pieces a command is made of, so that hypothesis finds commands often.
COMMAND_TEXT = st.lists(
    st.sampled_from(["::", "##[", "]", " ", "\n", "\r", "%", "error", "add-mask", "x", "=", ","])
    | st.text(max_size=5),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(COMMAND_TEXT)
def test_no_text_through_the_writer_is_a_command(text: str) -> None:
    log, out, err = _log()
    log(text)
    assert commands(out.getvalue() + err.getvalue()) == []
    assert err.getvalue().count("\n") == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(COMMAND_TEXT, max_size=5))
def test_no_text_through_the_guard_is_a_command(writes: list[str]) -> None:
    log, out, err = _log()
    with log.guard():
        for text in writes:
            sys.stdout.write(text)
            sys.stderr.write(text)
    assert commands(out.getvalue()) == [] and commands(err.getvalue()) == []


def test_data_is_escaped_by_githubs_rules() -> None:
    assert escape_data("50%\r\n::x") == "50%25%0D%0A::x"


def test_our_warning_is_the_only_command_and_its_text_stays_data() -> None:
    log, out, err = _log()
    log.warning("quorum not met\n::error::forged: 1,2")
    [warning] = commands(out.getvalue() + err.getvalue())
    assert (warning.name, warning.properties) == ("warning", {"title": "consensus"})
    assert warning.data == "quorum not met\n::error::forged: 1,2"


def test_a_verbatim_block_is_shown_as_is_and_commands_in_it_are_not_run() -> None:
    log, out, _ = _log()
    block = "line one\n::error::inside the block\n::endgroup::\n::resume::"
    log.verbatim("the model's reply:", block)
    found = commands(out.getvalue())
    assert [c.name for c in found] == ["stop-commands", "resume-commands"]
    assert "::error::inside the block" in out.getvalue().splitlines()  # verbatim
    token = found[0].data
    assert len(token) >= 32 and token not in block


def test_a_verbatim_block_holding_an_old_token_cannot_resume_commands_early() -> None:
    first, out1, _ = _log()
    first.verbatim("one", "x")
    old = commands(out1.getvalue())[0].data
    second, out2, _ = _log()
    second.verbatim("two", f"::{old}::\n::error::after a guessed token")
    assert [c.name for c in commands(out2.getvalue())] == ["stop-commands", "resume-commands"]


# ---------------------------------------------------------------- everything else that prints


def test_the_guard_neutralises_every_other_writer() -> None:
    log, out, err = _log()
    logger = logging.getLogger("consensus-test-guard")
    with log.guard():
        print("::error file=a.py::from print")
        sys.stderr.write("partial ::warn")
        sys.stderr.write("ing:: still one line\n::notice::")
        sys.stderr.write("second line\r##[add-mask]x\n")
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # the suite turns warnings into errors
            warnings.warn("::error::from a warning", UserWarning, stacklevel=1)
        handler = logging.StreamHandler()  # built inside: writes to the guarded stderr
        logger.addHandler(handler)
        logger.warning("::error::from a library's logger")
        logger.removeHandler(handler)
        print("plain line, left as it is: 100%")
        print("::debug::unterminated", end="")
    assert commands(out.getvalue() + err.getvalue()) == []
    assert "plain line, left as it is: 100%\n" in out.getvalue()
    assert "consensus: warning: UserWarning: ::error::from a warning" in err.getvalue()
    assert sys.stdout is not out and not isinstance(sys.stdout, type(None))


def test_the_guard_is_lifted_when_the_run_is_over() -> None:
    log, _, _ = _log()
    before = sys.stdout, sys.stderr
    with log.guard():
        assert sys.stdout is not before[0]
    assert (sys.stdout, sys.stderr) == before


# ---------------------------------------------------------------- masks


def test_every_credential_in_the_environment_is_masked(tmp_path: Path) -> None:
    (tmp_path / ".consensus.yml").write_text(
        "providers:\n  - model: openai/gpt-test\n    api_key_env: LLM_PROD\n"
    )
    env = {
        "GITHUB_TOKEN": "ghs_" + "A1b2" * 9,
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.xyz",
        "OPENAI_API_KEY": "sk-proj-" + "Zx9" * 15,
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        "LLM_PROD": "Qm9vbGVhbiBsb2dpYyBpcyBwcmV0dHkgZ3JlYXQ",  # named only in the config
        "MY_THING": "sk-ant-api03-"
        + secrets.token_urlsafe(70),  # a key by its format under any name
        "GITHUB_REPOSITORY": "acme/service",
        "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
        "GITHUB_WORKSPACE": str(tmp_path),
        "RUNNER_OS": "Linux",
    }
    log, out, _ = _log()
    log.mask(action_secrets(env))
    masked = {c.data for c in commands(out.getvalue()) if c.name == "add-mask"}
    secret = {"GITHUB_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPENAI_API_KEY",
              "AWS_SECRET_ACCESS_KEY", "LLM_PROD", "MY_THING"}  # fmt: skip
    assert masked == {env[name] for name in secret}


def test_a_multi_line_credential_is_masked_line_by_line_and_short_values_are_not() -> None:
    log, out, _ = _log()
    log.mask(["-----BEGIN KEY-----\nQUJDREVGR0hJSktMTU5PUA==\n-----END KEY-----", "abc"])
    masked = [c.data for c in commands(out.getvalue())]
    assert masked == ["-----BEGIN KEY-----", "QUJDREVGR0hJSktMTU5PUA==", "-----END KEY-----"]


def test_credential_names_are_told_from_other_variables() -> None:
    env = {
        "GH_PAT": "x" * 10,
        "DB_PASSWORD": "y" * 10,
        "INPUT_OPENAI-API-KEY": "z" * 10,
        "GITHUB_EVENT_PATH": "/tmp/e.json",
        "TOKENIZERS_PARALLELISM": "false",
        "KEYBOARD": "us",
    }
    assert credential_values(env) == ["y" * 10, "x" * 10, "z" * 10]


def test_a_crash_is_reported_through_the_guard() -> None:
    def crash() -> int:
        raise RuntimeError("model said\n::error file=x.py::forged")

    log, out, err = _log()
    assert guarded(log, crash) == 1
    assert "RuntimeError" in err.getvalue()
    assert commands(out.getvalue() + err.getvalue()) == []
