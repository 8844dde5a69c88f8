"""consensus.ingest.parse: unified diff → ChangedFile / SkippedFile, without ever crashing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.errors import DiffError
from consensus.ingest.git_names import quote_path
from consensus.ingest.parse import parse_diff, parse_diff_full
from consensus.ingest.view import render_file
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, LinkChange, SkippedFile

MODIFIED_PY = """\
diff --git a/src/app/db.py b/src/app/db.py
index 3b18e51..a1f2c3d 100644
--- a/src/app/db.py
+++ b/src/app/db.py
@@ -40,6 +40,8 @@ def get_user(conn, user_id):
     cursor = conn.cursor()
-    cursor.execute("SELECT * FROM users WHERE id = %s" % user_id)
+    cursor.execute("SELECT * FROM users WHERE id = %s", (user_id,))
     row = cursor.fetchone()
+    if row is None:
+        return None
     return User(*row)
\x20
\x20
@@ -90,4 +92,3 @@ def delete_user(conn, user_id):
     conn.execute("DELETE FROM users WHERE id = %s", (user_id,))
-    conn.commit()
     log.info("deleted %s", user_id)
     return True
"""

RENAME_WITH_CHANGES = """\
diff --git a/src/utils/strings.py b/src/text/normalize.py
similarity index 87%
rename from src/utils/strings.py
rename to src/text/normalize.py
index 5d41402..7b52009 100644
--- a/src/utils/strings.py
+++ b/src/text/normalize.py
@@ -1,5 +1,5 @@
 import unicodedata
\x20
\x20
-def normalise(text):
+def normalize(text: str) -> str:
     return unicodedata.normalize("NFC", text).strip()
