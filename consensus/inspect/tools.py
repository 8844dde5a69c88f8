"""The five read-only tools a judge may call: arguments in, a `ToolResult` out.

Each reads the pull request's trees through a `Snapshot` (redacted as the prompt is),
refuses what `inspect/paths.py` refuses (`ToolRefusal`), and records the exact lines it
shows (`Shown`), within `max_chars`. The tools walking the head tree (search, the
symbols, list_tests) leave out what they may not read: `.git/`, what the configuration
does not review, symlinks (their targets inside the tree are searched as themselves).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any, Protocol

from consensus.ingest.pathfilter import PathRules
from consensus.inspect.paths import ToolRefusal, confine, refuse_by_name
from consensus.inspect.schema import (
    READ_LINES,
    SEARCH_MATCHES,
    ListTestsArgs,
    ReadFileArgs,
    SearchArgs,
    SymbolArgs,
)
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.symbols import (
    Definition,
    Reference,
    definitions,
    language_of,
    references,
)
from consensus.inspect.tests_of import is_test, tests_of
from consensus.inspect.tool_results import Shown, ToolResult
from consensus.ports import Side

RE2_MEMORY = 16 << 20  # bytes RE2 may use for one pattern
TEXT_MATCH = "text match"
PROSE = (".md", ".rst", ".txt", ".adoc")  # a `def` in prose is an example, no definition
READ_BATCH = 256  # files read from the trees in one pass
# Outside a parser's languages, a definition is a keyword and the name (a text match).
_KEYWORDS = r"def|class|function|func|fn|struct|interface|type|trait|enum|module|sub|const|let|var"


def read_file(snapshot: Snapshot, args: ReadFileArgs, max_chars: int) -> ToolResult:
    name = _file(snapshot, args.path, args.side)
    lines = snapshot.lines(name, args.side) or []
    total = len(lines)
    if args.end_line < args.start_line:
        raise ToolRefusal(f"end_line {args.end_line} is before start_line {args.start_line}")
    if not total:
        return ToolResult(tool="read_file", text=f"{name} ({args.side}) is empty")
    if args.start_line > total:
        raise ToolRefusal(
            f"{name} has {total} lines at the {args.side}; line {args.start_line} is past its end"
        )
    end = min(args.end_line, total, args.start_line + READ_LINES - 1)
    shown = Shown("read_file", max_chars)
    shown.note(f"{name} ({args.side}), lines {args.start_line}-{end} of {total}:")
    width = len(str(end))
    for number in range(args.start_line, end + 1):
        if not shown.line(name, args.side, number, lines[number - 1], label=f"{number:>{width}}: "):
            break
    if end < min(args.end_line, total) and not shown.full:
        shown.note(f"[at most {READ_LINES} lines a call: ask for lines {end + 1}-… next]")
    elif args.end_line > total:
        shown.note(f"[the file ends at line {total}]")
    return shown.result()


def search(snapshot: Snapshot, args: SearchArgs, max_chars: int) -> ToolResult:
    regex = _compiled(args.pattern, fixed=args.fixed)
    glob = _glob(args.path_glob)
    shown = Shown("search", max_chars)
    found = 0
    for path, lines in _files(snapshot, glob):
        text = snapshot.text(path, "head") or ""
        if regex.search(text) is None:
            continue
        for number, line in enumerate(lines, start=1):
            if regex.search(line) is None:
                continue
            found += 1
            if found > SEARCH_MATCHES:
                shown.note(f"[more than {SEARCH_MATCHES} matches: narrow the pattern or path_glob]")
                return shown.result()
            if not shown.line(path, "head", number, line, label=f"{path}:{number}: "):
                return shown.result()
    if not found:
        where = f" in files matching {args.path_glob!r}" if glob else ""
        shown.note(f"no match for {args.pattern!r}{where} in the head tree")
    return shown.result()


def find_definition(snapshot: Snapshot, args: SymbolArgs, max_chars: int) -> ToolResult:
    container, _, name = args.symbol.rpartition(".")
    shown = Shown("find_definition", max_chars)
    found = definitions_of(snapshot, name, container or None)
    for count, definition in enumerate(found, start=1):
        member = f" of {definition.container}" if definition.container else ""
        lines = snapshot.lines(definition.path, "head") or []
        what = f" ({definition.kind}{member})"
        if count > SEARCH_MATCHES or not _show(
            shown, definition.path, definition.line, lines, what
        ):
            return _more(shown, count)
    if not found:
        shown.note(f"no definition of {args.symbol!r} in the head tree")
    elif any(d.kind == TEXT_MATCH for d in found):
        shown.note("[text match: files without a parser were searched for a keyword and the name]")
    return shown.result()


def definitions_of(snapshot: Snapshot, name: str, container: str | None = None) -> list[Definition]:
    """Every definition of `name` in the head tree: from a parser where the file's language
    has one, else a keyword before the name (kind `text match`)."""
    keyword = re.compile(rf"\b(?:{_KEYWORDS})\s+{re.escape(name)}(?![\w$])")
    found: list[Definition] = []
    for path, lines in _files(snapshot, None, mentioning=name):
        if language_of(path) is not None:
            found.extend(definitions(path, snapshot.text(path, "head") or "", name, container))
        elif container is None and not path.endswith(PROSE):
            found.extend(
                Definition(path, n, n, name, TEXT_MATCH, None)
                for n, line in enumerate(lines, start=1)
                if keyword.search(line)
            )
    return found


def references_of(snapshot: Snapshot, name: str) -> list[Reference]:
    """Every use of `name` in the head tree's files that have a parser, in path order."""
    return [
        reference
        for path, _ in _files(snapshot, None, mentioning=name)
        if language_of(path) is not None
        for reference in references(path, snapshot.text(path, "head") or "", name)
    ]


