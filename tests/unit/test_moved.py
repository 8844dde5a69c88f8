"""Moved code (ingest/moved.py): blocks the change removed in one place and added, unchanged
but for whitespace, in another, as git's --color-moved finds them; and what a finding on
them becomes (the summary, "in moved code", unless it is critical)."""

from __future__ import annotations

import pytest

from consensus.ingest.review_diff import ingest
from consensus.model.base import Severity
from consensus.model.diff import MovedLines
from consensus.publish.plan import Placement
from tests.unit.test_publish import make, plan

MOVE_TO_NEW_MODULE = """\
diff --git a/src/shop/headers.py b/src/shop/headers.py
new file mode 100644
index 0000000..a5fb7c8
--- /dev/null
+++ b/src/shop/headers.py
@@ -0,0 +1,7 @@
+\"\"\"Helpers for HTTP responses.\"\"\"
+
+
+def content_disposition(filename):
+    value = f'attachment; filename="{filename}"'
+    return {"Content-Disposition": value}
+
diff --git a/src/shop/util.py b/src/shop/util.py
index f7f9e07..935bded 100644
--- a/src/shop/util.py
+++ b/src/shop/util.py
@@ -1,9 +1,4 @@
-\"\"\"Helpers for HTTP responses and for money.\"\"\"
-
-
-def content_disposition(filename):
-    value = f'attachment; filename="{filename}"'
-    return {"Content-Disposition": value}
+\"\"\"Helpers for money.\"\"\"
CONTEXT
CONTEXT
 def cents(amount):
""".replace("CONTEXT", " ")  # two blank context lines: a space each


def test_a_block_moved_to_another_file_is_found_with_where_it_came_from() -> None:
    diff = ingest(MOVE_TO_NEW_MODULE)
    assert diff.moved == (
        MovedLines(path="src/shop/headers.py", line=4, end_line=6, from_path="src/shop/util.py",
                   from_line=4),
    )  # fmt: skip


def test_whitespace_does_not_hide_a_move() -> None:
    # The helper became a method: four more spaces on every line, nothing else.
    indented = MOVE_TO_NEW_MODULE.replace(
        "+def content_disposition(filename):\n"
        "+    value = f'attachment; filename=\"{filename}\"'\n"
        '+    return {"Content-Disposition": value}\n',
        "+    def content_disposition(filename):\n"
        "+        value = f'attachment; filename=\"{filename}\"'\n"
        '+        return {"Content-Disposition": value}\n',
    )
    assert indented != MOVE_TO_NEW_MODULE
    [block] = ingest(indented).moved
    assert (block.line, block.end_line) == (4, 6)


def test_a_changed_line_breaks_the_block() -> None:
    # A new parameter on the first line: two lines left alike, fewer than three.
    changed = MOVE_TO_NEW_MODULE.replace(
        "+def content_disposition(filename):", "+def content_disposition(self, filename):"
    )
    assert ingest(changed).moved == ()


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(("    pass", "    pass", "    pass"), id="fewer than 20 alphanumerics"),
        pytest.param(("x = 1", "y = 2"), id="fewer than 3 lines"),
    ],
)
def test_a_block_too_small_to_tell_is_not_a_move(lines: tuple[str, ...]) -> None:
    removed = "".join(f"-{line}\n" for line in lines)
    added = "".join(f"+{line}\n" for line in lines)
    n = len(lines)
    raw = (
        f"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,{n} +0,0 @@\n{removed}"
        f"diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -0,0 +1,{n} @@\n{added}"
    )
    assert ingest(raw).moved == ()


def test_code_moved_out_of_a_deleted_file_is_moved_code() -> None:
    raw = MOVE_TO_NEW_MODULE.replace(
        "diff --git a/src/shop/util.py b/src/shop/util.py\nindex f7f9e07..935bded 100644\n"
        "--- a/src/shop/util.py\n+++ b/src/shop/util.py\n@@ -1,9 +1,4 @@",
        "diff --git a/src/shop/util.py b/src/shop/util.py\ndeleted file mode 100644\n"
        "index f7f9e07..0000000\n--- a/src/shop/util.py\n+++ /dev/null\n@@ -1,6 +0,0 @@",
    ).split('+"""Helpers for money."""')[0]
    diff = ingest(raw)
    assert [s.reason for s in diff.skipped] == ["deleted"]
    [block] = diff.moved
    assert (block.path, block.from_path, block.from_line) == (
        "src/shop/headers.py",
        "src/shop/util.py",
        4,
    )


@pytest.mark.parametrize(
    ("severity", "placement"),
    [(Severity.HIGH, Placement.MOVED), (Severity.CRITICAL, Placement.INLINE)],
)
def test_a_finding_on_moved_lines_goes_to_the_summary_unless_critical(
    severity: Severity, placement: Placement
) -> None:
    finding = make(severity=severity).model_copy(update={"moved_from": "src/shop/util.py:5"})
    [placed] = plan(finding).placed
    assert placed.placement is placement
    if placement is Placement.MOVED:
        assert placed.note == "in moved code (from src/shop/util.py:5)"
