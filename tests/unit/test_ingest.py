"""consensus.ingest.review_diff: parse → select → redact, composed into one ReviewDiff."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.errors import DiffError
from consensus.ingest.review_diff import ingest
from consensus.model.base import FileStatus
from consensus.model.diff import ReviewDiff
from tests.unit.test_diff import ADDED_JS, BINARY_PNG, DELETED, MODIFIED_PY, PURE_RENAME

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"

CONFIG_WITH_TOKEN = f"""\
diff --git a/src/app/settings.py b/src/app/settings.py
index 1a2b3c4..5d6e7f8 100644
--- a/src/app/settings.py
+++ b/src/app/settings.py
@@ -1,3 +1,4 @@
 import os
\x20
 DEBUG = False
+GITHUB_TOKEN = "{TOKEN}"
"""

LOCKFILE = f"""\
diff --git a/package-lock.json b/package-lock.json
index 1111111..2222222 100644
--- a/package-lock.json
+++ b/package-lock.json
@@ -1,3 +1,3 @@
 {{
-  "version": "1.0.0",
+  "version": "1.0.1", "token": "{TOKEN}",
 }}
"""

DOCS = """\
diff --git a/docs/setup.md b/docs/setup.md
index 3333333..4444444 100644
--- a/docs/setup.md
+++ b/docs/setup.md
@@ -1 +1 @@
-Run make.
+Run `make install`.
"""

GENERATED = """\
diff --git a/src/api/client.gen.ts b/src/api/client.gen.ts
index 5555555..6666666 100644
--- a/src/api/client.gen.ts
+++ b/src/api/client.gen.ts
@@ -1 +1 @@
-export const VERSION = "1";
+export const VERSION = "2";
"""

PR = MODIFIED_PY + CONFIG_WITH_TOKEN + BINARY_PNG + LOCKFILE + DELETED + DOCS + GENERATED
PR += PURE_RENAME + ADDED_JS


def test_ingest_composes_parse_select_and_redact() -> None:
    diff = ingest(
        PR.encode(),
        include=["**"],
        exclude=["docs/**"],
        redact_patterns=[],
        gitattributes="*.gen.ts linguist-generated=true\n",
    )

    assert [(f.path, f.status) for f in diff.files] == [
        ("src/app/db.py", FileStatus.MODIFIED),
        ("src/app/settings.py", FileStatus.MODIFIED),
        ("web/src/api.js", FileStatus.ADDED),
    ]
    # What the parser set aside comes first, then what the path filter did, in diff order.
    assert [(s.path, s.reason) for s in diff.skipped] == [
        ("assets/logo.png", "binary"),
        ("scripts/legacy_migrate.py", "deleted"),
        ("package-lock.json", "lockfile"),
        ("docs/setup.md", "excluded by config"),
        ("src/api/client.gen.ts", "generated"),
        ("docs/new-name.md", "excluded by config"),
    ]
    assert [(r.path, r.line, r.kind) for r in diff.redactions] == [
        ("src/app/settings.py", 4, "github-token")
    ]
    texts = [line.text for f in diff.files for h in f.hunks for line in h.lines]
    assert TOKEN not in "\n".join(texts)
    assert 'GITHUB_TOKEN = "«redacted:github-token»"' in texts


def test_ingest_honours_paths_and_custom_redaction() -> None:
    diff = ingest(
        CONFIG_WITH_TOKEN.replace(TOKEN, "internal-token-q8z7x6w5"),
        include=["src/**"],
        redact_patterns=["internal-token-[a-z0-9]+"],
    )
    assert [f.path for f in diff.files] == ["src/app/settings.py"]
    assert [(r.line, r.kind) for r in diff.redactions] == [(4, "custom")]


def test_skipped_files_are_not_scanned_nothing_of_them_reaches_a_provider() -> None:
    diff = ingest(LOCKFILE)
    assert diff.files == ()
    assert diff.redactions == ()
    assert [s.reason for s in diff.skipped] == ["lockfile"]


@pytest.mark.parametrize("empty", ["", b"", "\n"])
def test_empty_diff_is_an_empty_review(empty: str | bytes) -> None:
    assert ingest(empty) == ReviewDiff()


def test_garbage_is_a_diff_error() -> None:
    with pytest.raises(DiffError, match="not a unified diff"):
        ingest("this is a commit message, not a diff\n")


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=400), st.text(max_size=400).map(lambda tail: PR + tail)))
def test_any_text_gives_a_review_diff_or_diff_error(text: str) -> None:
    try:
        diff = ingest(text)
    except DiffError:
        return
    assert isinstance(diff, ReviewDiff)


def test_a_pure_rename_is_skipped_with_its_reason() -> None:
    review = ingest(PURE_RENAME + MODIFIED_PY)
    assert [f.path for f in review.files] == [f.path for f in ingest(MODIFIED_PY).files]
    renamed = [s for s in review.skipped if s.reason == "renamed without changes"]
    assert len(renamed) == 1