"""

PURE_RENAME = """\
diff --git a/docs/old-name.md b/docs/new-name.md
similarity index 100%
rename from docs/old-name.md
rename to docs/new-name.md
"""

DELETED = """\
diff --git a/scripts/legacy_migrate.py b/scripts/legacy_migrate.py
deleted file mode 100644
index 9f86d08..0000000
--- a/scripts/legacy_migrate.py
+++ /dev/null
@@ -1,3 +0,0 @@
-import sys
-
-print("migrating", sys.argv[1])
"""

ADDED_JS = """\
diff --git a/web/src/api.js b/web/src/api.js
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/web/src/api.js
@@ -0,0 +1,4 @@
+export async function getUser(id) {
+  const res = await fetch(`/api/users/${id}`);
+  return res.json();
+}
"""

BINARY_PNG = """\
diff --git a/assets/logo.png b/assets/logo.png
index 1a2b3c4..5d6e7f8 100644
Binary files a/assets/logo.png and b/assets/logo.png differ
"""

GIT_BINARY_PATCH = """\
diff --git a/assets/icon.png b/assets/icon.png
new file mode 100644
index 0000000000000000000000000000000000000000..8c0b1ab1d3b3ab40b2bd1e5c3d1fd8c1b8dd2d8b
GIT binary patch
literal 68
zcmeAS@N?(olHy`uVBq!ia0vp^j3CUx1SBVv2j2s6ji-xah{fsTKmY&R8_Y3a^kDj-
QmNnFI1OS)vx3mP{0Fa3N4gdfE

literal 0
HcmV?d00001

"""

MODE_ONLY = """\
diff --git a/scripts/deploy.sh b/scripts/deploy.sh
old mode 100644
new mode 100755
"""

MODE_AND_CONTENT = """\
diff --git a/scripts/build.sh b/scripts/build.sh
old mode 100644
new mode 100755
index 0c1d2e3..4f5a6b7
--- a/scripts/build.sh
+++ b/scripts/build.sh
@@ -1,2 +1,3 @@
 #!/bin/sh
+set -eu
 make all
"""

NO_NEWLINE = """\
diff --git a/VERSION b/VERSION
index 8a9b0c1..2d3e4f5 100644
--- a/VERSION
+++ b/VERSION
@@ -1 +1 @@
-1.4.2
\\ No newline at end of file
+1.5.0
\\ No newline at end of file
"""

SUBMODULE = """\
diff --git a/vendor/libfoo b/vendor/libfoo
index 3a4b5c6..7d8e9f0 160000
--- a/vendor/libfoo
+++ b/vendor/libfoo
@@ -1 +1 @@
-Subproject commit 3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b
+Subproject commit 7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e
"""

EMPTY_NEW_FILE = """\
diff --git a/src/app/__init__.py b/src/app/__init__.py
new file mode 100644
index 0000000..e69de29
"""

QUOTED_PATH = """\
diff --git "a/docs/caf\\303\\251 menu.md" "b/docs/caf\\303\\251 menu.md"
index 1111111..2222222 100644
--- "a/docs/caf\\303\\251 menu.md"\t
+++ "b/docs/caf\\303\\251 menu.md"\t
@@ -1 +1 @@
-Espresso
+Espresso doppio
"""

CRLF_CONTENT = (
    b"diff --git a/win/config.ini b/win/config.ini\n"
    b"index 1234567..89abcde 100644\n"
    b"--- a/win/config.ini\n"
    b"+++ b/win/config.ini\n"
    b"@@ -1,3 +1,3 @@\n"
    b" [server]\r\n"
    b"-port=8080\r\n"
    b"+port=9090\r\n"
    b" \r\n"
)

LATIN1 = (
    b"diff --git a/legacy/menu.txt b/legacy/menu.txt\n"
    b"index 1234567..89abcde 100644\n"
    b"--- a/legacy/menu.txt\n"
    b"+++ b/legacy/menu.txt\n"
    b"@@ -1,2 +1,2 @@\n"
    b" Men\xfc\n"
    b"-caf\xe9 1,50\n"
    b"+caf\xe9 1,80\n"
)

MAIL_PREAMBLE = (
    "From 1a2b3c4d Mon Sep 17 00:00:00 2001\n"
    "From: Dev <dev@example.com>\n"
    "Subject: [PATCH] Add api client\n"
    "\n"
    "---\n"
    " web/src/api.js | 4 ++++\n"
    " 1 file changed, 4 insertions(+)\n"
    "\n"
) + ADDED_JS


def _big_hunk(lines: int = 2000) -> str:
    body = "".join(f"+    value_{i} = compute({i})\n" for i in range(lines))
    return (
        "diff --git a/src/generated_table.py b/src/generated_table.py\n"
        "index 1111111..2222222 100644\n"
        "--- a/src/generated_table.py\n"
        "+++ b/src/generated_table.py\n"
        f"@@ -10,2 +10,{lines + 2} @@ def build():\n"
        "     table = {}\n"
        f"{body}"
        "     return table\n"
    )


# (name, diff, changed [(path, old_path, status, added, removed)], skipped [(path, reason)])
CASES = [
    ("modified", MODIFIED_PY, [("src/app/db.py", None, FileStatus.MODIFIED, 3, 2)], []),
    (
        "rename with changes",
        RENAME_WITH_CHANGES,
        [("src/text/normalize.py", "src/utils/strings.py", FileStatus.RENAMED, 1, 1)],
        [],
    ),
    (
        "pure rename",
        PURE_RENAME,
        [("docs/new-name.md", "docs/old-name.md", FileStatus.RENAMED, 0, 0)],
        [],
    ),
    ("deleted", DELETED, [], [("scripts/legacy_migrate.py", "deleted")]),
    ("added", ADDED_JS, [("web/src/api.js", None, FileStatus.ADDED, 4, 0)], []),
    ("binary differ", BINARY_PNG, [], [("assets/logo.png", "binary")]),
    ("git binary patch", GIT_BINARY_PATCH, [], [("assets/icon.png", "binary")]),
    ("mode only", MODE_ONLY, [], [("scripts/deploy.sh", "mode change only")]),
    (
        "mode and content",
        MODE_AND_CONTENT,
        [("scripts/build.sh", None, FileStatus.MODIFIED, 1, 0)],
        [],
    ),
    ("no newline", NO_NEWLINE, [("VERSION", None, FileStatus.MODIFIED, 1, 1)], []),
    ("submodule", SUBMODULE, [], [("vendor/libfoo", "submodule")]),
    ("empty new file", EMPTY_NEW_FILE, [], [("src/app/__init__.py", "empty file")]),
    ("quoted path", QUOTED_PATH, [("docs/café menu.md", None, FileStatus.MODIFIED, 1, 1)], []),
    ("crlf content", CRLF_CONTENT, [("win/config.ini", None, FileStatus.MODIFIED, 1, 1)], []),
    ("latin-1 bytes", LATIN1, [("legacy/menu.txt", None, FileStatus.MODIFIED, 1, 1)], []),
    ("mail preamble", MAIL_PREAMBLE, [("web/src/api.js", None, FileStatus.ADDED, 4, 0)], []),
    (
        "all together",
        MODIFIED_PY + PURE_RENAME + DELETED + BINARY_PNG + MODE_ONLY + ADDED_JS,
        [
            ("src/app/db.py", None, FileStatus.MODIFIED, 3, 2),
            ("docs/new-name.md", "docs/old-name.md", FileStatus.RENAMED, 0, 0),
            ("web/src/api.js", None, FileStatus.ADDED, 4, 0),
        ],
        [
            ("scripts/legacy_migrate.py", "deleted"),
            ("assets/logo.png", "binary"),
            ("scripts/deploy.sh", "mode change only"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("diff", "changed", "skipped"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_files_and_skips(
    diff: str | bytes,
    changed: list[tuple[str, str | None, FileStatus, int, int]],
    skipped: list[tuple[str, str]],
) -> None:
    files, skips = parse_diff(diff)
    assert [(f.path, f.old_path, f.status, f.added, f.removed) for f in files] == changed
    assert [(s.path, s.reason) for s in skips] == skipped


def _rows(file: ChangedFile) -> list[tuple[str, str, int | None, int | None]]:
    return [(ln.kind, ln.text, ln.old_line, ln.new_line) for h in file.hunks for ln in h.lines]


def test_line_numbers_follow_both_sides() -> None:
    (file,), _ = parse_diff(MODIFIED_PY)
    first, second = file.hunks
    assert (first.old_start, first.old_length, first.new_start, first.new_length) == (40, 6, 40, 8)
    assert first.section == "def get_user(conn, user_id):"
    assert (second.old_start, second.new_start, second.section) == (
        90,
        92,
        "def delete_user(conn, user_id):",
    )
    assert _rows(file)[:6] == [
        (" ", "    cursor = conn.cursor()", 40, 40),
        ("-", '    cursor.execute("SELECT * FROM users WHERE id = %s" % user_id)', 41, None),
        ("+", '    cursor.execute("SELECT * FROM users WHERE id = %s", (user_id,))', None, 41),
        (" ", "    row = cursor.fetchone()", 42, 42),
        ("+", "    if row is None:", None, 43),
        ("+", "        return None", None, 44),
    ]
    assert _rows(file)[9:] == [
        (" ", '    conn.execute("DELETE FROM users WHERE id = %s", (user_id,))', 90, 92),
        ("-", "    conn.commit()", 91, None),
        (" ", '    log.info("deleted %s", user_id)', 92, 93),
        (" ", "    return True", 93, 94),
    ]
    assert file.commentable_lines == frozenset({40, 41, 42, 43, 44, 45, 46, 47, 92, 93, 94})
    assert file.added_lines == frozenset({41, 43, 44})


def test_blank_context_line_is_kept_as_empty_text() -> None:
    (file,), _ = parse_diff(MODIFIED_PY)
    assert (" ", "", 44, 46) in _rows(file)


def test_crlf_content_loses_the_carriage_return_but_not_its_place() -> None:
    (file,), _ = parse_diff(CRLF_CONTENT)
    assert _rows(file) == [
        (" ", "[server]", 1, 1),
        ("-", "port=8080", 2, None),
        ("+", "port=9090", None, 2),
        (" ", "", 3, 3),
    ]


@pytest.mark.parametrize(
    "diff",
    [case[1] for case in CASES if isinstance(case[1], str)],
    ids=[case[0] for case in CASES if isinstance(case[1], str)],
)
def test_diff_saved_with_crlf_everywhere_parses_like_lf(diff: str) -> None:
    assert parse_diff(diff.replace("\n", "\r\n").encode()) == parse_diff(diff)


def test_non_utf8_bytes_are_replaced_not_fatal() -> None:
    (file,), _ = parse_diff(LATIN1)
    assert _rows(file) == [
        (" ", "Men\ufffd", 1, 1),
        ("-", "caf\ufffd 1,50", 2, None),
        ("+", "caf\ufffd 1,80", None, 2),
    ]


def test_utf16_with_bom_from_powershell_is_decoded() -> None:
    (file,), _ = parse_diff(ADDED_JS.encode("utf-16"))
    assert file.path == "web/src/api.js"
    assert file.added == 4


def test_no_newline_marker_is_not_a_line() -> None:
    (file,), _ = parse_diff(NO_NEWLINE)
    assert _rows(file) == [("-", "1.4.2", 1, None), ("+", "1.5.0", None, 1)]


def test_two_thousand_line_hunk_numbers_every_line() -> None:
    (file,), _ = parse_diff(_big_hunk(2000))
    assert file.added == 2000
    rows = _rows(file)
    assert rows[1] == ("+", "    value_0 = compute(0)", None, 11)
    assert rows[2000] == ("+", "    value_1999 = compute(1999)", None, 2010)
    assert rows[-1] == (" ", "    return table", 11, 2011)


@pytest.mark.parametrize("empty", ["", b"", "\n\n", "   \n"])
def test_empty_input_is_an_empty_diff(empty: str | bytes) -> None:
    assert parse_diff(empty) == ([], [])


@pytest.mark.parametrize(
    ("garbage", "problem"),
    [
        ("Hello,\nplease review my change.\n", "not a unified diff"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a unified diff"),
        ("@@ -1,2 +1,2 @@\n-a\n+b\n", "malformed diff at line 1"),
        (MODIFIED_PY[: MODIFIED_PY.index("     row =")], "at line 8: Hunk is shorter"),
        (ADDED_JS.replace("+  return res.json();\n", "*  return res.json();\n"), "at line 9"),
    ],
    ids=["prose", "png bytes", "hunk without file", "truncated hunk", "bad hunk line"],
)
def test_garbage_raises_diff_error_naming_the_problem(garbage: str | bytes, problem: str) -> None:
    with pytest.raises(DiffError, match=problem) as caught:
        parse_diff(garbage)
    assert caught.value.fix


def test_parse_error_does_not_echo_the_offending_line() -> None:
    secret_line = "*  api_key = 'Zq8vLm3Rt9xKp2Wd'\n"
    with pytest.raises(DiffError, match="at line 9: Hunk diff line expected") as caught:
        parse_diff(ADDED_JS.replace("+  return res.json();\n", secret_line))
    assert "Zq8vLm3Rt9xKp2Wd" not in str(caught.value)


def test_line_numbers_in_errors_count_the_junk_before_the_diff() -> None:
    truncated = MODIFIED_PY[: MODIFIED_PY.index("     row =")]
    with pytest.raises(DiffError, match="at line 10: Hunk is shorter"):
        parse_diff("@@ build log @@\n+++ noise\n" + truncated)


def test_junk_that_confuses_unidiff_before_the_first_file_is_skipped() -> None:
    junk = "@@ build log @@\n+++ noise\n"
    (file,), _ = parse_diff(junk + MODIFIED_PY)
    assert file.path == "src/app/db.py"
    assert file.added == 3


# Fragments that reach deep into the parser: headers, hunk headers, every line kind.
_FRAGMENTS = st.sampled_from(
    [
        "diff --git a/x.py b/x.py\n",
        "diff --git a/x b/y\n",
        "--- a/x.py\n",
        "+++ b/x.py\n",
        "--- /dev/null\n",
        "+++ /dev/null\n",
        "@@ -1,2 +1,2 @@\n",
        "@@ -0,0 +1 @@ def f():\n",
        "@@ -1 +0,0 @@\n",
        "+added\n",
        "-removed\n",
        " context\n",
        "\n",
        "\r\n",
        "\\ No newline at end of file\n",
        "new file mode 100644\n",
        "deleted file mode 100644\n",
        "old mode 100644\n",
        "new mode 100755\n",
        "index 1234567..89abcde 160000\n",
        "rename from a.py\n",
        "rename to b.py\n",
        "Binary files a/x.png and b/x.png differ\n",
        "GIT binary patch\n",
        "literal 0\n",
        "garbage\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_FRAGMENTS, st.text(max_size=20)), max_size=30))
def test_diff_like_input_gives_a_result_or_diff_error(parts: list[str]) -> None:
    _parse_or_diff_error("".join(parts))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=500))
def test_arbitrary_bytes_give_a_result_or_diff_error(raw: bytes) -> None:
    _parse_or_diff_error(raw)


def _parse_or_diff_error(raw: str | bytes) -> None:
    try:
        files, _ = parse_diff(raw)
    except DiffError:
        return
    for file in files:
        for hunk in file.hunks:
            for line in hunk.lines:
                assert (line.new_line is None) == (line.kind == "-")
                assert (line.old_line is None) == (line.kind == "+")


# --------------------------------------------------------------------------- diff_view


def test_render_file_shows_new_side_numbers_aligned_to_the_widest() -> None:
    (file,), _ = parse_diff(MODIFIED_PY)
    rendered = render_file(file)
    assert rendered.splitlines()[:6] == [
        "## File: src/app/db.py (modified)",
        "@@ -40,6 +40,8 @@ def get_user(conn, user_id):",
        "40       cursor = conn.cursor()",
        '   -     cursor.execute("SELECT * FROM users WHERE id = %s" % user_id)',
        '41 +     cursor.execute("SELECT * FROM users WHERE id = %s", (user_id,))',
        "42       row = cursor.fetchone()",
    ]
    assert "46" in rendered.splitlines()  # an empty context line carries no trailing padding


def test_render_file_pads_numbers_to_the_widest_in_the_file() -> None:
    (file,), _ = parse_diff(_big_hunk(100))
    lines = render_file(file).splitlines()
    assert lines[2] == " 10       table = {}"
    assert lines[-1] == "111       return table"


@pytest.mark.parametrize(
    ("diff", "header"),
    [
        (RENAME_WITH_CHANGES, "## File: src/text/normalize.py (renamed from src/utils/strings.py)"),
        (ADDED_JS, "## File: web/src/api.js (new file)"),
    ],
)
def test_render_file_header_names_the_status(diff: str, header: str) -> None:
    (file,), _ = parse_diff(diff)
    assert render_file(file).splitlines()[0] == header


def test_render_file_chooses_hunks() -> None:
    (file,), _ = parse_diff(MODIFIED_PY)
    rendered = render_file(file, [1])
    assert "@@ -90,4 +92,3 @@" in rendered
    assert "@@ -40,6" not in rendered
    assert (
        rendered.splitlines()[2]
        == '92       conn.execute("DELETE FROM users WHERE id = %s", (user_id,))'
    )


def test_render_pure_rename_says_there_is_no_content() -> None:
    (file,), _ = parse_diff(PURE_RENAME)
    assert render_file(file) == (
        "## File: docs/new-name.md (renamed from docs/old-name.md)\n(no content changes)\n"
    )


# --------------------------------------------------------------------------- hostile repositories


def _modified(a: str, b: str, *, extra: str = "") -> str:
    return f"diff --git {a} {b}\n{extra}index 1..2 100644\n--- {a}\n+++ {b}\n@@ -1 +1 @@\n-x\n+y\n"


@pytest.mark.parametrize(
    ("diff", "path", "old_path"),
    [
        (_modified("a/plan b/notes.py", "b/plan b/notes.py"), "plan b/notes.py", None),
        (_modified("a/x b/y b/z.py", "b/x b/y b/z.py"), "x b/y b/z.py", None),
        (_modified('"a/say \\"hi\\".py"', '"b/say \\"hi\\".py"'), 'say "hi".py', None),
        (_modified('"a/back\\\\slash.py"', '"b/back\\\\slash.py"'), "back\\slash.py", None),
        (_modified("a/sp ace.py", '"b/sp ace.py"'), "sp ace.py", None),
        # a latin-1 name keeps git's quoted form: no U+FFFD, and it round-trips
        (_modified('"a/caf\\351.txt"', '"b/caf\\351.txt"'), '"caf\\351.txt"', None),
        (
            "diff --git a/old b/x.py b/new b/x.py\nsimilarity index 90%\n"
            "rename from old b/x.py\nrename to new b/x.py\n"
            "--- a/old b/x.py\n+++ b/new b/x.py\n@@ -1 +1 @@\n-x\n+y\n",
            "new b/x.py",
            "old b/x.py",
        ),
    ],
    ids=["dir ending in b", "two b dirs", "quotes", "backslash", "one side quoted", "latin-1",
         "rename with b dirs"],
)  # fmt: skip
def test_git_headers_are_read_by_gits_rules(diff: str, path: str, old_path: str | None) -> None:
    (file,), skipped = parse_diff(diff)
    assert (file.path, file.old_path, skipped) == (path, old_path, [])


def test_a_mode_change_of_a_b_dir_file_names_it_from_the_header_alone() -> None:
    diff = "diff --git a/plan b/run.sh b/plan b/run.sh\nold mode 100644\nnew mode 100755\n"
    assert parse_diff(diff) == ([], [SkippedFile(path="plan b/run.sh", reason="mode change only")])


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("--- a/src/x.py\t2024-01-01 10:00:00\n+++ b/src/x.py\t2024-01-02 10:00:00\n", "src/x.py"),
        ("--- old/src/x.py\t2024-01-01\n+++ new/src/x.py\t2024-01-02\n", "src/x.py"),
        ("--- src/x.py\t(revision 12)\n+++ src/x.py\t(working copy)\n", "src/x.py"),  # svn
        ("--- x.py.orig\n+++ x.py\n", "x.py"),
        ("--- /dev/null\n+++ b/src/x.py\n", "src/x.py"),  # hg, an added file
    ],
    ids=["diff -u a/ b/", "diff -ru old/ new/", "svn", "orig", "hg added"],
)
def test_non_git_diffs_strip_a_prefix_only_where_both_sides_have_one(
    header: str, path: str
) -> None:
    hunk = "@@ -0,0 +1 @@\n+y\n" if "/dev/null" in header else "@@ -1 +1 @@\n-x\n+y\n"
    junk = "Index: src/x.py\n===================================================================\n"
    (file,), _ = parse_diff(junk + header + hunk)
    assert file.path == path and file.old_path is None
    assert file.status is (FileStatus.ADDED if "/dev/null" in header else FileStatus.MODIFIED)


def test_no_newline_marker_is_kept_on_its_line_and_shown_to_models() -> None:
    diff = (
        "diff --git a/VERSION b/VERSION\nindex 1..2 100644\n--- a/VERSION\n+++ b/VERSION\n"
        "@@ -1 +1 @@\n-1.0\n\\ No newline at end of file\n+1.0\n"
    )
    (file,), _ = parse_diff(diff)
    removed, added = file.hunks[0].lines
    assert (removed.no_newline, added.no_newline) == (True, False)
    shown = render_file(file)
    assert shown.splitlines()[2:] == ["  - 1.0", "  \\ No newline at end of file", "1 + 1.0"]


def test_lines_are_split_at_newline_only() -> None:
    diff = (
        "diff --git a/f.py b/f.py\nindex 1..2 100644\n--- a/f.py\n+++ b/f.py\n"
        "@@ -1,3 +1,3 @@\n a = 1\n \x0cb = 2\u2028c\n-d = 3\n+d = 4\n"
    )
    (file,), _ = parse_diff(diff)
    assert [(line.text, line.new_line) for line in file.hunks[0].lines if line.kind != "-"] == [
        ("a = 1", 1),
        ("\x0cb = 2\u2028c", 2),
        ("d = 4", 3),
    ]


LINKS = (
    "diff --git a/up b/up\nnew file mode 120000\nindex 0..1\n--- /dev/null\n+++ b/up\n"
    "@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n"
    "diff --git a/d/in b/d/in\nindex 1..2 120000\n--- a/d/in\n+++ b/d/in\n"
    "@@ -1 +1 @@\n-../a.py\n\\ No newline at end of file\n+../b.py\n\\ No newline at end of file\n"
)


def test_symlinks_are_skipped_with_their_targets_recorded() -> None:
    parsed = parse_diff_full(LINKS)
    assert parsed.files == []
    assert [(s.path, s.reason) for s in parsed.skipped] == [("up", "symlink"), ("d/in", "symlink")]
    assert parsed.links == [
        LinkChange(path="up", target="../../etc"),
        LinkChange(path="d/in", target="../b.py", old_target="../a.py"),
    ]


def test_quote_path_round_trips_through_the_parser() -> None:
    for name in ['say "hi".py', "back\\slash.py", "tab\there.py", "café.py", " lead.py"]:
        a, b = quote_path(f"a/{name}"), quote_path(f"b/{name}")
        (file,), _ = parse_diff(_modified(a, b))
        assert file.path == name