def find_references(snapshot: Snapshot, args: SymbolArgs, max_chars: int) -> ToolResult:
    name = args.symbol.rpartition(".")[2]
    shown = Shown("find_references", max_chars)
    found = 0
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    for path, lines in _files(snapshot, None, mentioning=name):
        if language_of(path) is not None:
            text = snapshot.text(path, "head") or ""
            numbers = sorted({r.line for r in references(path, text, name)})
            what = ""
        else:
            numbers = [n for n, line in enumerate(lines, 1) if word.search(line)]
            what = " (text match)"
        for number in numbers:
            found += 1
            if found > SEARCH_MATCHES or not _show(shown, path, number, lines, what):
                return _more(shown, found)
    if not found:
        shown.note(f"no use of {name!r} in the head tree (definitions are not uses)")
    return shown.result()


def list_tests(snapshot: Snapshot, args: ListTestsArgs, max_chars: int) -> ToolResult:
    module = _file(snapshot, args.path, "head")
    shown = Shown("list_tests", max_chars)
    tests = [p for p in snapshot.paths("head") if is_test(p) and _walkable(snapshot, p)]
    snapshot.prefetch(tests, "head")
    found = tests_of(module, {p: snapshot.text(p, "head") or "" for p in tests})
    for path, why in found[:SEARCH_MATCHES]:
        shown.note(f"{path}: {why}")
    if len(found) > SEARCH_MATCHES:
        shown.note(f"[{len(found) - SEARCH_MATCHES} more test files]")
    if not found:
        shown.note(f"no test file in the head tree imports or names {module}")
    return shown.result()


def _file(snapshot: Snapshot, path: str, side: Side) -> str:
    """The tree's name for a file a tool is asked to read, or ToolRefusal."""
    name = confine(snapshot, path, side)
    if not snapshot.exists(name, side):
        other: Side = "base" if side == "head" else "head"
        there = snapshot.exists(name, other)
        hint = f" (it is in the {other} tree)" if there else ""
        raise ToolRefusal(f"{path!r} is not a file of the {side} tree{hint}")
    if snapshot.lines(name, side) is None:
        raise ToolRefusal(f"{name!r} is binary or too large to show")
    return name


def _files(
    snapshot: Snapshot, glob: PathRules | None, mentioning: str | None = None
) -> Iterator[tuple[str, list[str]]]:
    """The head tree's text files a walking tool may read, in order, read in batches."""
    paths = [p for p in snapshot.paths("head") if glob is None or glob.matches(p)]
    allowed = [p for p in paths if _walkable(snapshot, p)]
    for start in range(0, len(allowed), READ_BATCH):
        batch = allowed[start : start + READ_BATCH]
        snapshot.prefetch(batch, "head")
        for path in batch:
            if mentioning is not None and not snapshot.may_mention(path, "head", mentioning):
                continue
            lines = snapshot.lines(path, "head")
            if lines is None:
                continue
            if mentioning is None or mentioning in (snapshot.text(path, "head") or ""):
                yield path, lines


def _walkable(snapshot: Snapshot, path: str) -> bool:
    if snapshot.trees.link_target(path, "head") is not None:
        return False
    try:
        refuse_by_name(snapshot.policy, path, asked=path)
    except ToolRefusal:
        return False
    return True


def _show(shown: Shown, path: str, number: int, lines: list[str], what: str) -> bool:
    label = f"{path}:{number}: "
    return shown.line(path, "head", number, lines[number - 1] + what, label=label)


def _more(shown: Shown, found: int) -> ToolResult:
    if found > SEARCH_MATCHES:
        shown.note(f"[more than {SEARCH_MATCHES} found: ask about one file with read_file]")
    return shown.result()


class _Pattern(Protocol):
    def search(self, text: str) -> object | None: ...


def _compiled(pattern: str, *, fixed: bool) -> _Pattern:
    """RE2 (google-re2, a dependency): linear time, so no pattern can stall a run."""
    re2: Any = importlib.import_module("re2")
    options = re2.Options()
    options.log_errors = False
    options.max_mem = RE2_MEMORY
    try:
        compiled: _Pattern = re2.compile(re2.escape(pattern) if fixed else pattern, options)
        return compiled
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        hint = "fix it, or pass fixed: true to search for the text itself"
        if "escape" in reason or "perl operator" in reason:
            hint = "RE2 has no backreferences or lookarounds: search for the text itself"
        raise ToolRefusal(
            f"the pattern {pattern!r} is no RE2 regular expression ({reason}); {hint}"
        ) from exc


def _glob(path_glob: str | None) -> PathRules | None:
    if not path_glob:
        return None
    try:
        return PathRules([path_glob])
    except ValueError as exc:
        raise ToolRefusal(f"path_glob {path_glob!r} is not a glob: {exc}") from exc
