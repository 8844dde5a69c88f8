"""Torture repositories: real git repositories with the shapes real repositories hold.

Each `Shape` builds a `main` branch and a `feature` branch on top of it with git itself
(names with " b/", spaces, unicode, quotes and backslashes; renames with edits; mode
changes; CRLF; latin-1 content and names; binary files; symlinks in and out of the tree;
a submodule; empty files; deletions; a 20,000-line lockfile; a 200 KB minified line; a
20,000-line source file), and says what a review must make of it: which files are
reviewed, with which numbered lines the models must see, which are skipped and why, and
which findings consensus's own scan must make.

    python -m tests.torture_repos OUT_DIR   # build every shape there, to try by hand
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# A GitHub token planted in reviewed files: it must never reach a provider or the journal.
PLANTED = "ghp_" + "Q3kq9ZxW2mLp7RvB4nYc8JdH5sFg1QaE6uKo"
REDACTED = "«redacted:github-token»"
BIG_LINES = 20_000
MINIFIED_BYTES = 200_000
NO_NEWLINE = "\\ No newline at end of file"


class Repo:
    """A work tree being changed; `build` stages and commits what the shape did."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.gitlinks: list[tuple[str, str]] = []

    def path(self, name: str) -> Path:
        # A name with undecodable bytes is given as surrogates (os.fsdecode's form).
        return self.root / name

    def write(self, name: str, content: str | bytes) -> None:
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)

    def symlink(self, name: str, target: str) -> None:
        self.path(name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, self.path(name))

    def remove(self, name: str) -> None:
        self.path(name).unlink()

    def make_executable(self, name: str) -> None:
        self.path(name).chmod(0o755)

    def move(self, old: str, new: str) -> None:
        self.path(new).parent.mkdir(parents=True, exist_ok=True)
        self.path(old).rename(self.path(new))

    def gitlink(self, name: str, commit: str) -> None:
        """A submodule entry (mode 160000) pointing at `commit`, as `git submodule add`
        leaves it in the index; its folder stays empty, as in a clone without --recursive."""
        self.path(name).mkdir(parents=True, exist_ok=True)
        self.gitlinks.append((name, commit))

    def git(self, *args: str) -> str:
        command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
        done = subprocess.run(command, cwd=self.root, check=True, capture_output=True)
        return done.stdout.decode("utf-8", errors="replace")

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        for name, commit in self.gitlinks:
            self.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{name}")
        self.gitlinks.clear()
        self.git("commit", "-q", "--allow-empty", "-m", message)


@dataclass(frozen=True)
class Shape:
    """One shape of change, and what a review must make of it.

    `reviewed`: path as the report names it → {new-side line: the text the models must
    see with that number}. `skipped`: path → reason. `found`: paths of findings of
    consensus's own scan (a committed credential, a link out of the tree). `api_paths`:
    where GitHub's files list names a file otherwise (it does not quote a latin-1 name as
    git does). `omit_patch`: paths whose patch GitHub leaves out (too large). `must_see`:
    text every prompt of the shape must hold.
    """

    name: str
    change: Callable[[Repo], None]
    base: Callable[[Repo], None] = lambda repo: None
    reviewed: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    skipped: Mapping[str, str] = field(default_factory=dict)
    found: tuple[str, ...] = ()
    api_paths: Mapping[str, str] = field(default_factory=dict)
    omit_patch: tuple[str, ...] = ()
    must_see: tuple[str, ...] = ()

    def api_path(self, path: str) -> str:
        return self.api_paths.get(path, path)


def build(root: Path, shape: Shape, *, files: Mapping[str, str] = {}) -> Path:
    """A repository at `root`: `main` with a README, `files` and the shape's base, and
    `feature` with the shape's change, checked out."""
    root.mkdir(parents=True)
    repo = Repo(root)
    repo.git("init", "-q", "-b", "main")
    repo.write("README.md", "# torture\n")
    for name, text in files.items():
        repo.write(name, text)
    shape.base(repo)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    shape.change(repo)
    repo.commit(f"feature: {shape.name}")
    return root


