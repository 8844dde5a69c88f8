"""consensus.adapters.git against real temporary git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from consensus.adapters.git import default_base, git_diff, read_gitattributes, toplevel
from consensus.errors import DiffError
from consensus.ingest.parse import parse_diff
from consensus.model.base import FileStatus

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
MODULE = "".join(f"def handler_{i}(event):\n    return process(event, {i})\n\n" for i in range(30))


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git config leaks into the tests; commits get a fixed identity."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)
    return done.stdout.decode()


def write(repo: Path, path: str, content: str | bytes) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: app/handlers.py, app/db.py, assets/logo.png; branch `feature` checked out."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "app/handlers.py", MODULE)
    write(root, "app/db.py", "def connect():\n    return None\n")
    write(root, "assets/logo.png", PNG)
    write(root, ".gitignore", "*.log\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def test_branch_diff_shows_rename_binary_and_edits_from_the_merge_base(repo: Path) -> None:
    git(repo, "mv", "app/handlers.py", "app/events.py")
    write(repo, "app/events.py", MODULE.replace("handler_3(", "handle_three("))
    write(repo, "app/db.py", "def connect():\n    return open_pool()\n")
    write(repo, "assets/logo.png", PNG + b"\x01")
    git(repo, "commit", "-q", "-am", "feature work")
    # main moves on after the branch point: BASE...HEAD must not show this change.
    git(repo, "checkout", "-q", "main")
    write(repo, "app/main_only.py", "MAIN = True\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "main work")
    git(repo, "checkout", "-q", "feature")

    files, skipped = parse_diff(git_diff(repo, "main", "feature"))

    assert sorted((f.path, f.old_path, f.status) for f in files) == [
        ("app/db.py", None, FileStatus.MODIFIED),
        ("app/events.py", "app/handlers.py", FileStatus.RENAMED),
    ]
    assert [(s.path, s.reason) for s in skipped] == [("assets/logo.png", "binary")]


def test_working_tree_diff_includes_staged_unstaged_and_untracked(repo: Path) -> None:
    write(repo, "app/db.py", "def connect():\n    return open_pool()\n")  # unstaged
    write(repo, "app/cache.py", "CACHE = {}\n")
    git(repo, "add", "app/cache.py")  # staged, new
    write(repo, "app/new feature [v2].py", "def run():\n    pass\n")  # untracked
    write(repo, "debug.log", "ignored\n")  # ignored
    index = repo / ".git" / "index"
    index_before, status_before = index.read_bytes(), git(repo, "status", "--porcelain")

    files, skipped = parse_diff(git_diff(repo, "main", None))

    assert sorted((f.path, f.status, f.added) for f in files) == [
        ("app/cache.py", FileStatus.ADDED, 1),
        ("app/db.py", FileStatus.MODIFIED, 1),
        ("app/new feature [v2].py", FileStatus.ADDED, 2),
    ]
    assert skipped == []
    assert index.read_bytes() == index_before  # the user's index is never touched
    assert git(repo, "status", "--porcelain") == status_before


def test_working_tree_diff_compares_with_the_merge_base_not_base_tip(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    write(repo, "app/main_only.py", "MAIN = True\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "main work")
    git(repo, "checkout", "-q", "feature")
    write(repo, "app/db.py", "def connect():\n    return open_pool()\n")

    files, _ = parse_diff(git_diff(repo, "main", None))

    assert [f.path for f in files] == ["app/db.py"]


def test_no_changes_is_an_empty_diff(repo: Path) -> None:
    assert git_diff(repo, "main", None) == b""
    assert git_diff(repo, "main", "feature") == b""


def test_unknown_base_ref_says_how_to_fetch_it(repo: Path) -> None:
    with pytest.raises(DiffError, match="unknown base ref 'origin/release'") as caught:
        git_diff(repo, "origin/release", None)
    assert caught.value.fix is not None
    assert "git fetch origin release" in caught.value.fix


def test_unknown_head_ref_is_named(repo: Path) -> None:
    with pytest.raises(DiffError, match="unknown head ref 'nope'"):
        git_diff(repo, "main", "nope")


@pytest.mark.parametrize("ref", ["--output=/tmp/x", "main branch", ""])
def test_refs_that_could_be_options_are_refused(repo: Path, ref: str) -> None:
    with pytest.raises(DiffError, match="not a valid git ref"):
        git_diff(repo, ref, None)


def test_unrelated_histories_ask_for_full_history(repo: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "island")
    git(repo, "commit", "-q", "-m", "unrelated")
    with pytest.raises(DiffError, match="no common ancestor") as caught:
        git_diff(repo, "main", "island")
    assert caught.value.fix is not None and "fetch-depth: 0" in caught.value.fix


def test_outside_a_repository_says_to_run_inside_one(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(DiffError, match="not inside a git repository") as caught:
        git_diff(plain, "main", None)
    assert caught.value.fix is not None and "run inside a git repository" in caught.value.fix


def test_repo_root_from_a_subdirectory(repo: Path, tmp_path: Path) -> None:
    assert toplevel(repo / "app") == repo.resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    assert toplevel(outside) is None


def test_read_gitattributes(repo: Path) -> None:
    assert read_gitattributes(repo) == ""
    write(repo, ".gitattributes", "api/*.json linguist-generated\n")
    assert read_gitattributes(repo) == "api/*.json linguist-generated\n"


def test_default_base_prefers_origin_then_main(repo: Path) -> None:
    assert default_base(repo) == "main"
    git(repo, "update-ref", "refs/remotes/origin/develop", "main")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    assert default_base(repo) == "origin/develop"


def test_default_base_without_candidates_asks_for_base(tmp_path: Path) -> None:
    root = tmp_path / "trunk"
    root.mkdir()
    git(root, "init", "-q", "-b", "trunk")
    write(root, "a.txt", "a\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "a")
    with pytest.raises(DiffError, match="cannot tell which branch") as caught:
        default_base(root)
    assert caught.value.fix is not None and "--base" in caught.value.fix


def test_the_users_diff_config_and_environment_do_not_change_what_is_reviewed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "checkout", "-q", "main")
    write(repo, "app/db.py", MODULE)
    git(repo, "commit", "-qam", "long db")
    git(repo, "checkout", "-q", "-b", "change")
    write(repo, "app/db.py", MODULE.replace("process(event, 15)", "process(event, 16)"))
    write(repo, "caf\xe9.py".encode("latin-1").decode("utf-8", "surrogateescape"), "x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "edit")
    plain = parse_diff(git_diff(repo, "main", "change"))
    for key, value in [
        ("diff.context", "0"),
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("diff.suppressBlankEmpty", "true"),
        ("diff.external", "false"),
        ("diff.relative", "true"),
        ("diff.interHunkContext", "20"),
        ("color.ui", "always"),
        ("core.quotePath", "false"),
    ]:
        git(repo, "config", key, value)
    monkeypatch.setenv("GIT_DIFF_OPTS", "--unified=0")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "false")
    (db, named), _ = configured = parse_diff(git_diff(repo, "main", "change"))
    assert configured == plain
    assert len(db.hunks[0].lines) == 8  # three lines of context each side, as GitHub shows
    assert named.path == '"caf\\351.py"'  # git's quoted form, not U+FFFD
