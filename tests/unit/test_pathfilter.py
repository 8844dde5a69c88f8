"""consensus.ingest.pathfilter: config globs, default skips, and the explicit-include override."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.errors import ConfigError
from consensus.ingest.pathfilter import (
    BACKEND,
    Glob,
    PathRules,
    parse_gitattributes,
    select_files,
)
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, DiffLine, Hunk
from consensus.settings.config import parse_settings


def _file(path: str, *texts: str) -> ChangedFile:
    lines = tuple(
        DiffLine(kind="+", text=text, new_line=number)
        for number, text in enumerate(texts or ("x = 1",), start=1)
    )
    hunk = Hunk(old_start=0, old_length=0, new_start=1, new_length=len(lines), lines=lines)
    return ChangedFile(path=path, status=FileStatus.ADDED, hunks=(hunk,), added=len(lines))


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**", "src/app/db.py", True),
        ("**", "README.md", True),
        ("*.md", "README.md", True),
        ("*.md", "docs/guide/intro.md", True),  # no slash: any depth, as .gitignore
        ("*.md", "docs/guide/intro.mdx", False),
        ("/*.md", "README.md", True),
        ("/*.md", "docs/intro.md", False),  # leading slash anchors to the root
        ("docs/**", "docs/a/b/c.md", True),
        ("docs/**", "src/docs/a.md", False),
        ("docs/**", "docs.md", False),
        ("docs/**", "docs", False),  # `/**` is what is inside
        ("**/**/*.py", "a.py", True),
        ("docs", "docs/intro.md", True),  # a plain name covers the directory
        ("docs/", "docs/intro.md", True),
        ("docs/", "docs", False),
        ("src/*", "src/app.py", True),
        ("src/*", "src/app/db.py", False),  # `*` does not cross `/`
        ("src/*.py", "src/sub/app.py", False),
        ("src/**/*.py", "src/app.py", True),  # `**/` matches zero directories
        ("src/**/*.py", "src/a/b/c/app.py", True),
        ("src/**/test_*.py", "src/tests/unit/test_db.py", True),
        ("src/**/test_*.py", "src/tests/unit/db_test.py", False),
        ("**/migrations/*.sql", "db/migrations/0001.sql", True),
        ("**/migrations/*.sql", "migrations/0001.sql", True),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file10.txt", False),
        ("file?.txt", "a/file/.txt", False),
        ("[abc].py", "b.py", True),
        ("[!abc].py", "b.py", False),
        ("[!abc].py", "d.py", True),
        ("[a-c].py", "c.py", True),
        ("x[.py", "x[.py", True),  # an unclosed `[` is literal
        ("a.b", "axb", False),  # regex characters are escaped
        ("", "anything", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert Glob(pattern).matches(path) is matches


def test_gitattributes_globs_do_not_cover_directories() -> None:
    assert not Glob("gen", dirs=False).matches("gen/api.py")
    assert Glob("gen/**", dirs=False).matches("gen/api.py")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("package-lock.json", "lockfile"),
        ("web/yarn.lock", "lockfile"),
        ("pnpm-lock.yaml", "lockfile"),
        ("poetry.lock", "lockfile"),
        ("uv.lock", "lockfile"),
        ("Cargo.lock", "lockfile"),
        ("Gemfile.lock", "lockfile"),
        ("composer.lock", "lockfile"),
        ("go.sum", "lockfile"),
        ("Pipfile.lock", "lockfile"),
        ("tools/custom.lock", "lockfile"),
        ("vendor/github.com/pkg/errors/errors.go", "vendored"),
        ("services/api/vendor/lib.go", "vendored"),
        ("third_party/zlib/inflate.c", "vendored"),
        ("web/node_modules/left-pad/index.js", "vendored"),
        ("proto/user_pb2.py", "generated"),
        ("proto/user_pb2_grpc.py", "generated"),
        ("api/user.pb.go", "generated"),
        ("web/src/schema.generated.ts", "generated"),
        ("static/app.min.js", "minified"),
        ("static/site.min.css", "minified"),
        ("src/app/db.py", None),
        ("src/vendors.py", None),  # a file named like a vendored dir is not vendored
        ("docs/locking.md", None),
        ("src/lockfile.py", None),
    ],
)
def test_default_skips(path: str, reason: str | None) -> None:
    kept, skipped = select_files([_file(path)], include=["**"], exclude=[], generated_patterns=[])
    if reason is None:
        assert [f.path for f in kept] == [path]
        assert skipped == []
    else:
        assert kept == []
        assert [(s.path, s.reason) for s in skipped] == [(path, reason)]


def test_long_lines_are_minified() -> None:
    bundle = _file("static/bundle.js", "var a=1;" * 100, "var b=2;" * 100)
    source = _file("static/app.js", "const a = 1;", "x" * 900)
    kept, skipped = select_files(
        [bundle, source], include=["**"], exclude=[], generated_patterns=[]
    )
    assert [f.path for f in kept] == ["static/app.js"]  # one long line among short ones
    assert [(s.path, s.reason) for s in skipped] == [("static/bundle.js", "minified")]


@pytest.mark.parametrize(
    "header",
    [
        "// Code generated by protoc-gen-go. DO NOT EDIT.",
        "# This file is automatically @generated by Cargo.",
    ],
)
def test_generated_header_marks_a_file_generated(header: str) -> None:
    kept, skipped = select_files(
        [_file("internal/api/types.go", header, "package api")],
        include=["**"],
        exclude=[],
        generated_patterns=[],
    )
    assert kept == []
    assert skipped[0].reason == "generated"


def test_generated_header_far_down_the_file_does_not_count() -> None:
    lines = [
        "package api",
        *[f"// line {n}" for n in range(10)],
        "// Code generated x. DO NOT EDIT.",
    ]
    kept, _ = select_files(
        [_file("api.go", *lines)], include=["**"], exclude=[], generated_patterns=[]
    )
    assert [f.path for f in kept] == ["api.go"]


def test_include_exclude_and_gitattributes_reasons_in_order() -> None:
    files = [
        _file("src/app/db.py"),
        _file("docs/intro.md"),
        _file("scripts/release.sh"),
        _file("src/api/schema.py"),
        _file("src/app/package-lock.json"),
    ]
    kept, skipped = select_files(
        files,
        include=["src/**", "docs/**"],
        exclude=["docs/**"],
        generated_patterns=["src/api/schema.py"],
    )
    assert [f.path for f in kept] == ["src/app/db.py"]
    assert [(s.path, s.reason) for s in skipped] == [
        ("docs/intro.md", "excluded by config"),
        ("scripts/release.sh", "not in paths"),
        ("src/api/schema.py", "generated"),
        ("src/app/package-lock.json", "lockfile"),
    ]


@pytest.mark.parametrize(
    ("include", "path", "reviewed"),
    [
        (["**"], "Cargo.lock", False),
        (["**/*"], "Cargo.lock", False),
        (["Cargo.lock"], "Cargo.lock", True),
        (["**", "Cargo.lock"], "Cargo.lock", True),
        (["**/*.lock"], "tools/deps.lock", True),
        (["src/**"], "src/vendor/lib.js", False),
        (["vendor/mylib/**"], "vendor/mylib/util.go", True),
        (["**/vendor/**"], "pkg/vendor/x.go", True),
        (["**/*.js"], "static/app.min.js", False),
        (["**/*.min.js"], "static/app.min.js", True),
        (["static/app.min.js"], "static/app.min.js", True),
        (["proto/**"], "proto/user_pb2.py", False),
        (["proto/*_pb2.py"], "proto/user_pb2.py", True),
    ],
)
def test_explicit_include_lifts_a_default_skip(
    include: list[str], path: str, reviewed: bool
) -> None:
    kept, _ = select_files([_file(path)], include=include, exclude=[], generated_patterns=[])
    assert bool(kept) is reviewed


def test_explicit_include_of_a_gitattributes_pattern_lifts_it() -> None:
    file = _file("src/gen/client.ts")
    args = {"exclude": [], "generated_patterns": ["src/gen/**"]}
    assert select_files([file], include=["src/**"], **args)[0] == []
    assert select_files([file], include=["src/gen/**"], **args)[0] == [file]


def test_exclude_wins_over_explicit_include() -> None:
    kept, skipped = select_files(
        [_file("Cargo.lock")], include=["Cargo.lock"], exclude=["*.lock"], generated_patterns=[]
    )
    assert kept == []
    assert skipped[0].reason == "excluded by config"


def test_empty_include_means_everything() -> None:
    kept, _ = select_files([_file("a.py")], include=[], exclude=[], generated_patterns=[])
    assert [f.path for f in kept] == ["a.py"]


GITATTRIBUTES = """\
# Generated code
api/openapi.json linguist-generated=true
src/gen/** linguist-generated
*.snap linguist-generated -diff
docs/** linguist-documentation
web/dist/** -linguist-generated
legacy/** linguist-generated=false
proto/*.py linguist-generated text eol=lf
[attr]binary -diff -merge -text
tools/x.py linguist-generated -linguist-generated
tools/y.py -linguist-generated linguist-generated
"""


def test_parse_gitattributes_keeps_only_generated_true() -> None:
    assert parse_gitattributes(GITATTRIBUTES) == [
        "api/openapi.json",
        "src/gen/**",
        "*.snap",
        "proto/*.py",
        "tools/y.py",
    ]


def test_parse_gitattributes_of_nothing() -> None:
    assert parse_gitattributes("") == []
    assert parse_gitattributes("\n# only a comment\n") == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_any_glob_compiles_and_matches_without_error(pattern: str, path: str) -> None:
    for dirs in (True, False):
        assert Glob(pattern, dirs=dirs).matches(path) in (True, False)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("*a" * 30, "a" * 3000 + "b"),
        ("**/" * 50 + "x", "a/" * 2000 + "y"),
        ("a/**/b/**/c/**/d/**/e", "a/" + "b/c/d/" * 500 + "f"),
    ],
    ids=["stars in a segment", "many double stars", "double stars between names"],
)
def test_hostile_globs_do_not_match(pattern: str, path: str) -> None:
    # How long they take is measured in benchmarks/hostile_bench.py.
    assert not Glob(pattern).matches(path)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_gitattributes_text_parses(text: str) -> None:
    patterns = parse_gitattributes(text)
    assert all(pattern and not pattern.isspace() for pattern in patterns)


