"""Where an inline comment lands on a GitLab merge request: the `position` of a diff note."""

from __future__ import annotations

import hashlib

import pytest

from consensus.adapters.gitlab_position import (
    DiffRefs,
    PositionError,
    diff_lines,
    line_code,
    text_position,
)

REFS = DiffRefs(base_sha="b" * 40, start_sha="s" * 40, head_sha="h" * 40)
PATH = "billing/invoice.py"
# Lines 10-16 of the old file, 10-17 of the new: `rate` renamed, a check added, a blank
# line dropped; then a second hunk further down.
DIFF = (
    "@@ -10,7 +10,8 @@ def total(items):\n"
    "     subtotal = sum(i.price for i in items)\n"
    "-    tax = subtotal * rate\n"
    "+    tax = subtotal * tax_rate\n"
    "+    if tax < 0:\n"
    "+        raise ValueError(tax)\n"
    " \n"
    "-\n"
    "     return subtotal + tax\n"
    "@@ -40,3 +41,3 @@ def refund(invoice):\n"
    "     amount = invoice.total\n"
    "-    log(amount)\n"
    "+    audit.log(amount)\n"
    "     return amount\n"
)
SHA = hashlib.sha1(PATH.encode()).hexdigest()


def place(line: int, start: int | None = None, side: str = "RIGHT") -> dict[str, object]:
    return text_position(REFS, PATH, PATH, DIFF, line=line, start_line=start, side=side)  # type: ignore[arg-type]


def test_an_added_line_is_named_by_new_line_alone() -> None:
    position = place(11)
    assert position == {
        "position_type": "text",
        "base_sha": "b" * 40,
        "start_sha": "s" * 40,
        "head_sha": "h" * 40,
        "old_path": PATH,
        "new_path": PATH,
        "new_line": 11,
    }


def test_a_deleted_line_is_named_by_old_line_alone() -> None:
    position = place(11, side="LEFT")
    assert position["old_line"] == 11 and "new_line" not in position


def numbers(position: dict[str, object]) -> tuple[object, object]:
    return position.get("old_line"), position.get("new_line")


def test_an_unchanged_context_line_is_named_by_both_lines() -> None:
    assert numbers(place(10)) == (10, 10)


def test_context_lines_after_changes_carry_both_shifted_numbers() -> None:
    assert numbers(place(14)) == (12, 14)  # the blank line, after one removed and three added
    assert numbers(place(15)) == (14, 15)
    assert numbers(place(43)) == (42, 43)  # second hunk
    assert numbers(place(14, side="LEFT")) == (14, 15)  # the same line, asked by its old number


def test_a_multi_line_comment_names_its_range_by_line_codes_and_sits_on_its_last_line() -> None:
    position = place(13, start=11)
    assert position["new_line"] == 13 and "old_line" not in position
    assert position["line_range"] == {
        "start": {"line_code": f"{SHA}_12_11", "type": "new", "new_line": 11},
        "end": {"line_code": f"{SHA}_12_13", "type": "new", "new_line": 13},
    }


def test_a_range_starting_on_a_context_line_types_it_old_and_gives_both_numbers() -> None:
    start = place(13, start=10)["line_range"]["start"]  # type: ignore[index]
    assert start == {"line_code": f"{SHA}_10_10", "type": "old", "old_line": 10, "new_line": 10}


def test_line_codes_count_as_gitlab_does_for_deleted_lines_too() -> None:
    lines = diff_lines(DIFF)
    deleted = [line for line in lines if line.kind == "deleted"]
    assert [line_code(PATH, line) for line in deleted] == [
        f"{SHA}_11_11",
        f"{SHA}_13_15",
        f"{SHA}_41_42",
    ]


def test_a_line_outside_the_diff_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(PositionError, match=r"billing/invoice.py: line 30 \(RIGHT\) is not in"):
        place(30)
    with pytest.raises(PositionError, match=r"line 20 \(LEFT\)"):
        place(20, side="LEFT")


def test_a_range_across_two_hunks_is_refused() -> None:
    with pytest.raises(PositionError, match="not in one hunk"):
        place(42, start=13)


def test_a_new_file_counts_from_line_one_and_its_old_counter_stays_zero() -> None:
    diff = "@@ -0,0 +1,3 @@\n+import os\n+\n+print(os.sep)\n"
    lines = diff_lines(diff)
    assert [(line.kind, line.old_pos, line.new_pos) for line in lines] == [
        ("added", 0, 1),
        ("added", 0, 2),
        ("added", 0, 3),
    ]
    position = text_position(REFS, "tool.py", "tool.py", diff, line=3, start_line=1)
    assert position["line_range"]["start"]["line_code"].endswith("_0_1")  # type: ignore[index]


def test_no_newline_markers_are_not_lines() -> None:
    diff = "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
    assert [(line.kind, line.old_line, line.new_line) for line in diff_lines(diff)] == [
        ("deleted", 1, None),
        ("added", None, 1),
    ]
