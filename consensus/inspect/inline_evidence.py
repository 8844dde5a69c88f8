"""The evidence a judge that cannot call tools is given in its prompt instead.

The claim's lines with `RADIUS` lines around them, then the definitions of the names the
claim's title and body mention (in backticks, called as `name(`, or spelt like code:
snake_case, UPPER_CASE, camelCase, CamelCase, Class.member), each up to
`DEFINITION_LINES` lines, at most `MAX_NAMES` names and `MAX_DEFINITIONS` definitions
each. It comes back as a `ToolResult`, so its spans count as seen by that judge, as a
tool's answer would.
"""

from __future__ import annotations

import re

from consensus.inspect.paths import ToolRefusal, confine
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.tool_results import Shown, ToolResult
from consensus.inspect.tools import definitions_of
from consensus.model.claim import Claim

RADIUS = 30
MAX_NAMES = 5
MENTIONS = 20  # names looked up at most
MAX_DEFINITIONS = 2  # of one name
DEFINITION_LINES = 40
MAX_CHARS = 16_000
_BACKTICKED = re.compile(r"`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?:\([^`]*\))?`")
_CALLED = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*)\(")
_CODE_LIKE = re.compile(
    r"(?<![\w.$])([a-z]+_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*"
    r"|[A-Z]\w*\.[a-z_]\w*)\b"
)


def inline_evidence(snapshot: Snapshot, claim: Claim, max_chars: int = MAX_CHARS) -> ToolResult:
    """The claim's place and the definitions it names, for the judge's prompt."""
    shown = Shown("inline", max_chars)
    _window(shown, snapshot, claim)
    named = 0
    for name in mentioned_names(f"{claim.title}\n{claim.body}"):
        container, _, member = name.rpartition(".")
        found = definitions_of(snapshot, member, container or None)[:MAX_DEFINITIONS]
        named += bool(found)
        if named > MAX_NAMES:
            break
        for definition in found:
            lines = snapshot.lines(definition.path, "head") or []
            last = min(definition.end_line, definition.line + DEFINITION_LINES - 1, len(lines))
            shown.note(f"{name}: {definition.kind}, {definition.path}:{definition.line}")
            for number in range(definition.line, last + 1):
                label = f"{definition.path}:{number}: "
                if not shown.line(definition.path, "head", number, lines[number - 1], label=label):
                    return shown.result()
            if last < definition.end_line:
                shown.note(f"[{definition.end_line - last} more lines of {name}]")
    return shown.result()


def mentioned_names(text: str) -> list[str]:
    """The names a claim's words mention, in the order it mentions them, at most
    `MENTIONS` (the first `MAX_NAMES` with a definition are shown)."""
    found: dict[int, str] = {}
    for regex in (_BACKTICKED, _CALLED, _CODE_LIKE):
        for match in regex.finditer(text):
            found.setdefault(match.start(1), match.group(1))
    names: list[str] = []
    for _, name in sorted(found.items()):
        if name not in names and len(name) > 1:
            names.append(name)
    return names[:MENTIONS]


def _window(shown: Shown, snapshot: Snapshot, claim: Claim) -> None:
    try:
        name = confine(snapshot, claim.path, "head")
    except ToolRefusal as exc:
        shown.note(f"{claim.path}: {exc.message}")
        return
    lines = snapshot.lines(name, "head") if snapshot.exists(name, "head") else None
    if not lines:
        shown.note(f"{claim.path} is not a text file of the head tree")
        return
    start = max(1, min(claim.line, len(lines)) - RADIUS)
    end = min(len(lines), max(claim.end_line, claim.line) + RADIUS)
    shown.note(f"{name} (head), lines {start}-{end} of {len(lines)}, the claim at {claim.line}:")
    width = len(str(end))
    for number in range(start, end + 1):
        marker = ">" if claim.line <= number <= claim.end_line else " "
        if not shown.line(
            name, "head", number, lines[number - 1], label=f"{number:>{width}}{marker} "
        ):
            return