# --------------------------------------------------------------------------- paths/exclude


@pytest.mark.parametrize(
    ("include", "exclude", "path", "reason"),
    [
        (["src/**", "!src/gen/**"], [], "src/app/db.py", None),
        (["src/**", "!src/gen/**"], [], "src/gen/client.py", "not in paths"),
        (["src/**", "!src/gen/**"], [], "src/gen/sub/x.py", "not in paths"),
        (["src/**", "!src/gen/**", "src/gen/keep.py"], [], "src/gen/keep.py", None),  # last wins
        (["!docs/**"], [], "README.md", None),  # only exceptions: exceptions to everything
        (["!docs/**"], [], "docs/intro.md", "not in paths"),
        (["src/*"], [], "src/app/db.py", None),  # gitignore: through the directory src/app
        (["/setup.py"], [], "setup.py", None),
        (["/setup.py"], [], "pkg/setup.py", "not in paths"),
        (["build/"], [], "build/x.c", None),
        (["build/"], [], "build", "not in paths"),  # a trailing slash: directories only
        (["*.PY"], [], "a.py", "not in paths"),  # case-sensitive
        (["docs", "!docs/api/*"], [], "docs/api/b.md", "not in paths"),
        (["**"], ["docs/**", "!docs/api/**"], "docs/intro.md", "excluded by config"),
        (["**"], ["docs/**", "!docs/api/**"], "docs/api/users.md", None),
        (["**"], ["!docs/**"], "docs/intro.md", None),  # exceptions alone exclude nothing
        (["**"], ["*.md", "!README.md"], "sub/README.md", None),
        (["**"], ["*.md", "!README.md"], "sub/notes.md", "excluded by config"),
        (["**", "!Cargo.lock"], [], "Cargo.lock", "not in paths"),
        (["**", "!src/**", "Cargo.lock"], [], "Cargo.lock", None),  # named: the skip is lifted
    ],
)
def test_paths_and_exclude_read_as_a_gitignore(
    include: list[str], exclude: list[str], path: str, reason: str | None
) -> None:
    kept, skipped = select_files([_file(path)], include=include, exclude=exclude)
    assert [(s.path, s.reason) for s in skipped] == ([(path, reason)] if reason else [])
    assert [f.path for f in kept] == ([] if reason else [path])


