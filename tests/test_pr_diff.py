"""A PR's file list (with GitHub's patches) → the diff that ingest reviews, coverage told."""

from __future__ import annotations

import pytest

from consensus.ingest.pull_diff import OMITTED_PATCH, build_pull_diff, git_sections, host_hunks
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
    assert [(s.path, s.reason) for s in pull.skipped] == [("gone.py", OMITTED_PATCH)]
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
