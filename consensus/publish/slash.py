"""Slash-command parsing: comment text → the commands in it, and their arguments. Pure.

A command is `/consensus <command> [args]` (or the configured mention, e.g.
`@consensus <command>`) at the start of a line, indented at most three spaces, in any
letter case; a comment may hold several. Only what a reader sees as text is a command:
the comment is parsed as CommonMark (markdown-it-py, as GitHub's renderer parses it), and
fenced and indented code, inline code spans (also across lines), HTML blocks, HTML
comments, `>` quotes (and the lines a quote runs on into) never are. Raw HTML that opens
a comment and leaves it open hides everything after it from a browser (`<!-- a --> <!--`
then a command on the next line): those lines are hidden here too.

Arguments are parsed strictly by a fixed grammar per command: a finding id (`F3`), a
free-text reason for `dismiss`, a command name for `help`. Nothing else is accepted, so
no command can name a provider, an endpoint, a prompt or a path. An ArgumentError's
message is Markdown: what it quotes of the comment is in a code span (`code`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline, backtick, html_inline
from markdown_it.token import Token

from consensus.model.base import Frozen
from consensus.render.untrusted import code

MAX_COMMANDS = 5  # per comment; more are reported, not run
MAX_REASON = 300
PREFIX = "/consensus"
_FINDING_ID = re.compile(r"^[Ff](\d{1,5})$")


class Invocation(Frozen):
    """One command as written: the word after the prefix (lowercased), its arguments."""

    word: str
    args: tuple[str, ...] = ()
    rest: str = ""  # the text after the word, as written (for a reason)
    line: int  # 1-based line of the comment


class Grammar(str, Enum):
    """The arguments a command takes: each command registers one (app/talk/registry.py)."""

    NONE = "none"
    FINDING = "finding"  # F3
    FINDING_REASON = "finding_reason"  # F3 [reason …]
    COMMAND = "command"  # [command name]


class Arguments(Frozen):
    """Arguments that passed their command's grammar."""

    finding: str | None = None  # "F3"
    reason: str = ""
    topic: str | None = None  # help about one command


class ArgumentError(ValueError):
    """The arguments do not fit the command's grammar; the message says what was wrong."""