def _numbered(count: int, template: str) -> str:
    return "".join(template.format(n=n) + "\n" for n in range(1, count + 1))


# --------------------------------------------------------------------------- the shapes

NOTES = "".join(f"def step_{n}():\n    return {n}\n\n" for n in range(1, 5))


def _b_dir(repo: Repo) -> None:
    repo.write(
        "plan b/notes.py", NOTES.replace("return 2", "return 2 * 2") + f'TOKEN = "{PLANTED}"\n'
    )


def _odd_names_base(repo: Repo) -> None:
    repo.write("docs/café/menü.py", "PRICE = 1\nNAME = 'espresso'\n")


def _odd_names(repo: Repo) -> None:
    repo.write("my docs/read me.py", "print('spaces')\n")
    repo.write("docs/café/menü.py", "PRICE = 2\nNAME = 'espresso'\n")
    repo.write('say "hi".py', "print('quotes')\n")
    repo.write("back\\slash.py", "print('backslash')\n")


def _rename_base(repo: Repo) -> None:
    repo.write("src/old name.py", _numbered(10, "value_{n} = {n}"))


def _rename(repo: Repo) -> None:
    repo.move("src/old name.py", "src/new b/name.py")
    text = repo.path("src/new b/name.py").read_text().replace("value_5 = 5", "value_5 = 50")
    repo.write("src/new b/name.py", text)


def _crlf_base(repo: Repo) -> None:
    repo.write("win/config.ini", b"[server]\r\nport=8080\r\nhost=local\r\n")


def _crlf(repo: Repo) -> None:
    repo.write("win/config.ini", b"[server]\r\nport=9090\r\nhost=local\r\n")
    repo.write("win/new.bat", b"@echo off\r\necho hello\r\n")


LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")


def _latin1_base(repo: Repo) -> None:
    repo.write("legacy/menu.txt", "Menü\ncafé 1,50\n".encode("latin-1"))


def _latin1(repo: Repo) -> None:
    repo.write("legacy/menu.txt", "Menü\ncafé 1,80\n".encode("latin-1"))
    repo.write(LATIN1_NAME, b"price = 1\n")


def _ff_base(repo: Repo) -> None:
    repo.write("src/ff.py", "a = 1\n\x0cb = 2\nc = 3\nd = 4\n")


def _ff(repo: Repo) -> None:
    repo.write("src/ff.py", "a = 1\n\x0cb = 2\nc = 3\nd = 40\n")


def _big(repo: Repo) -> None:
    text = _numbered(BIG_LINES, "row_{n} = compute({n})")
    text = text.replace("row_12345 = compute(12345)", f'row_12345 = "{PLANTED}"')
    repo.write("src/big.py", text)


def _lock_base(repo: Repo) -> None:
    repo.write("package-lock.json", _numbered(BIG_LINES, '  "dep-{n}": "1.0.{n}",'))


def _lock(repo: Repo) -> None:
    text = repo.path("package-lock.json").read_text().replace('"1.0.77"', '"1.0.78"')
    repo.write("package-lock.json", text)


def _minified(repo: Repo) -> None:
    body = "".join(f"function f{n}(a){{return a+{n}}};" for n in range(12_000))
    repo.write("static/app.js", body[:MINIFIED_BYTES] + "\n")


def _final_newline_base(repo: Repo) -> None:
    repo.write("VERSION", "1.0")


def _final_newline(repo: Repo) -> None:
    repo.write("VERSION", "1.0\n")


def _links_out(repo: Repo) -> None:
    repo.symlink("config/passwd", "/etc/passwd")
    repo.symlink("escape", "../outside/secrets")


def _submodule(repo: Repo) -> None:
    repo.gitlink("vendor/lib", "3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b")


