"""Ingest: which changed files are reviewed (config `paths`/`exclude`, default skips).

What the patterns mean, exactly:

- `paths` and `exclude` are lists of .gitignore patterns, read as git reads a .gitignore
  (the `pathspec` library's GitIgnoreSpec): `*` and `?` stay inside one path segment,
  `[a-c]` is a class, `**/` matches zero or more directories and `/**` everything below; a
  pattern without a slash (other than a trailing one) matches at any depth (`*.md`); a
  leading or middle slash anchors it to the repository root (`/setup.py`, `src/*.py`); a
  pattern that matches a directory covers every file under it (`docs`, `docs/`, and
  `src/*`, which matches `src/app/db.py` through `src/app`); a trailing `/` matches only
  directories. Patterns are read in order and the LAST one that matches the file, or a
  directory above it, decides: a leading `!` takes the file out again (`["src/**",
  "!src/gen/**"]`) and a later pattern can bring it back. Unlike git, which does not look
  inside a directory it has excluded, a `!` pattern can take back a file below one
  (`["docs", "!docs/api/*"]` does not select `docs/api/b.md`). A `paths` of `!` patterns
  only is read as if `**` came first; an empty `paths` means `**`.
- A file is reviewed when `paths` selects it and `exclude` does not (`exclude` is read
  the same way, so `["docs/**", "!docs/api/**"]` excludes the docs but the API pages).
  Matching is case-sensitive. Where google-re2 is installed (a dependency) matching runs in
  linear time, so a hostile path cannot stall a run on a pattern.
- `.gitattributes` patterns (`linguist-generated`) follow git's attribute rules: the
  same syntax, but a pattern never covers the files below a directory it names (write
  `gen/**`), and there is no `!`. `Glob(pattern, dirs=False)` matches them.
- CODEOWNERS patterns follow GitHub's rules (consensus/queue/codeowners.py): .gitignore
  syntax, last matching line wins, but no `!` negation and no `[ ]` classes (GitHub skips
  such lines), and a final `*` does not reach into subdirectories: `docs/*` owns
  `docs/a.md` but not `docs/build/b.md`, while `docs/` and `docs` own everything below.
  `Glob(pattern)` matches them, in linear time (no regex backtracking).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal, NamedTuple

from pathspec import GitIgnoreSpec

from consensus.ingest.linguist import AttributeRule, vendored_by_linguist
from consensus.model.diff import ChangedFile, SkippedFile

LOCKFILES = frozenset(
    {
        "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
        "bun.lockb", "deno.lock", "poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock",
        "Cargo.lock", "Gemfile.lock", "composer.lock", "go.sum", "go.work.sum", "mix.lock",
        "pubspec.lock", "Podfile.lock", "Package.resolved", "packages.lock.json",
        "flake.lock", "gradle.lockfile", "conda-lock.yml",
    }
)  # fmt: skip
VENDORED_DIRS = frozenset(
    {
        "vendor", "third_party", "third-party", "thirdparty", "3rdparty", "node_modules",
        "bower_components", "site-packages", "Pods",
    }
)  # fmt: skip
GENERATED_SUFFIXES = (
    "_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".pb.cc", ".pb.h", ".pb.swift",
    ".g.dart", ".freezed.dart", ".js.map", ".css.map",
)  # fmt: skip
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.css")
MINIFIED_AVERAGE_LINE = 500  # characters per new-side line; code written by hand is far shorter

# Go's marker (golang.org/s/generatedcode) and the `@generated` tag used by Cargo, Meta.
_GENERATED_HEADER = re.compile(r"^// Code generated .* DO NOT EDIT\.$|@generated\b")
_HEADER_LINES = 5
_GENERATED_OFF = ("-linguist-generated", "!linguist-generated", "linguist-generated=false")


# google-re2 matches in linear time; without it pathspec falls back to Python's re.
BACKEND: Literal["re2", "simple"] = "re2" if importlib.util.find_spec("re2") else "simple"


class _Skip(NamedTuple):
    reason: str
    trigger: str  # the text a `paths` pattern must spell out to lift the skip


class PathRules:
    """`paths` or `exclude`: .gitignore patterns in order, the last one that matches decides."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._spec = GitIgnoreSpec.from_lines(self.patterns, backend=BACKEND)

    def matches(self, path: str) -> bool:
        return bool(self._spec.match_file(path))

    def naming(self, path: str) -> list[str]:
        """The positive patterns that match `path` on their own (to lift a default skip)."""
        return [p for p in self.patterns if not p.startswith("!") and _rules((p,)).matches(path)]