def find_invocations(body: str, *, mention: str | None = None) -> list[Invocation]:
    """Every command in a comment, in order, without repeats (at most MAX_COMMANDS + 1)."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    visible = _mask(lines)
    prefixes = [PREFIX, *([mention.strip().lower()] if mention and mention.strip() else [])]
    found: list[Invocation] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for number, (shown, original) in enumerate(zip(visible, lines, strict=True), start=1):
        invocation = _command(shown, original, prefixes, number)
        if invocation is None:
            continue
        key = (invocation.word, tuple(a.lower() for a in invocation.args))
        if key in seen:
            continue
        seen.add(key)
        found.append(invocation)
        if len(found) > MAX_COMMANDS:
            break
    return found


def _command(shown: str, original: str, prefixes: list[str], number: int) -> Invocation | None:
    indent = len(original) - len(original.lstrip(" "))
    if indent > 3 or original[indent : indent + 1] in ("", "\t"):
        return None
    lowered = original[indent:].lower()
    visible = shown.lstrip(" \t").lower()
    for prefix in prefixes:
        after = lowered[len(prefix) : len(prefix) + 1]
        if not (lowered.startswith(prefix) and visible.startswith(prefix)):
            continue
        if after == "" or after.isspace():
            rest = original[indent + len(prefix) :].strip()
            words = rest.split()
            word = words[0].lower() if words else "help"
            remainder = rest[len(words[0]) :].strip() if words else ""
            return Invocation(word=word, args=tuple(words[1:]), rest=remainder, line=number)
    return None


def _mask(lines: list[str]) -> list[str]:
    """Each line as a reader of the rendered comment sees it: the text of paragraphs and
    headings outside quotes, with code spans and HTML comments blanked; every other line
    (code blocks, HTML blocks, quotes, what an unclosed HTML comment swallows) blank."""
    shown = [""] * len(lines)
    quoted = 0
    hidden = False  # inside an HTML comment that raw HTML opened and left open
    for token in _parser().parse("\n".join(lines)):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        elif token.type == "html_block":
            hidden = _comment_left_open(token.content, hidden)
        elif token.type == "inline" and token.map is not None:
            text, hidden = _mask_inline(token, hidden)
            if quoted:
                continue
            for offset, line in enumerate(text.split("\n")):
                if token.map[0] + offset < len(lines):
                    shown[token.map[0] + offset] = line
    return shown


def _parser() -> MarkdownIt:
    """CommonMark (GitHub's base), told to note where each code span and inline HTML lies."""
    md = MarkdownIt("commonmark")
    md.inline.ruler.at("backticks", _spanned(backtick))
    md.inline.ruler.at("html_inline", _spanned(html_inline))
    return md


def _spanned(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    def noted(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent and len(state.tokens) > count:
            state.tokens[-1].meta["span"] = (start, state.pos)
        return True

    return noted


def _mask_inline(token: Token, hidden: bool) -> tuple[str, bool]:
    """The paragraph's text with code spans and inline HTML blanked (newlines kept); while
    an HTML comment is open, everything up to the inline HTML that closes it."""
    chars = list(token.content)

    def blank(start: int, end: int) -> None:
        for index in range(start, min(end, len(chars))):
            if chars[index] != "\n":
                chars[index] = " "

    spans = [
        (child, child.meta["span"])
        for child in token.children or ()
        if child.type in ("code_inline", "html_inline") and "span" in child.meta
    ]
    if hidden:
        end = len(chars)
        for child, (_, stop) in spans:
            if child.type == "html_inline" and not _comment_left_open(child.content, True):
                end, hidden = stop, False
                break
        blank(0, end)
    for _, (start, stop) in spans:
        blank(start, stop)
    return "".join(chars), hidden


def _comment_left_open(raw: str, inside: bool) -> bool:
    """Whether raw HTML leaves an HTML comment open, as a browser reads it (`<!-->` and
    `<!--->` close at once; `-->` or `--!>` close one)."""
    pos = 0
    while True:
        if inside:
            ends = [i for i in (raw.find("-->", pos), raw.find("--!>", pos)) if i >= 0]
            if not ends:
                return True
            pos = min(ends) + (3 if raw.startswith("-->", min(ends)) else 4)
            inside = False
        else:
            start = raw.find("<!--", pos)
            if start < 0:
                return False
            pos = start + 4
            if raw.startswith(">", pos) or raw.startswith("->", pos):
                pos += 1 if raw.startswith(">", pos) else 2
                continue
            inside = True


def parse_arguments(grammar: Grammar, invocation: Invocation, usage: str) -> Arguments:
    """The invocation's arguments under `grammar`; ArgumentError says what does not fit."""
    args = invocation.args
    if grammar is Grammar.NONE:
        if args:
            raise ArgumentError(f"takes no arguments (usage: `{usage}`)")
        return Arguments()
    if grammar is Grammar.COMMAND:
        if len(args) > 1 or (args and not re.match(r"^[A-Za-z][A-Za-z0-9-]{0,30}$", args[0])):
            raise ArgumentError(f"takes at most a command name (usage: `{usage}`)")
        return Arguments(topic=args[0].lower() if args else None)
    if not args:
        raise ArgumentError(f"needs a finding id such as F3 (usage: `{usage}`)")
    match = _FINDING_ID.match(args[0])
    if match is None:
        raise ArgumentError(
            f"{code(args[0][:40])} is not a finding id: use the ID column of the summary, e.g. F3"
        )
    finding = f"F{int(match.group(1))}"
    if grammar is Grammar.FINDING:
        if len(args) > 1:
            raise ArgumentError(f"takes one finding id (usage: `{usage}`)")
        return Arguments(finding=finding)
    reason = " ".join(invocation.rest.split()[1:])
    if len(reason) > MAX_REASON:
        raise ArgumentError(f"the reason is longer than {MAX_REASON} characters")
    return Arguments(finding=finding, reason=reason)