SHAPES: tuple[Shape, ...] = (
    Shape(
        "dir ending in b",
        _b_dir,
        base=lambda repo: repo.write("plan b/notes.py", NOTES),
        reviewed={"plan b/notes.py": {5: "    return 2 * 2", 13: f'TOKEN = "{REDACTED}"'}},
        found=("plan b/notes.py",),  # the committed token
    ),
    Shape(
        "spaces, unicode, quotes, backslashes",
        _odd_names,
        base=_odd_names_base,
        reviewed={
            "my docs/read me.py": {1: "print('spaces')"},
            "docs/café/menü.py": {1: "PRICE = 2"},
            'say "hi".py': {1: "print('quotes')"},
            "back\\slash.py": {1: "print('backslash')"},
        },
    ),
    Shape(
        "rename with edits",
        _rename,
        base=_rename_base,
        reviewed={"src/new b/name.py": {5: "value_5 = 50"}},
    ),
    Shape(
        "mode change",
        lambda repo: repo.make_executable("run.sh"),
        base=lambda repo: repo.write("run.sh", "#!/bin/sh\necho hi\n"),
        skipped={"run.sh": "mode change only"},
    ),
    Shape(
        "crlf",
        _crlf,
        base=_crlf_base,
        reviewed={"win/config.ini": {2: "port=9090"}, "win/new.bat": {2: "echo hello"}},
    ),
    Shape(
        "latin-1 content and name",
        _latin1,
        base=_latin1_base,
        reviewed={"legacy/menu.txt": {2: "caf\ufffd 1,80"}, '"caf\\351.txt"': {1: "price = 1"}},
        api_paths={'"caf\\351.txt"': "caf\ufffd.txt"},
    ),
    Shape(
        "binary",
        lambda repo: repo.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 9),
        skipped={"assets/logo.png": "binary"},
    ),
    Shape(
        "symlink inside the tree",
        lambda repo: repo.symlink("docs/readme-link.md", "../README.md"),
        skipped={"docs/readme-link.md": "symlink"},
    ),
    Shape(
        "symlinks out of the tree",
        _links_out,
        skipped={"config/passwd": "symlink", "escape": "symlink"},
        found=("config/passwd", "escape"),
    ),
    Shape("submodule", _submodule, skipped={"vendor/lib": "submodule"}),
    Shape(
        "empty file",
        lambda repo: repo.write("pkg/__init__.py", ""),
        skipped={"pkg/__init__.py": "empty file"},
    ),
    Shape(
        "deletion",
        lambda repo: repo.remove("old/legacy.py"),
        base=lambda repo: repo.write("old/legacy.py", "print('legacy')\n"),
        skipped={"old/legacy.py": "deleted"},
    ),
    Shape(
        "20,000-line lockfile",
        _lock,
        base=_lock_base,
        skipped={"package-lock.json": "lockfile"},
    ),
    Shape("200 KB minified line", _minified, skipped={"static/app.js": "minified"}),
    Shape(
        "20,000-line source file",
        _big,
        reviewed={
            "src/big.py": {
                1: "row_1 = compute(1)",
                10_000: "row_10000 = compute(10000)",
                12_345: f'row_12345 = "{REDACTED}"',
                BIG_LINES: f"row_{BIG_LINES} = compute({BIG_LINES})",
            }
        },
        found=("src/big.py",),  # the committed token
        omit_patch=("src/big.py",),
    ),
    Shape(
        "final newline added",
        _final_newline,
        base=_final_newline_base,
        reviewed={"VERSION": {1: "1.0"}},
        must_see=(NO_NEWLINE,),
    ),
    Shape("form feed in a line", _ff, base=_ff_base, reviewed={"src/ff.py": {4: "d = 40"}}),
)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("torture-repos")
    for number, shape in enumerate(SHAPES):
        path = build(out / f"{number:02d}", shape)
        print(f"{path}: {shape.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
