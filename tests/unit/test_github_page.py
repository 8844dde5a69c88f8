"""The simulated pull-request page of `consensus demo --github` looks as GitHub shows a PR:
coloured diff lines, a line comment under the last lines of its hunk, comment line breaks."""

from __future__ import annotations

from consensus.render.github_page import InlineNote, PullPage, hunk_shown, render_pull_page

HUNK = "\n".join(
    [
        "@@ -14,3 +15,17 @@ def order_total(conn, order_id):",
        '         "SELECT SUM(price * quantity) FROM items WHERE order_id = ?", (order_id,)',
        "     ).fetchone()",
        "     return row[0] or 0",
        "+",
        "+",
        "+def find_orders(conn, customer):",
        "+    query = f\"SELECT id FROM orders WHERE customer = '{customer}'\"",
        "+    return conn.execute(query).fetchall()",
        "+",
        "+",
        "+def page_count(orders):",
        "+    return len(orders) // PAGE_SIZE + 1",
    ]
)


def page(note: InlineNote, review_body: str = "") -> str:
    return render_pull_page(
        PullPage(
            repository="acme/shop",
            number=1,
            title="Search orders",
            author="github-actions[bot]",
            review_state="COMMENTED",
            review_body=review_body,
            inline=(note,),
            summary="summary",
            notice="simulated",
        )
    )


def test_a_line_comment_shows_the_last_four_lines_of_its_hunk() -> None:
    note = InlineNote("shop/orders.py", 26, HUNK, "Off-by-one")
    shown = hunk_shown(note)
    assert shown == HUNK.split("\n")[-4:]
    html = page(note)
    assert "order_total" not in html and "find_orders" not in html


def test_a_range_comment_shows_its_whole_range() -> None:
    note = InlineNote("shop/orders.py", 26, HUNK, "x", start_line=20)
    assert len(hunk_shown(note)) == 7


def test_diff_lines_are_coloured_as_added_removed_or_context() -> None:
    html = page(InlineNote("a.py", 3, "@@ -1,2 +1,2 @@\n-old\n+new\n same", "x"))
    assert "<span class='del'>-old</span>" in html
    assert "<span class='add'>+new</span>" in html
    assert "<span class='ctx'> same</span>" in html


def test_a_comment_keeps_its_line_breaks_as_github_shows_them() -> None:
    html = page(InlineNote("a.py", 1, "+x", "x"), "**consensus** · 2 new\nThe summary has it.")
    assert "2 new<br />\nThe summary has it." in html
