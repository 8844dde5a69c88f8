"""The pull request's trees read from a real git repository's objects (adapters/git_tree.py),
and the verification tools over them: never the work tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from consensus.adapters.git_tree import GitTrees
from consensus.inspect.lookups import Lookups
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)
    return done.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """base: app/db.py; head: app/db.py changed, a symlink inside and one leaving the tree."""
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "app/db.py").write_text("def connect(url):\n    return None\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    (root / "app/db.py").write_text("def connect(url):\n    return open_pool(url)\n")
    (root / "app/current.py").symlink_to("db.py")
    (root / "app/passwd").symlink_to("../../../etc/passwd")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "head")
    head = git(root, "rev-parse", "HEAD")
    (root / "app/db.py").write_text("uncommitted: the tools never see this\n")
    return root, base, head


def test_the_trees_are_listed_from_each_commit_with_symlinks_as_entries(
    repo: tuple[Path, str, str],
) -> None:
    root, base, head = repo
    trees = GitTrees(root, base, head)
    assert trees.paths("base") == ("app/db.py",)
    assert trees.paths("head") == ("app/current.py", "app/db.py", "app/passwd", "logo.png")
    assert trees.link_target("app/current.py", "head") == "db.py"
    assert trees.link_target("app/passwd", "head") == "../../../etc/passwd"
    assert trees.link_target("app/db.py", "head") is None


def test_files_are_read_from_the_commits_in_one_pass_not_from_the_work_tree(
    repo: tuple[Path, str, str],
) -> None:
    root, base, head = repo
    trees = GitTrees(root, base, head)
    read = trees.read(["app/db.py", "logo.png", "app/current.py", "missing.py"], "head")
    assert read == {
        "app/db.py": b"def connect(url):\n    return open_pool(url)\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
    }
    assert trees.read(["app/db.py"], "base") == {
        "app/db.py": b"def connect(url):\n    return None\n"
    }


def test_the_tools_over_a_real_repository_follow_a_link_inside_and_refuse_one_outside(
    repo: tuple[Path, str, str],
) -> None:
    root, base, head = repo
    lookups = Lookups(Snapshot(GitTrees(root, base, head), redactor(), PathPolicy()))
    inside = lookups.call("read_file", {"path": "app/current.py", "start_line": 2, "end_line": 2})
    outside = lookups.call("read_file", {"path": "app/passwd", "start_line": 1, "end_line": 1})
    before = lookups.call(
        "read_file", {"path": "app/db.py", "start_line": 2, "end_line": 2, "side": "base"}
    )
    assert inside.text.splitlines()[1] == "2:     return open_pool(url)"
    assert outside.error and "symlink to '../../../etc/passwd', outside the tree" in outside.text
    assert before.text.splitlines()[1] == "2:     return None"
    found = lookups.call("find_definition", {"symbol": "connect"})
    assert found.text == "app/db.py:1: def connect(url): (function)"
