"""The slash-command parser, argument grammar, command files, the documented table and state."""

from __future__ import annotations

import base64
import contextlib
import json
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.app.talk.builtins import BUILTINS
from consensus.app.talk.registry import Registry, lookup, workflow_command
from consensus.errors import ConfigError, ConsensusError
from consensus.model.host import GITHUB_WORDS
from consensus.publish.answers import Section, safe_url
from consensus.publish.slash import (
    MAX_COMMANDS,
    ArgumentError,
    Grammar,
    Invocation,
    find_invocations,
    parse_arguments,
)
from consensus.publish.state import (
    STATE_VERSION,
    Dismissal,
    Pause,
    PublishState,
    decode_state,
    encode_state,
)
from consensus.publish.state_section import END, START, rewrite_summary
from consensus.settings.command_files import (
    README_END,
    README_START,
    builtin_command_dir,
    load_commands,
    parse_command,
    readme_block,
)
from consensus.settings.workflows import parse_workflow

ROOT = Path(__file__).resolve().parents[2]


def words(body: str, mention: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
    return [(i.word, i.args) for i in find_invocations(body, mention=mention)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/consensus review", [("review", ())]),
        ("  /Consensus EXPLAIN f3", [("explain", ("f3",))]),
        ("/consensus", [("help", ())]),
        ("/consensus\treview", [("review", ())]),
        ("/consensusreview", []),
        ("/consensus-bot review", []),
        ("text first\n/consensus pause\n/consensus resume", [("pause", ()), ("resume", ())]),
        ("/consensus review\n/consensus review", [("review", ())]),  # repeats run once
        ("```\n/consensus review\n```\n/consensus help", [("help", ())]),
        ("````\n```\n/consensus review\n````", []),
        ("```\nunclosed fence\n/consensus review", []),
        ("`/consensus review`", []),
        ("a `span\n/consensus review` b", []),
        ("> /consensus review", []),
        ("   > /consensus review", []),
        ("> quote\nlazy\n\n/consensus help", [("help", ())]),
        ("    /consensus review", []),
        ("\t/consensus review", []),
        ("<!-- /consensus review -->", []),
        ("/consensus dismiss F3 not `code` here", [("dismiss", ("F3", "not", "`code`", "here"))]),
        ("\r\n/consensus help\r\n", [("help", ())]),
    ],
)
def test_what_is_a_command(body: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert words(body) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Raw HTML leaves a comment open; a browser hides all after it.
        ("<!-- a --> <!--\n/consensus review", []),
        ("<!-- a --> <!--\n\n/consensus review\n\nmore", []),
        ("<div><!--\n\n/consensus review", []),
        ("<!-- a --> <!--\n/consensus review\n\n<p>--></p>\n\n/consensus help", [("help", ())]),
        ("<!-- a -->\n/consensus help", [("help", ())]),  # closed: the next line shows
        ("<!-->\n/consensus help", [("help", ())]),  # `<!-->` closes at once
        ("text <!-- y\n/consensus review\n--> after", []),  # an inline comment over lines
        ("<div>\n/consensus review\n</div>", []),  # raw HTML is no command
        ("- /consensus review", []),  # a list item's text is not at the start of a line
        ("- a\n  /consensus help", [("help", ())]),
        ("- a\n\n  ```\n  /consensus review\n  ```", []),  # a fence inside a list item
        ("- a\n  - b\n     ```\n     /consensus review", []),  # deeper, still code
        ("# /consensus review", []),
        ("[/consensus review](x)", []),
    ],
)
def test_what_commonmark_hides_is_no_command(
    body: str, expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    assert words(body) == expected


def test_the_mention_alias_only_when_configured() -> None:
    assert words("@consensus review") == []
    assert words("@consensus review", mention="@consensus") == [("review", ())]
    assert words("@Consensus REVIEW", mention="@consensus") == [("review", ())]
    assert words("@consensus-bot review", mention="@consensus") == []
    assert words("> @consensus review", mention="@consensus") == []


def test_at_most_a_few_commands_per_comment() -> None:
    body = "\n".join(f"/consensus explain F{n}" for n in range(1, 20))
    assert len(find_invocations(body)) == MAX_COMMANDS + 1  # one more says "too many"


@pytest.mark.parametrize(
    ("grammar", "args", "rest", "expected"),
    [
        (Grammar.FINDING, ("f03",), "f03", {"finding": "F3"}),
        (Grammar.FINDING_REASON, ("F2", "not", "ours"), "F2 not  ours", {"reason": "not ours"}),
        (Grammar.FINDING_REASON, ("F2",), "F2", {"reason": ""}),
        (Grammar.COMMAND, ("Dismiss",), "Dismiss", {"topic": "dismiss"}),
        (Grammar.NONE, (), "", {}),
    ],
)
def test_arguments_that_fit(
    grammar: Grammar, args: tuple[str, ...], rest: str, expected: dict[str, str]
) -> None:
    parsed = parse_arguments(grammar, Invocation(word="x", args=args, rest=rest, line=1), "u")
    assert {k: getattr(parsed, k) for k in expected} == expected


@pytest.mark.parametrize(
    ("grammar", "args"),
    [
        (Grammar.NONE, ("--model", "openai/evil")),
        (Grammar.FINDING, ()),
        (Grammar.FINDING, ("src/app.py",)),
        (Grammar.FINDING, ("F1", "F2")),
        (Grammar.FINDING, ("F1;rm",)),
        (Grammar.FINDING_REASON, ("http://evil.example",)),
        (Grammar.COMMAND, ("../../etc/passwd",)),
        (Grammar.COMMAND, ("a", "b")),
    ],
)
def test_arguments_that_do_not_fit(grammar: Grammar, args: tuple[str, ...]) -> None:
    invocation = Invocation(word="x", args=args, rest=" ".join(args), line=1)
    with pytest.raises(ArgumentError):
        parse_arguments(grammar, invocation, "usage")


def test_a_reason_has_a_length_limit() -> None:
    rest = "F1 " + "x" * 400
    invocation = Invocation(word="dismiss", args=tuple(rest.split()), rest=rest, line=1)
    with pytest.raises(ArgumentError, match="longer than"):
        parse_arguments(Grammar.FINDING_REASON, invocation, "usage")


_markdownish = st.text(
    alphabet=st.sampled_from(list("/consensu reviwxplaF3 `~>@\n\t-<!>#*")), max_size=300
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=400), _markdownish), st.sampled_from([None, "@consensus"]))
def test_any_comment_parses_to_commands_or_nothing(body: str, mention: str | None) -> None:
    found = find_invocations(body, mention=mention)
    assert len(found) <= MAX_COMMANDS + 1
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for invocation in found:
        line = lines[invocation.line - 1].lstrip(" ").lower()
        assert line.startswith("/consensus") or (mention and line.startswith(mention))
        assert invocation.word == invocation.word.lower() and invocation.word.strip()
        for grammar in Grammar:
            with contextlib.suppress(ArgumentError):
                parse_arguments(grammar, invocation, "usage")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["```", "~~~", "````"]))
