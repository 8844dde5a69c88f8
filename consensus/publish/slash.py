"""Slash-command parsing: comment text → the commands in it, and their arguments. Pure.

A command is `/consensus <command> [args]` (or the configured mention, e.g.
`@consensus <command>`) at the start of a line, indented at most three spaces, in any
letter case; a comment may hold several. What Markdown shows as code or as a quotation
is never a command: fenced code blocks, indented code, inline code spans (also across
lines), HTML comments, `>` quotes and the lines a quote runs on into. Arguments are
parsed strictly by a fixed grammar per command: a finding id (`F3`), a free-text reason
for `dismiss`, a command name for `help`. Nothing else is accepted, so no command can
name a provider, an endpoint, a prompt or a path.
"""

from __future__ import annotations

import re
from enum import Enum

from consensus.model.base import Frozen

MAX_COMMANDS = 5  # per comment; more are reported, not run
MAX_REASON = 300
PREFIX = "/consensus"
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FINDING_ID = re.compile(r"^[Ff](\d{1,5})$")
_BACKTICKS = re.compile(r"`+")


class Invocation(Frozen):
    """One command as written: the word after the prefix (lowercased), its arguments."""

    word: str
    args: tuple[str, ...] = ()
    rest: str = ""  # the text after the word, as written (for a reason)
    line: int  # 1-based line of the comment


class Grammar(str, Enum):
    NONE = "none"
    FINDING = "finding"  # F3
    FINDING_REASON = "finding_reason"  # F3 [reason …]
    COMMAND = "command"  # [command name]


# The argument grammar of every implemented command; command files must match these names.
GRAMMARS: dict[str, Grammar] = {
    "review": Grammar.NONE,
    "explain": Grammar.FINDING,
    "verify": Grammar.FINDING,
    "dismiss": Grammar.FINDING_REASON,
    "queue": Grammar.NONE,
    "personas": Grammar.NONE,
    "workflows": Grammar.NONE,
    "config": Grammar.NONE,
    "pause": Grammar.NONE,
    "resume": Grammar.NONE,
    "help": Grammar.COMMAND,
}


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
    indent = len(shown) - len(shown.lstrip(" "))
    if indent > 3 or shown[indent : indent + 1] in ("", "\t"):
        return None
    lowered = shown[indent:].lower()
    for prefix in prefixes:
        after = lowered[len(prefix) : len(prefix) + 1]
        if lowered.startswith(prefix) and (after == "" or after.isspace()):
            rest = original[indent + len(prefix) :].strip()
            words = rest.split()
            word = words[0].lower() if words else "help"
            remainder = rest[len(words[0]) :].strip() if words else ""
            return Invocation(word=word, args=tuple(words[1:]), rest=remainder, line=number)
    return None


def _mask(lines: list[str]) -> list[str]:
    """The lines with everything that is code, a comment or a quotation blanked out."""
    shown = list(lines)
    fence: str | None = None
    in_comment = False
    quoted = False
    for n, line in enumerate(lines):
        if fence is not None:
            closing = line.strip()
            if _FENCE.match(line) and set(closing) == {fence[0]} and len(closing) >= len(fence):
                fence = None
            shown[n] = ""
            continue
        if in_comment:
            in_comment = "-->" not in line
            shown[n] = ""
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            shown[n] = ""
            continue
        if "<!--" in line and "-->" not in line[line.index("<!--") :]:
            in_comment = True
        stripped = line.lstrip(" ")
        if stripped.startswith(">") or (quoted and stripped):
            quoted = True  # a quote runs on to the next blank line (a lazy continuation)
            shown[n] = ""
            continue
        quoted = False
    return _mask_code_spans(shown)


def _mask_code_spans(lines: list[str]) -> list[str]:
    """Blank inline code spans, which may run across the lines of one paragraph."""
    out = list(lines)
    start = 0
    while start < len(out):
        if not out[start].strip():
            start += 1
            continue
        end = start
        while end < len(out) and out[end].strip():
            end += 1
        text = "\n".join(out[start:end])
        masked = _mask_spans(text)
        out[start:end] = masked.split("\n")
        start = end
    return out


def _mask_spans(text: str) -> str:
    chars = list(text)
    pos = 0
    while (opening := _BACKTICKS.search(text, pos)) is not None:
        run = opening.group()
        closing = next(
            (m for m in _BACKTICKS.finditer(text, opening.end()) if m.group() == run), None
        )
        if closing is None:
            pos = opening.end()
            continue
        for index in range(opening.start(), closing.end()):
            if chars[index] != "\n":
                chars[index] = " "
        pos = closing.end()
    return "".join(chars)


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
            f"'{args[0][:40]}' is not a finding id: use the ID column of the summary, e.g. F3"
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
