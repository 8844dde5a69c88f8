"""The code the product reads for a judge before the judge asks for any: its first read.

Every judge of a claim is shown, in its question: the function around the claim from its
first line (at most `FUNCTION_LINES` before the claim), the claim's lines with `RADIUS`
lines around them; then where that function is called, at most `CALLS` places (code
before tests), each with `CALL_LINES` lines of the calling function before the call (the
guard an invented claim misses is often there, or in a test that calls it); then the
definitions of the names the claim's title and body mention (in backticks, called as
`name(`, or spelt like code: snake_case, UPPER_CASE, camelCase, CamelCase, Class.member),
each up to `DEFINITION_LINES` lines, at most `MAX_NAMES` names and `MAX_DEFINITIONS`
definitions each. A judge that can call tools asks for more from there; one that cannot
answers from this. It comes back as a `ToolResult`, so its spans count as seen by that
judge, as a tool's answer would.
"""

from __future__ import annotations

import re

from consensus.inspect.paths import ToolRefusal, confine
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.symbols import Definition, enclosing
from consensus.inspect.tests_of import is_test
from consensus.inspect.tool_results import Shown, ToolResult
from consensus.inspect.tools import definitions_of, references_of
from consensus.model.claim import Claim

RADIUS = 30
FUNCTION_LINES = 80  # of the function around the claim, before it, at most
CALLS = 4  # places the function is called, shown at most
CALL_LINES = 12  # of the calling function before the call
COMMON = 24  # a name used more often than this is not looked for callers
IMPORTS = ("import ", "from ", "use ", "#include", "export {")
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
    """The claim's function and place, where the function is called, and the
    definitions the claim names, for the judge's question."""
    shown = Shown("inline", max_chars)
    around = _window(shown, snapshot, claim)
    if around is not None and not shown.full:
        _calls(shown, snapshot, around)
    named = 0
    for name in mentioned_names(f"{claim.title}\n{claim.body}"):
        if shown.full:
            break
        container, _, member = name.rpartition(".")
        found = definitions_of(snapshot, member, container or None)[:MAX_DEFINITIONS]
        named += bool(found)
        if named > MAX_NAMES:
            break
        for definition in found:
            if shown.has(definition.path, "head", definition.line):
                continue  # already shown: the claim's own function
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


def _window(shown: Shown, snapshot: Snapshot, claim: Claim) -> Definition | None:
    """The claim's lines and those around them, from the first line of its function
    where that is near; the function, if the claim is in one."""
    try:
        name = confine(snapshot, claim.path, "head")
    except ToolRefusal as exc:
        shown.note(f"{claim.path}: {exc.message}")
        return None
    lines = snapshot.lines(name, "head") if snapshot.exists(name, "head") else None
    if not lines:
        shown.note(f"{claim.path} is not a text file of the head tree")
        return None
    line = min(claim.line, len(lines))
    around = enclosing(name, snapshot.text(name, "head") or "", line)
    start = max(1, line - RADIUS)
    if around is not None and around.line < start:
        start = max(around.line, line - FUNCTION_LINES)
    end = min(len(lines), max(claim.end_line, claim.line) + RADIUS)
    within = f", in {around.kind} {around.name} (line {around.line})" if around else ""
    shown.note(
        f"{name} (head), lines {start}-{end} of {len(lines)}, the claim at {claim.line}{within}:"
    )
    width = len(str(end))
    for number in range(start, end + 1):
        marker = ">" if claim.line <= number <= claim.end_line else " "
        if not shown.line(
            name, "head", number, lines[number - 1], label=f"{number:>{width}}{marker} "
        ):
            break
    return around


def _calls(shown: Shown, snapshot: Snapshot, around: Definition) -> None:
    """Where the claim's function is called (outside itself), code before tests."""
    uses = {
        (r.path, r.line)
        for r in references_of(snapshot, around.name)
        if not (r.path == around.path and around.line <= r.line <= around.end_line)
        and not _imports(snapshot, r.path, r.line)
    }
    if not uses:
        return
    if len(uses) > COMMON:
        shown.note(f"[{around.name} is used in {len(uses)} places: ask find_references]")
        return
    places = sorted(uses, key=lambda use: (is_test(use[0]), use))
    for path, line in places[:CALLS]:
        lines = snapshot.lines(path, "head") or []
        caller = enclosing(path, snapshot.text(path, "head") or "", line)
        first = max(caller.line if caller else 1, line - CALL_LINES)
        last = min(len(lines), line + 2)
        inside = f" in {caller.name}" if caller else ""
        shown.note(f"{around.name} used at {path}:{line}{inside}:")
        for number in range(first, last + 1):
            if not shown.line(path, "head", number, lines[number - 1], label=f"{path}:{number}: "):
                return
    if len(places) > CALLS:
        shown.note(f"[{len(places) - CALLS} more uses of {around.name}]")


def _imports(snapshot: Snapshot, path: str, line: int) -> bool:
    """An import of the name, which shows no use of it."""
    lines = snapshot.lines(path, "head") or []
    text = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
    return text.startswith(IMPORTS) or "require(" in text