def test_nothing_inside_a_fence_is_ever_a_command(inside: str, fence: str) -> None:
    inner = "\n".join(
        line
        for line in inside.replace("\r", "\n").split("\n")
        if not line.lstrip().startswith(fence[0] * 3)
    )
    body = f"{fence}\n{inner}\n/consensus review\n{fence}"
    assert find_invocations(body) == []


# --------------------------------------------------------------------------- command files


def test_every_command_file_loads_and_has_a_handler() -> None:
    specs = {name: command.spec for name, command in BUILTINS.load().items()}
    assert set(specs) == {p.stem for p in builtin_command_dir().glob("*.md")}
    assert all(specs[n].needs_write for n in ("review", "verify", "dismiss", "pause", "resume"))
    assert not any(specs[n].needs_write for n in ("help", "explain", "personas", "config"))
    assert specs["review"].spends_tokens and specs["verify"].spends_tokens


def test_the_documented_table_is_generated_from_the_command_files() -> None:
    page = (ROOT / "docs" / "slash-commands.md").read_text(encoding="utf-8")
    start, end = page.index(README_START), page.index(README_END) + len(README_END)
    assert page[start:end] == readme_block({n: c.spec for n, c in BUILTINS.load().items()}), (
        "docs/slash-commands.md is out of step with commands/: paste the output of readme_block()"
    )