ORACLE_PATTERNS = [
    "*.md",
    "/*.md",
    "docs",
    "docs/",
    "docs/**",
    "src/*",
    "src/*.py",
    "src/**/*.py",
    "**/test_*.py",
    "**/migrations/*.sql",
    "a/**/b",
    "file?.txt",
    "[a-c].py",
    "[!a-c].py",
    "/build/",
    "*.min.*",
]
ORACLE_PATHS = [
    "README.md",
    "docs/intro.md",
    "docs/guide/intro.mdx",
    "docs",
    "src/app.py",
    "src/app/db.py",
    "src/a/b/c/app.py",
    "src/tests/unit/test_db.py",
    "test_a.py",
    "db/migrations/0001.sql",
    "migrations/0001.sql",
    "a/b",
    "a/x/y/b/c",
    "file1.txt",
    "file10.txt",
    "b.py",
    "d.py",
    "build/out.o",
    "x/build/out.o",
    "static/app.min.js",
    "srcx/app.py",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("pattern", ORACLE_PATTERNS)
def test_a_pattern_selects_what_git_would_ignore(pattern: str, tmp_path: Path) -> None:
    """git itself is the oracle: `git check-ignore` with the pattern as the .gitignore."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text(pattern + "\n")
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=tmp_path,
        input="\n".join(ORACLE_PATHS) + "\n",
        capture_output=True,
        text=True,
    )
    ignored_by_git = set(done.stdout.split())
    ours = {path for path in ORACLE_PATHS if PathRules([pattern]).matches(path)}
    assert ours == ignored_by_git


def test_path_rules_match_with_re2() -> None:
    # re2 matches in linear time; benchmarks/hostile_bench.py measures these inputs.
    assert BACKEND == "re2", "google-re2 is a dependency: pathspec would backtrack without it"
    rules = PathRules(["*a" * 30, "**/" * 50 + "x", "a/**/b/**/c/**/d/**/e"])
    assert not rules.matches("a" * 3000 + "b")
    assert not rules.matches("a/" + "b/c/d/" * 500 + "f")


@pytest.mark.parametrize(
    ("yaml", "key", "words"),
    [
        ("paths: ['x[.py']", "paths", "matches nothing"),
        ("exclude: ['#generated']", "exclude", "matches nothing"),
        ("exclude: ['']", "exclude", "matches nothing"),
        ("paths: ['!']", "paths", "is not a .gitignore pattern"),
    ],
)
def test_a_pattern_that_matches_nothing_is_a_config_error(yaml: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(yaml, source=".consensus.yml")
    assert caught.value.key == key and words in str(caught.value)
    assert "gitignore patterns, e.g." in str(caught.value)
