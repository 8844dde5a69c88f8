"""What a verification tool may read: a model's path confined to the checkout's trees."""

from __future__ import annotations

import pytest

from consensus.inspect.lookups import Lookups
from consensus.inspect.paths import ToolRefusal, confine
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.testing.trees import FakeTrees, Link

HEAD = {
    "src/app.py": "def main():\n    return 0\n",
    "src/config.py": "DEBUG = False\n",
    "secrets/prod.env": "DATABASE_URL=postgres://app@db/prod\n",
    "docs/current.md": "# Current\n",
    "docs/latest.md": Link("current.md"),
    "src/settings.py": Link("../../etc/passwd"),
    "src/hosts": Link("/etc/hosts"),
    "src/loop_a": Link("loop_b"),
    "src/loop_b": Link("loop_a"),
    "link_to_secrets.env": Link("secrets/prod.env"),
}


def snapshot(policy: PathPolicy | None = None) -> Snapshot:
    return Snapshot(FakeTrees(head=HEAD), redactor(), policy or PathPolicy(exclude=("secrets/",)))


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("../etc/passwd", "'..' is not allowed"),
        ("/etc/passwd", "absolute paths are not read"),
        ("src/../../x", "'..' is not allowed"),
        ("src/../app.py", "'..' is not allowed"),
        ("~/.ssh/id_rsa", "absolute paths are not read"),
        ("C:/Windows/win.ini", "absolute paths are not read"),
        ("src\\..\\..\\x", "write paths with '/'"),
        (".git/config", "git's own files (.git/) are not read"),
        ("a/.git/HEAD", "git's own files (.git/) are not read"),
        (".GIT/config", "git's own files (.git/) are not read"),
        ("secrets/prod.env", "the configuration's `exclude` excludes it"),
        ("src/settings.py", "symlink to '../../etc/passwd', outside the tree"),
        ("src/hosts", "symlink to '/etc/hosts', outside the tree"),
        ("link_to_secrets.env", "the configuration's `exclude` excludes it"),
        ("src/loop_a", "more than 8 symlinks in a row"),
        ("", "the path is empty"),
        ("src/app.py\x00.txt", "control characters"),
        (".", "the repository's root"),
    ],
)
def test_a_path_leaving_the_tree_or_the_configuration_is_refused(path: str, said: str) -> None:
    with pytest.raises(ToolRefusal) as refusal:
        confine(snapshot(), path)
    assert said in refusal.value.message


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/app.py", "src/app.py"),
        ("./src//app.py", "src/app.py"),
        ("docs/latest.md", "docs/current.md"),  # a symlink inside the tree is followed
        ("src/missing.py", "src/missing.py"),  # confined; whether it exists is the tool's
    ],
)
def test_a_path_inside_the_tree_is_its_tree_name(path: str, name: str) -> None:
    assert confine(snapshot(), path) == name


def test_a_path_the_configuration_does_not_select_is_refused() -> None:
    narrowed = snapshot(PathPolicy(include=("src/**",)))
    with pytest.raises(ToolRefusal, match="`paths` does not select it"):
        confine(narrowed, "docs/current.md")
    assert confine(narrowed, "src/config.py") == "src/config.py"


def test_a_refused_read_is_a_tool_error_the_model_reads_and_nothing_is_read() -> None:
    trees = FakeTrees(head=HEAD)
    lookups = Lookups(Snapshot(trees, redactor(), PathPolicy()))
    result = lookups.call(
        "read_file", '{"path": "src/settings.py", "start_line": 1, "end_line": 5}'
    )
    assert result.error and result.spans == ()
    assert result.text.startswith("error: refused 'src/settings.py': it is a symlink")
    assert trees.reads == []