VALID = """---
name: {name}
usage: /consensus {name}
summary: Does a thing.
permission: read
spends_tokens: false
aliases: []
---
Help text.
"""


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        (VALID.replace("aliases: []", "aliases: []\nshell: rm"), "shell", "unknown key"),
        (VALID.replace("permission: read", "permission: root"), "permission", "got 'root'"),
        (VALID.replace("summary: Does a thing.\n", ""), "summary", "is missing"),
        (VALID.replace("name: {name}", "name: other"), "name", "does not match"),
        (VALID.replace("usage: /consensus {name}", "usage: run it"), "usage", "must start"),
        (VALID.replace("Help text.", ""), "body", "is empty"),
        ("no front matter", "front matter", "is missing"),
    ],
)
def test_a_bad_command_file_names_the_file_and_the_field(
    text: str, field: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_command(text.replace("{name}", "thing"), path="commands/thing.md")
    assert caught.value.source == "commands/thing.md" and caught.value.key == field
    assert problem in caught.value.problem


def test_a_command_without_a_handler_fails_at_start_up(tmp_path: Path) -> None:
    for path in builtin_command_dir().glob("*.md"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "thing.md").write_text(VALID.replace("{name}", "thing"))
    with pytest.raises(ConfigError, match="no command 'thing' is implemented"):
        BUILTINS.load(tmp_path)
    (tmp_path / "thing.md").write_text(
        VALID.replace("{name}", "thing").replace("aliases: []", "aliases: [review]")
    )
    with pytest.raises(ConfigError, match="'review' is already used"):
        load_commands(tmp_path)


def test_a_handler_without_a_command_file_fails_at_start_up() -> None:
    registry = Registry()
    for name, command in BUILTINS.load().items():
        registry.command(name, command.grammar)(command.handler)
    registry.command("thing", Grammar.NONE)(lambda context, arguments: Section("t", "done"))
    with pytest.raises(ConsensusError, match="no command file for: thing"):
        registry.load()


def test_each_built_in_command_carries_its_file_grammar_and_handler() -> None:
    builtins = BUILTINS.load()
    assert [builtins[n].grammar for n in ("explain", "dismiss", "help", "pause")] == [
        Grammar.FINDING,
        Grammar.FINDING_REASON,
        Grammar.COMMAND,
        Grammar.NONE,
    ]
    assert lookup("why", builtins) is builtins["explain"]  # an alias from its file
    assert builtins["dismiss"].needs_write and not builtins["explain"].needs_write


def test_a_saved_workflow_registers_as_a_command_like_the_built_ins() -> None:
    text = "---\ndescription: Injection only\npersonas: [security]\n---\nLook for injection.\n"
    workflow = parse_workflow(text, path=".consensus/workflows/security-audit.md")
    command = workflow_command(workflow)
    assert (command.name, command.grammar) == ("security-audit", Grammar.NONE)
    assert command.needs_write and command.spec.usage == "/consensus security-audit"
    assert lookup("security-audit", {command.name: command}) is command


# --------------------------------------------------------------------------- state


def test_a_v1_state_still_reads() -> None:
    v1 = {"version": 1, "head_sha": "abc", "findings": []}
    packed = base64.b64encode(zlib.compress(json.dumps(v1).encode())).decode()
    state = decode_state(f"body\n<!-- consensus:state v1 {packed} -->")
    assert state is not None and state.head_sha == "abc" and state.dismissed == ()


@pytest.mark.parametrize(
    "payload",
    [
        {"head_sha": "x", "dismissed": [{"fingerprint": "zz", "by": "a"}]},
        {"head_sha": "x", "admins": ["mallory"]},
        [1, 2],
    ],
)
def test_an_altered_state_is_not_read(payload: object) -> None:
    packed = base64.b64encode(zlib.compress(json.dumps(payload).encode())).decode()
    assert decode_state(f"body\n<!-- consensus:state v2 {packed} -->") is None


def test_a_newer_state_is_not_read() -> None:
    line = encode_state(PublishState()).replace(f" v{STATE_VERSION} ", f" v{STATE_VERSION + 1} ")
    assert f" v{STATE_VERSION + 1} " in line and decode_state(f"x\n{line}") is None


def test_commands_rewrite_their_section_and_the_state_in_place() -> None:
    body = (
        f"<!-- consensus:summary -->\n## consensus review\n\ntext\n{encode_state(PublishState())}"
    )
    state = PublishState(
        paused=Pause(by="maria"),
        dismissed=(Dismissal(fingerprint="0123456789abcdef", id="F2", by="maria", reason="ok"),),
    )
    once = rewrite_summary(body, state, GITHUB_WORDS)
    twice = rewrite_summary(once, state, GITHUB_WORDS)
    assert once == twice and once.count(START) == 1 and once.count(END) == 1
    assert "paused" in once and "Dismissed (1)" in once and "\ntext\n" in once
    assert decode_state(once) == state.model_copy(update={"version": STATE_VERSION})
    cleared = rewrite_summary(once, PublishState(), GITHUB_WORDS)
    assert "paused" not in cleared and "Dismissed" not in cleared


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://user:hunter2@llm.example/v1?key=abc#x", "https://llm.example/v1"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        (None, None),
    ],
)
def test_config_never_shows_credentials_in_urls(url: str | None, safe: str | None) -> None:
    assert safe_url(url) == safe
