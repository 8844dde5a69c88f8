"""Which test files exercise a module: the files of a test suite that import it, are named
after it, or name it.

A test file is one its ecosystem's runner collects: `test_*.py`, `*_test.py`,
`conftest.py`, `*_test.go`, `*.test.ts` / `*.spec.js` (any JS/TS suffix), `*Test.java`,
`*Tests.kt`, `*_spec.rb`, or any file under a `test`, `tests`, `__tests__`, `spec` or
`specs` folder. The reasons, strongest first: it imports the module (Python's dotted
name, with or without its first folders, or `from package import module`; a JS/TS
import or require of its file; Go: a test of the same folder), it is named after the
module (`test_redact.py` for `redact.py`), or it names the module's name as a word.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

_TEST_NAME = re.compile(
    r"(?:^test_.*\.py|.*_test\.(?:py|go)|conftest\.py|.*\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.*Tests?\.(?:java|kt|scala)|.*_spec\.rb)$"
)
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs"})
_STRENGTH = ("imports", "same package", "named after it", "names")  # strongest first


def is_test(path: str) -> bool:
    """Whether a runner would collect `path` as a test file (see the module docstring)."""
    folders, name = path.split("/")[:-1], path.rsplit("/", 1)[-1]
    return bool(_TEST_NAME.match(name)) or any(folder in _TEST_DIRS for folder in folders)


def tests_of(module: str, tests: Mapping[str, str]) -> list[tuple[str, str]]:
    """(test path, why) for each of `tests` (path → text) that exercises `module`,
    strongest reason first, then by path."""
    stem = _stem(module)
    found = []
    for path, text in tests.items():
        why = None if path == module else _why(module, stem, path, text)
        if why is not None:
            rank = next(i for i, word in enumerate(_STRENGTH) if why.startswith(word))
            found.append((rank, path, why))
    return [(path, why) for _, path, why in sorted(found)]


def _why(module: str, stem: str, path: str, text: str) -> str | None:
    for dotted in _dotted_names(module):
        package, _, last = dotted.rpartition(".")
        if re.search(rf"(?<![\w.]){re.escape(dotted)}(?!\w)", text) or re.search(
            rf"^\s*from\s+{re.escape(package)}\s+import\s+[^\n]*\b{re.escape(last)}\b",
            text,
            re.MULTILINE,
        ):
            return f"imports {dotted}"
    if module.endswith((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")):
        source = rf"""(?:from|require\(|import\(?)\s*['"][^'"]*\b{re.escape(stem)}(?:\.\w+)?['"]"""
        if re.search(source, text):
            return f"imports {stem}"
    same_folder = posixpath.dirname(path) == posixpath.dirname(module)
    if module.endswith(".go") and path.endswith("_test.go") and same_folder:
        return "same package"
    if _tested_name(path) == stem.lower():
        return "named after it"
    if len(stem) > 2 and re.search(rf"(?<![\w$]){re.escape(stem)}(?![\w$])", text):
        return f"names {stem}"
    return None


def _tested_name(path: str) -> str:
    """The name a test file is named after: `test_redact.py`, `redact_test.go`,
    `redact.spec.ts`, `RedactTest.java` → redact."""
    name = posixpath.basename(path).split(".", 1)[0]
    name = re.sub(r"^test_|_test$|_spec$|Tests?$", "", name)
    return name.lower()


def _stem(module: str) -> str:
    """The name a module is imported by: its file name without the suffix; a package's
    `__init__`/`index`/`mod` file goes by its folder."""
    base = posixpath.basename(module)
    stem = base.split(".", 1)[0]
    if stem in ("__init__", "index", "mod", "main") and "/" in module:
        return posixpath.basename(posixpath.dirname(module))
    return stem


def _dotted_names(module: str) -> list[str]:
    """A Python module's dotted names (`src/pkg/mod.py` → pkg.mod and src.pkg.mod)."""
    if not module.endswith((".py", ".pyi")):
        return []
    parts = module.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = []
    for skip in range(len(parts)):
        dotted = ".".join(parts[skip:])
        if "." in dotted:  # a bare name is the stem: weaker evidence, below
            names.append(dotted)
    return names
