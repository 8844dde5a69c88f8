"""adapters/repository_analyzers.py: real ruff on a real git repository's change (head and
base), the SARIF files a CI step wrote, and every way a run cannot happen, each a note."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from consensus.adapters.repository_analyzers import (
    FORK,
    SEMGREP_RULES,
    RepositoryAnalyzers,
    find_tool,
)
from consensus.adapters.sources import GitRevision
from consensus.ingest.analyzer_filter import NOT_ADDED, ON_BASE
from consensus.ingest.review_diff import ingest
from consensus.model.analysis import AnalyzerRun, FilterMode, Posting
from consensus.model.base import Severity
from consensus.model.diff import ReviewDiff
from consensus.settings.analyzer_sources import AnalyzerSettings, SarifSettings

DATA = Path(__file__).parents[1] / "data" / "sarif"
BASE = '''\
"""The cart."""
import os


def total(items):
    amount = 0
    for item in items:
        amount += item.price
    return amount
'''
HEAD = '''\
"""The cart."""
import os


def total(items, seen=[]):
    amount = 0
    for item in items:
        amount += item.price * item.quantity
    return amont
'''
TYPO = HEAD.splitlines().index("    return amont") + 1
DEFAULT = HEAD.splitlines().index("def total(items, seen=[]):") + 1


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "src" / "cart.py").write_text(BASE)
    (root / "README.md").write_text("# shop\n")
    # pinned rules: ruff's defaults differ between versions
    (root / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F"]\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src" / "cart.py").write_text(HEAD)
    (root / "README.md").write_text("# shop\n\nA cart.\n")
    git(root, "commit", "-q", "-am", "quantities")
    return root


def diff_of(repo: Path) -> ReviewDiff:
    return ingest(git(repo, "diff", "main...feature"))


def analyzers(repo: Path, *specs: AnalyzerSettings, **options: object) -> RepositoryAnalyzers:
    return RepositoryAnalyzers(
        specs,
        tuple(options.pop("sarif", ())),  # type: ignore[arg-type]
        repo,
        GitRevision(repo, "feature"),
        GitRevision(repo, "main"),
        **options,  # type: ignore[arg-type]
    )


def run_of(runs: Sequence[AnalyzerRun], name: str) -> AnalyzerRun:
    [run] = [r for r in runs if r.name == name]
    return run


RUFF = AnalyzerSettings(name="ruff")
needs_ruff = pytest.mark.skipif(find_tool("ruff") is None, reason="ruff is a test dependency")


@needs_ruff
def test_ruff_reports_the_new_undefined_name_and_not_the_bases_unused_import(repo: Path) -> None:
    spec = AnalyzerSettings(name="ruff", filter_mode=FilterMode.FILE, post=Posting.ALONE)
    [run] = asyncio.run(analyzers(repo, spec).analyze(diff_of(repo)))
    assert run.note is None and run.posting is Posting.ALONE
    assert [(r.rule, r.path, r.line) for r in run.results] == [("F821", "src/cart.py", TYPO)]
    [result] = run.results
    assert result.severity is Severity.HIGH and "amont" in result.message
    assert result.help_uri and "undefined-name" in result.help_uri
    assert dict(run.dropped) == {ON_BASE: 1}  # F401 `import os`: the base had it


@needs_ruff
def test_by_default_only_added_lines_count(repo: Path) -> None:
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(diff_of(repo)))
    assert [r.rule for r in run.results] == ["F821"]
    assert dict(run.dropped) == {NOT_ADDED: 1}  # `import os` is a context line at most


@needs_ruff
def test_the_repositorys_own_ruff_configuration_is_used(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F", "B"]\n')
    git(repo, "commit", "-q", "-am", "lint bugbear")
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(ingest(git(repo, "diff", "main...feature"))))
    assert {(r.rule, r.line) for r in run.results} == {("F821", TYPO), ("B006", DEFAULT)}


@needs_ruff
def test_a_packages_own_ruff_configuration_applies_to_its_files(repo: Path) -> None:
    (repo / "src" / "ruff.toml").write_text('[lint]\nselect = ["F", "B"]\n')  # a monorepo's
    git(repo, "add", "src/ruff.toml")
    git(repo, "commit", "-q", "-m", "the package lints bugbear")
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(diff_of(repo)))
    assert {(r.rule, r.line) for r in run.results} == {("F821", TYPO), ("B006", DEFAULT)}


@needs_ruff
def test_a_pyproject_without_ruffs_table_leaves_ruff_at_its_defaults_not_the_machines(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ruff falls back to the user's configuration where the project has none of its own
    (tmp_path / "xdg" / "ruff").mkdir(parents=True)
    (tmp_path / "xdg" / "ruff" / "ruff.toml").write_text('[lint]\nignore = ["F821"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (repo / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    git(repo, "commit", "-q", "-am", "no ruff table")
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(diff_of(repo)))
    assert ("F821", TYPO) in {(r.rule, r.line) for r in run.results}


@needs_ruff
def test_a_broken_ruff_configuration_is_a_note(repo: Path) -> None:
    (repo / "ruff.toml").write_text("[lint]\nselect = 3\n")
    git(repo, "add", "ruff.toml")
    git(repo, "commit", "-q", "-m", "broken")
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(diff_of(repo)))
    assert run.results == () and run.note is not None
    assert run.note.startswith("ruff failed (exit 2):")


def test_a_tool_that_is_not_installed_is_a_note_saying_how(repo: Path) -> None:
    [run] = asyncio.run(analyzers(repo, RUFF, find=lambda name: None).analyze(diff_of(repo)))
    assert run.note == "ruff is not installed (pip install 'consensus-review[analyzers]')"


def test_a_forks_head_runs_no_analyzer_but_its_sarif_is_read(repo: Path) -> None:
    (repo / "eslint.sarif").write_bytes((DATA / "codeql-fingerprinting.sarif").read_bytes())
    sarif = (SarifSettings(path="eslint.sarif", name="codeql"),)

    def refuse(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
        raise AssertionError("nothing is run on a fork's head")

    chosen = analyzers(repo, RUFF, sarif=sarif, trusted_head=False, run=refuse)
    ruff, codeql = asyncio.run(chosen.analyze(diff_of(repo)))
    assert ruff.note == FORK
    assert codeql.note is None  # read; none of its files is in this change
    assert dict(codeql.dropped) == {"outside the reviewed files": 2}


def test_a_change_without_python_is_a_note(repo: Path) -> None:
    only_readme = ingest(git(repo, "diff", "main...feature", "--", "README.md"))
    [run] = asyncio.run(analyzers(repo, RUFF).analyze(only_readme))
    assert run.note == "no Python file in this change"


SEMGREP_JSON = {
    "version": "1.95.0",
    "results": [
        {
            # semgrep prefixes a rule's id with its configuration file's folder
            "check_id": "tmp.consensus.adapters.python.mutable-default-argument",
            "path": "src/cart.py",
            "start": {"line": DEFAULT, "col": 1, "offset": 30},
            "end": {"line": TYPO, "col": 17, "offset": 160},
            "extra": {
                "message": "A mutable default is shared by every call.",
                "severity": "WARNING",
                "metadata": {"source": "https://docs.python-guide.org/writing/gotchas/"},
                "lines": "def total(items, seen=[]):",
            },
        }
    ],
    "errors": [],
    "paths": {"scanned": ["src/cart.py"]},
}


def test_semgrep_runs_the_pinned_ruleset_offline(repo: Path) -> None:
    calls: list[list[str]] = []

    def semgrep(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
        calls.append(list(argv))
        assert (cwd / "src" / "cart.py").read_text() == HEAD  # the head's file, written
        return 0, json.dumps(SEMGREP_JSON).encode(), b""

    chosen = analyzers(
        repo,
        AnalyzerSettings(name="semgrep"),
        find=lambda name: ("/usr/bin/semgrep",),
        run=semgrep,
    )
    [run] = asyncio.run(chosen.analyze(diff_of(repo)))
    [argv] = calls
    assert argv[:4] == ["/usr/bin/semgrep", "scan", "--config", str(SEMGREP_RULES)]
    assert "--metrics=off" in argv and argv[-1] == "src/cart.py"
    [result] = run.results
    assert (result.rule, result.line, result.end_line) == (
        "python.mutable-default-argument",
        DEFAULT,
        TYPO,
    )
    assert result.severity is Severity.MEDIUM


def test_the_pinned_semgrep_ruleset_is_shipped_and_python_only() -> None:
    import yaml

    rules = yaml.safe_load(SEMGREP_RULES.read_text())["rules"]
    assert len(rules) >= 5 and all(rule["languages"] == ["python"] for rule in rules)


@pytest.mark.skipif(shutil.which("semgrep") is None, reason="semgrep is not a dependency")
def test_real_semgrep_finds_the_mutable_default(repo: Path) -> None:
    [run] = asyncio.run(analyzers(repo, AnalyzerSettings(name="semgrep")).analyze(diff_of(repo)))
    assert run.note is None
    assert [(r.rule, r.line) for r in run.results] == [("python.mutable-default-argument", DEFAULT)]


@pytest.mark.parametrize(
    ("content", "note"),
    [
        (None, "SARIF file out/scan.sarif: no such file"),
        (b"{", "SARIF file out/scan.sarif is not JSON"),
        (b'{"version": "2.0.0", "runs": []}', "SARIF file out/scan.sarif is SARIF version"),
    ],
)
def test_a_sarif_file_that_does_not_read_is_a_note(
    repo: Path, content: bytes | None, note: str
) -> None:
    if content is not None:
        (repo / "out").mkdir()
        (repo / "out" / "scan.sarif").write_bytes(content)
    sarif = (SarifSettings(path="out/scan.sarif"),)
    [run] = asyncio.run(analyzers(repo, sarif=sarif).analyze(diff_of(repo)))
    assert run.name == "scan" and run.results == ()
    assert run.note is not None and run.note.startswith(note)


def sarif_at(line: int, fingerprint: str) -> str:
    location = {"artifactLocation": {"uri": "src/cart.py"}, "region": {"startLine": line}}
    found = {
        "ruleId": "py/undefined-name",
        "message": {"text": "Undefined name."},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint},
    }
    return json.dumps(
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}}, "results": [found]}]}
    )


def test_a_baseline_sarif_of_the_base_tells_old_results_by_fingerprint(repo: Path) -> None:
    (repo / "head.sarif").write_text(sarif_at(TYPO, "aaaa:1"))
    (repo / "base.sarif").write_text(sarif_at(TYPO - 2, "aaaa:1"))  # the same, two lines up
    spec = SarifSettings(path="head.sarif", baseline="base.sarif", filter_mode=FilterMode.FILE)
    [run] = asyncio.run(analyzers(repo, sarif=(spec,)).analyze(diff_of(repo)))
    assert run.name == "codeql" and run.results == ()
    assert dict(run.dropped) == {"unchanged since the baseline": 1}


def test_a_baseline_that_does_not_read_is_a_note_and_results_count_as_new(repo: Path) -> None:
    (repo / "head.sarif").write_text(sarif_at(TYPO, "aaaa:1"))
    spec = SarifSettings(path="head.sarif", baseline="missing.sarif")
    [run] = asyncio.run(analyzers(repo, sarif=(spec,)).analyze(diff_of(repo)))
    assert [r.line for r in run.results] == [TYPO]
    assert run.note == (
        "SARIF file missing.sarif: no such file (the step that writes it runs before consensus)"
        ": every result counts as new"
    )


def semgrep_on(line: int) -> bytes:
    """semgrep's JSON with one result of one rule on `line` of src/cart.py."""
    found = {**SEMGREP_JSON["results"][0], "start": {"line": line, "col": 1, "offset": 0}}  # type: ignore[index]
    found["end"] = {"line": line, "col": 9, "offset": 9}
    return json.dumps({**SEMGREP_JSON, "results": [found]}).encode()


IMPORT = HEAD.splitlines().index("import os") + 1  # the same line on both sides


@pytest.mark.parametrize(("mode", "sides"), [(FilterMode.FILE, 2), (FilterMode.ADDED, 1)])
def test_semgrep_runs_on_the_base_too_where_the_filter_keeps_unchanged_lines(
    repo: Path, mode: FilterMode, sides: int
) -> None:
    folders: list[str] = []

    def semgrep(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
        folders.append(cwd.name)
        return 0, semgrep_on(IMPORT), b""

    spec = AnalyzerSettings(name="semgrep", filter_mode=mode)
    chosen = analyzers(repo, spec, find=lambda name: ("/usr/bin/semgrep",), run=semgrep)
    [run] = asyncio.run(chosen.analyze(diff_of(repo)))
    assert folders == ["head", "base"][:sides]
    assert run.results == ()  # on the base already (file), or not on an added line (added)
    assert dict(run.dropped) == {ON_BASE if mode is FilterMode.FILE else NOT_ADDED: 1}
