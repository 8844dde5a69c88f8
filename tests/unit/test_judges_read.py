"""A posted finding a judge verified by reading the code shows, collapsed, what it read and
the lines it cited (as consensus checked them); model text there stays inert."""

from __future__ import annotations

from consensus.model.base import Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.reply import Citation
from consensus.publish.inline import inline_body
from tests.unit.test_render import finding

GUARD = Citation(path="src/shop/cart.py", start_line=40, end_line=41, quote="total = item.price")


def vote(*, grounded: bool, quote: str = GUARD.quote) -> Vote:
    cited = (GUARD.model_copy(update={"quote": quote}),) if grounded else ()
    return Vote(
        model="anthropic/claude-sonnet-4-5",
        family="anthropic",
        role="inspector",
        verdict=VerdictKind.CONFIRMED,
        reason="line 41 uses it before it is set",
        grounded=grounded,
        evidence=cited,
        looked=("read_file src/shop/cart.py:11-71",),
    )


def body(*votes: Vote) -> str:
    record = Verification(confirmed=len(votes), votes=votes)
    return inline_body(finding(1, Status.VERIFIED, verification=record))


def test_a_grounded_confirmation_shows_what_was_read_and_cited_collapsed() -> None:
    text = body(vote(grounded=True))

    assert "<details><summary>What the judges read</summary>" in text
    assert (
        "- anthropic (confirmed): looked at `read_file src/shop/cart.py:11-71`; "
        "cited `src/shop/cart.py:40-41` `total = item.price`"
    ) in text


def test_blind_votes_show_no_block() -> None:
    assert "What the judges read" not in body(vote(grounded=False))


def test_a_hostile_quote_stays_one_inert_code_span() -> None:
    text = body(vote(grounded=True, quote="</details> @maria ![x](http://evil.example/p.png)"))

    assert "`</details> @maria ![x](http://evil.example/p.png)`" in text
    assert text.count("</details>") == 2  # ours, and the quote's inside its code span
