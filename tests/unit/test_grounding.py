"""Grounding: a finding holds at its place when the line its model named is on the change
and the code it quotes is in the head file within three lines of it (review/grounding.py)."""

from __future__ import annotations

from consensus.ingest.parse import parse_diff
from consensus.inspect.snapshot import split_lines
from consensus.model.base import Category, FindingSource, Severity
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Cluster, Finding
from consensus.model.reply import ReplyFinding, ReviewReply
from consensus.review.audit import audit
from consensus.review.grounding import ground

PATH = "src/shop/checkout.py"
HEAD = '''\
"""Checkout: the cart's total, its discount and the payment call."""

from decimal import Decimal

from shop.payments import charge
from shop.pricing import discount_for


def subtotal(items):
    total = Decimal(0)
    for item in items:
        total += item.price * item.quantity
    return total


def checkout(cart, customer):
    amount = subtotal(cart.items)
    rate = discount_for(customer)
    if rate:
        amount = amount * (1 - rate)
    receipt = charge(customer.card, amount)
    cart.clear()
    return receipt
'''
# The change: a flat discount became a rate (new-side lines 17-23; 19 and 20 added).
PATCH = f"""\
diff --git a/{PATH} b/{PATH}
--- a/{PATH}
+++ b/{PATH}
@@ -17,6 +17,7 @@ def checkout(cart, customer):
     amount = subtotal(cart.items)
     rate = discount_for(customer)
-    amount = amount - rate
+    if rate:
+        amount = amount * (1 - rate)
     receipt = charge(customer.card, amount)
     cart.clear()
     return receipt
"""
[CHANGED], _ = parse_diff(PATCH)
DIFF = ReviewDiff(files=(CHANGED,))
HEADS = {PATH: split_lines(HEAD)}


def reported(
    line: int, evidence: str | None, *, family: str = "openai", title: str = "Discount rate"
) -> Finding:
    """One model's finding as the audit keeps it from its reply."""
    reply = ReviewReply(
        findings=[
            ReplyFinding(
                path=PATH,
                line=line,
                severity=Severity.HIGH,
                category=Category.BUG,
                title=title,
                body="A rate of 1 or more makes the amount zero or negative before `charge`.",
                evidence=evidence,
            )
        ]
    )
    [kept], dropped = audit(
        reply,
        diff=DIFF,
        chunk_paths=[PATH],
        provider=f"{family}/model",
        family=family,
        persona="correctness",
        chunk=0,
    )
    assert dropped == []
    return kept


def cluster_of(*members: Finding) -> Cluster:
    first = members[0]
    return Cluster(
        path=PATH,
        line=first.line,
        end_line=first.end_line,
        severity=first.severity,
        category=first.category,
        title=first.title,
        body=first.body,
        members=members,
        fingerprint="0123456789abcdef",
    )


def why(*members: Finding, heads: dict[str, list[str]] | None = None) -> str | None:
    [cluster] = ground([cluster_of(*members)], DIFF, HEADS if heads is None else heads)
    return cluster.ungrounded


def test_a_finding_quoting_its_own_line_is_grounded() -> None:
    assert why(reported(20, "amount = amount * (1 - rate)")) is None


def test_a_line_off_the_change_is_ungrounded_though_the_audit_moved_it_onto_the_diff() -> None:
    # The model named line 9 (`subtotal`) and quoted a line of the change: the audit moved
    # the finding to line 17, where its quote is; the claim was about line 9.
    finding = reported(9, "amount = subtotal(cart.items)")
    assert finding.line == 17

    assert why(finding) == "line 9 is not on the change"


def test_evidence_two_lines_away_is_still_grounded() -> None:
    # Off by two: the model named line 19, the call it quotes is on line 21.
    finding = reported(19, "receipt = charge(customer.card, amount)")

    assert finding.line == 21 and why(finding) is None


def test_evidence_from_the_removed_lines_is_not_in_the_head_file() -> None:
    # In the diff (so the audit keeps it), but the code it quotes is gone from the head.
    assert why(reported(19, "amount = amount - rate")) == "evidence not found near line 19"


def test_evidence_far_from_the_line_in_the_head_file_is_ungrounded() -> None:
    finding = reported(20, None).model_copy(update={"evidence": "total = Decimal(0)"})

    assert why(finding) == "evidence not found near line 20"


def test_whitespace_only_differences_still_ground_the_evidence() -> None:
    quoted = "if rate:\n\tamount  =  amount * (1 - rate)\n"

    assert why(reported(19, quoted)) is None


def test_the_head_file_grounds_a_quote_the_diff_does_not_show() -> None:
    # Line 16 (`def checkout`) is outside the hunk: only the head file holds it.
    finding = reported(17, None).model_copy(update={"evidence": "def checkout(cart, customer):"})

    assert why(finding) is None
    assert why(finding, heads={}) == "evidence not found near line 17"


def test_a_finding_without_evidence_on_the_change_is_not_ungrounded() -> None:
    assert why(reported(20, None)) is None


def test_one_paraphrase_at_its_place_grounds_the_cluster() -> None:
    wrong = reported(9, "amount = subtotal(cart.items)", family="openai")
    right = reported(
        18, "if rate:", family="anthropic", title="Discount of 100% or more not rejected"
    )

    assert why(wrong, right) is None
    assert why(wrong, reported(19, "amount = amount - rate", family="google")) == (
        "line 9 is not on the change"
    )


def test_the_scans_findings_are_never_ungrounded() -> None:
    scan = reported(9, "amount = subtotal(cart.items)").model_copy(
        update={"source": FindingSource.SCAN, "family": "consensus"}
    )

    assert why(scan) is None