def select_files(
    files: Sequence[ChangedFile],
    *,
    include: Sequence[str] = ("**",),
    exclude: Sequence[str] = (),
    generated_patterns: Sequence[str] = (),
    attributes: Sequence[AttributeRule] = (),
) -> tuple[list[ChangedFile], list[SkippedFile]]:
    """Split files into those to review and those skipped, with a short reason.

    In order: a path `include` (the `paths` key) does not select is "not in paths"; one
    `exclude` selects is "excluded by config" (both read as a .gitignore, see the module
    docstring); then lockfiles, vendored files (well-known directories, `linguist-vendored`
    in .gitattributes, Linguist's own vendor patterns: ingest/linguist.py), generated files
    (`linguist-generated` and `generated_patterns`, well-known suffixes and headers) and
    minified files are skipped by default. `linguist-vendored=false` or
    `linguist-generated=false` for a file turns that default off for it.
    A default skip is lifted when a positive `include` pattern that
    matches the file spells out what triggered it outside its wildcards: the file's name
    (`Cargo.lock`), the suffix (`**/*.lock`, `*.min.js`), the vendored directory
    (`vendor/mylib/**`) or the .gitattributes pattern. Broad globs such as `**` or
    `src/**` never lift one. An empty `include` means `**`.
    """
    include = tuple(include) or ("**",)
    if all(pattern.startswith("!") for pattern in include):
        include = ("**", *include)  # only exceptions: exceptions to everything
    includes, excludes = _rules(include), _rules(tuple(exclude))
    generated = [(_compile(p, dirs=False), _literal(p)) for p in generated_patterns]
    kept: list[ChangedFile] = []
    skipped: list[SkippedFile] = []
    for file in files:
        if not includes.matches(file.path):
            skipped.append(SkippedFile(path=file.path, reason="not in paths"))
        elif excludes.patterns and excludes.matches(file.path):
            skipped.append(SkippedFile(path=file.path, reason="excluded by config"))
        elif (skip := _default_skip(file, generated, attributes)) and not _lifted(
            skip, includes.naming(file.path)
        ):
            skipped.append(SkippedFile(path=file.path, reason=skip.reason))
        else:
            kept.append(file)
    return kept, skipped


def parse_gitattributes(text: str) -> list[str]:
    """Patterns that .gitattributes marks `linguist-generated` (or `=true`), in file order."""
    patterns: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "[attr]")):
            continue
        pattern, *attributes = line.split()
        generated = False
        for attribute in attributes:  # the last mention on a line wins, as in git
            if attribute in ("linguist-generated", "linguist-generated=true"):
                generated = True
            elif attribute in _GENERATED_OFF:
                generated = False
        if generated:
            patterns.append(pattern)
    return patterns


class Glob:
    """One CODEOWNERS or .gitattributes pattern (see the module docstring), compiled.
    Matching is linear: no regex backtracking across segments, and none within one (a
    hostile .gitattributes cannot stall a run)."""

    def __init__(self, pattern: str, *, dirs: bool = True) -> None:
        anchored = pattern.startswith("/")
        self._directory = pattern.endswith("/")
        names = [name for name in pattern.split("/") if name]
        if not anchored and len(names) == 1 and names[0] != "**":
            names.insert(0, "**")  # no slash: at any depth
        parts: list[re.Pattern[str] | None] = []  # None stands for `**`
        for name in names:
            if name != "**":
                parts.append(_segment(name))
            elif not parts or parts[-1] is not None:
                parts.append(None)  # `**/**` is `**`
        self._parts = parts
        self._trailing_any = bool(names) and names[-1] == "**"
        # `docs` names a directory as well as a file, but `src/*` means direct children.
        self._covers_below = dirs and bool(names) and not any(c in "*?[" for c in names[-1])

    def matches(self, path: str) -> bool:
        names = [name for name in path.split("/") if name]
        if not self._parts or not names:
            return False
        reached = {0}  # how many path segments the pattern so far can consume
        for index, part in enumerate(self._parts):
            if part is None:
                # `**` takes zero or more segments; at the very end, at least one.
                at_end = index == len(self._parts) - 1 and self._trailing_any
                reached = set(range(min(reached) + at_end, len(names) + 1))
            else:
                reached = {n + 1 for n in reached if n < len(names) and part.fullmatch(names[n])}
            if not reached:
                return False
        if self._directory:
            return min(reached) < len(names)
        return self._covers_below or len(names) in reached


def _segment(name: str) -> re.Pattern[str]:
    """One path segment's glob as a regex; `*` never crosses `/` (there is none here)."""
    chunks: list[list[str]] = [[]]
    i = 0
    while i < len(name):
        char = name[i]
        if char == "*":
            chunks.append([])
            while i + 1 < len(name) and name[i + 1] == "*":
                i += 1  # `a**b` is just `a*b`
        elif char == "?":
            chunks[-1].append(".")
        elif char == "[" and (end := _class_end(name, i)) > i:
            chunks[-1].append(_class(name[i + 1 : end]))
            i = end
        elif char == "\\" and i + 1 < len(name):
            i += 1
            chunks[-1].append(re.escape(name[i]))
        else:
            chunks[-1].append(re.escape(char))
        i += 1
    pieces = ["".join(chunk) for chunk in chunks]
    if len(pieces) == 1:
        return re.compile(pieces[0], re.DOTALL)
    # Each middle piece is fixed-length, so its earliest occurrence is always a right
    # choice: matching it atomically (lookahead + backreference, as fnmatch does) keeps
    # `*a*a*a*b` linear instead of exponential.
    middle = "".join(f"(?=(?P<g{n}>.*?{piece}))(?P=g{n})" for n, piece in enumerate(pieces[1:-1]))
    return re.compile(f"{pieces[0]}{middle}.*{pieces[-1]}", re.DOTALL)


