"""A PR's file list (with GitHub's patches) → the diff that ingest reviews, coverage told."""

from __future__ import annotations

import pytest

from consensus.ingest.chunking import split_large_hunks
from consensus.ingest.pull_diff import (
    NO_CHECKOUT,
    NOT_IN_CHECKOUT,
    OMITTED_PATCH,
    build_pull_diff,
    git_sections,
    host_hunks,
    review_hunks,
)
from consensus.ingest.review_diff import ingest
from consensus.model.base import FileStatus
from consensus.ports import PullFile

PATCH = "@@ -1,2 +1,3 @@\n a\n+b\n c"
GIT = (
    "diff --git a/big.py b/big.py\nindex 1..2 100644\n--- a/big.py\n+++ b/big.py\n"
    "@@ -1 +1,2 @@\n x\n+y\n"
    "diff --git a/other.py b/other.py\n--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-p\n+q\n"
)


@pytest.mark.parametrize(
    ("item", "status", "skipped_reason"),
    [
        (
            PullFile(path="m.py", status="modified", additions=1, patch=PATCH),
            FileStatus.MODIFIED,
            None,
        ),
        (
            PullFile(path="n.py", status="added", additions=3, patch="@@ -0,0 +1,1 @@\n+x"),
            FileStatus.ADDED,
            None,
        ),
        (
            PullFile(path="r.py", previous_path="o.py", status="renamed", additions=1, patch=PATCH),
            FileStatus.RENAMED,
            None,
        ),
        (
            PullFile(path="d.py", status="removed", deletions=1, patch="@@ -1 +0,0 @@\n-x"),
            None,
            "deleted",
        ),
        (PullFile(path="i.png", status="modified"), None, "binary"),
        (PullFile(path="big.py", status="modified", additions=9000), None, OMITTED_PATCH),
    ],
)
def test_each_kind_of_file(
    item: PullFile, status: FileStatus | None, skipped_reason: str | None
) -> None:
    pull = build_pull_diff([item], changed_files=1)
    diff = ingest(pull.text)
    if status is not None:
        [changed] = diff.files
        assert (changed.path, changed.status) == (item.path, status)
    else:
        assert diff.files == ()
        reasons = [s.reason for s in (*diff.skipped, *pull.skipped) if s.path == item.path]
        assert reasons and skipped_reason is not None and skipped_reason in reasons[0]


def test_an_omitted_patch_comes_from_the_checkout_and_is_noted() -> None:
    calls: list[int] = []

    def fallback() -> dict[str, str]:
        calls.append(1)
        return git_sections(GIT)

    files = [
        PullFile(path="big.py", status="modified", additions=9000),
        PullFile(path="gone.py", status="modified", additions=9000),
        PullFile(path="m.py", status="modified", additions=1, patch=PATCH),
    ]
    pull = build_pull_diff(files, changed_files=3, fallback=fallback)
    diff = ingest(pull.text)
    assert [f.path for f in diff.files] == ["big.py", "m.py"]
    assert [(s.path, s.reason) for s in pull.skipped] == [("gone.py", NOT_IN_CHECKOUT)]
    assert calls == [1]  # git is asked once, however many patches are missing
    assert pull.notes == (
        "1 file whose patch GitHub omitted (too large) reviewed from the checkout's git history",
    )
    assert host_hunks(files) == {"m.py": [frozenset({1, 2, 3})]}  # GitHub's own view


def test_more_files_than_github_lists_is_said() -> None:
    files = [
        PullFile(path=f"f{n}.py", status="modified", additions=1, patch=PATCH) for n in range(3)
    ]
    pull = build_pull_diff(files, changed_files=3005)
    assert any("3002 more changed files were not reviewed" in note for note in pull.notes)


# Names git quotes ("\303\251", "\"", "\\") and names holding " b/" .
ODD_NAMES = [
    "plan b/notes.py",
    "docs/café menu.md",
    'say "hi".py',
    "back\\slash.py",
    "a b/c b/d.py",
]


def _git_section(path: str) -> str:
    from consensus.ingest.git_names import quote_path

    a, b = quote_path(f"a/{path}"), quote_path(f"b/{path}")
    return f"diff --git {a} {b}\nindex 1..2 100644\n--- {a}\n+++ {b}\n@@ -1 +1,2 @@\n x\n+y\n"


@pytest.mark.parametrize("path", ODD_NAMES)
def test_an_omitted_patch_is_found_in_the_checkout_whatever_its_name(path: str) -> None:
    files = [PullFile(path=path, status="modified", additions=9000)]
    pull = build_pull_diff(
        files, changed_files=1, fallback=lambda: git_sections(_git_section(path))
    )
    assert pull.skipped == ()
    [changed] = ingest(pull.text).files
    assert changed.path == path and changed.added == 1


@pytest.mark.parametrize("path", ODD_NAMES)
def test_host_patches_of_any_name_read_back_as_that_name(path: str) -> None:
    files = [
        PullFile(path=path, status="modified", additions=1, patch=PATCH),
        PullFile(
            path=f"new {path}", previous_path=path, status="renamed", additions=1, patch=PATCH
        ),
        PullFile(path=f"{path}.png", status="modified"),
    ]
    diff = ingest(build_pull_diff(files, changed_files=3).text)
    assert [(f.path, f.old_path) for f in diff.files] == [(path, None), (f"new {path}", path)]
    assert [(s.path, s.reason) for s in diff.skipped] == [(f"{path}.png", "binary")]


def test_without_a_checkout_the_reason_says_so_and_how_to_fix_it() -> None:
    files = [PullFile(path="big.py", status="modified", additions=9000)]
    pull = build_pull_diff(files, changed_files=1, fallback=lambda: None)
    assert [(s.path, s.reason) for s in pull.skipped] == [("big.py", NO_CHECKOUT)]
    assert "fetch-depth: 0" in NO_CHECKOUT


LINK = "diff --git a/cfg b/cfg\nnew file mode 120000\nindex 0..1\n--- /dev/null\n+++ b/cfg\n"
LINK += "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"


def test_a_one_line_patch_takes_gits_header_from_the_checkout_to_tell_a_link() -> None:
    patch = "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file"
    files = [PullFile(path="cfg", status="added", additions=1, patch=patch)]
    without = ingest(build_pull_diff(files, changed_files=1).text)
    assert [f.path for f in without.files] == ["cfg"]  # GitHub's list alone cannot tell
    diff = ingest(build_pull_diff(files, changed_files=1, fallback=lambda: git_sections(LINK)).text)
    assert diff.files == ()
    assert [(s.path, s.reason) for s in diff.skipped] == [("cfg", "symlink")]
    assert review_hunks(diff) == {"cfg": [frozenset({1})]}


def test_a_mode_change_without_patch_is_not_called_binary() -> None:
    files = [PullFile(path="run.sh", status="changed")]
    pull = build_pull_diff(files, changed_files=1)
    assert [(s.path, s.reason) for s in pull.skipped] == [("run.sh", "mode change only")]


def test_a_hunk_cut_to_fit_a_prompt_is_one_commentable_hunk_as_on_github() -> None:
    added = "".join(f"+line {n}\n" for n in range(1, 401))
    diff = ingest(
        f"diff --git a/new.py b/new.py\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,400 @@\n{added}"
    )
    cut = split_large_hunks(diff)
    assert len(cut.files[0].hunks) == 2
    assert review_hunks(cut) == {"new.py": [frozenset(range(1, 401))]}