def _class_end(body: str, start: int) -> int:
    """Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal)."""
    i = start + 1
    if i < len(body) and body[i] in "!^":
        i += 1
    if i < len(body) and body[i] == "]":
        i += 1  # a leading `]` is a member, as in fnmatch
    end = body.find("]", i)
    return end if end > start + 1 else -1


def _class(content: str) -> str:
    """A glob character class as a regex class; every member escaped but valid ranges."""
    negate = content[0] in "!^"
    members = content[1:] if negate else content
    out = []
    for i, char in enumerate(members):
        is_range = (
            char == "-"
            and 0 < i < len(members) - 1
            and "-" not in (members[i - 1], members[i + 1])
            and members[i - 1] <= members[i + 1]
        )
        out.append("-" if is_range else re.escape(char))
    return "[" + ("^" if negate else "") + "".join(out) + "]"


@functools.lru_cache(maxsize=256)
def _rules(patterns: tuple[str, ...]) -> PathRules:
    return PathRules(patterns)


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str, *, dirs: bool = True) -> Glob:
    return Glob(pattern, dirs=dirs)


def _literal(pattern: str) -> str:
    """The pattern with its wildcards removed, rooted: `**/*.lock` → `//.lock`."""
    without_classes = re.sub(r"\[[^\]]*\]", "", pattern)
    return "/" + without_classes.replace("*", "").replace("?", "").lstrip("/")


def _lifted(skip: _Skip, patterns: Sequence[str]) -> bool:
    wants = skip.trigger.strip("/")
    return bool(wants) and any(skip.trigger in _literal(pattern) for pattern in patterns)


def _default_skip(
    file: ChangedFile,
    generated: Sequence[tuple[Glob, str]],
    attributes: Sequence[AttributeRule] = (),
) -> _Skip | None:
    path = PurePosixPath(file.path)
    name = path.name
    vendored = _attribute(file.path, attributes, "vendored")
    made = _attribute(file.path, attributes, "generated")
    if made is None and (name in LOCKFILES or name.endswith(".lock")):
        return _Skip("lockfile", "/" + name if name in LOCKFILES else ".lock")
    if vendored is not None and vendored[0]:
        return _Skip("vendored", vendored[1])
    if made is not None and made[0]:
        return _Skip("generated", made[1])
    if made is None:
        skip = _generated(file, generated)
        if skip is not None:
            return skip
    for suffix in MINIFIED_SUFFIXES:
        if name.endswith(suffix):
            return _Skip("minified", suffix)
    if vendored is None:
        for directory in path.parts[:-1]:
            if directory in VENDORED_DIRS:
                return _Skip("vendored", f"/{directory}/")
        found = vendored_by_linguist(file.path)
        if found is not None:
            return _Skip(f"vendored (Linguist's pattern {found.pattern})", found.matched)
    new_side = [line.text for hunk in file.hunks for line in hunk.lines if line.kind != "-"]
    if new_side and sum(map(len, new_side)) / len(new_side) > MINIFIED_AVERAGE_LINE:
        return _Skip("minified", "/" + name)
    return None


def _attribute(
    path: str, rules: Sequence[AttributeRule], attribute: str
) -> tuple[bool, str] | None:
    """What .gitattributes says of `path` for one Linguist attribute: (value, the pattern
    that said it) from the last line that matches, as git reads it; None when no line
    does, or the last one says `!attr` (unspecified)."""
    said: tuple[bool, str] | None = None
    for rule in rules:
        if rule.attribute == attribute and _compile(rule.pattern, dirs=False).matches(path):
            said = None if rule.value is None else (rule.value, _literal(rule.pattern))
    return said


def _generated(file: ChangedFile, generated: Sequence[tuple[Glob, str]]) -> _Skip | None:
    """Generated by a well-known mark: a `generated_patterns` entry, a suffix, a header."""
    name = PurePosixPath(file.path).name
    for matcher, literal in generated:
        if matcher.matches(file.path):
            return _Skip("generated", literal)
    for suffix in GENERATED_SUFFIXES:
        if name.endswith(suffix):
            return _Skip("generated", suffix)
    if ".generated." in name:
        return _Skip("generated", ".generated.")
    if _has_generated_header(file):
        return _Skip("generated", "/" + name)
    return None


def _has_generated_header(file: ChangedFile) -> bool:
    return any(
        line.new_line is not None
        and line.new_line <= _HEADER_LINES
        and _GENERATED_HEADER.search(line.text)
        for hunk in file.hunks
        for line in hunk.lines
    )
