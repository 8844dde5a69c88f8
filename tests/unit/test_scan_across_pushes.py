"""The secret scan across pushes: a committed key on a line no push touches keeps the one
finding, under the fingerprint it was posted with, whatever another file of the change
does (changed, added, removed, listed before it).

Each run is what a push's review does without the models: the diff ingested, the earlier
decisions of unchanged files carried (publish/carry.py), and consensus's own scan of what
is left to review (review/pipeline.py), its findings merged with the carried ones.
"""

from __future__ import annotations

import pytest

from consensus.ingest.review_diff import ingest
from consensus.model.report import ProviderReport, Quorum, Report
from consensus.publish.carry import carry_forward
from consensus.publish.records import finding_records
from consensus.publish.state import PublishState
from consensus.review.pipeline import nothing_to_review
from consensus.settings.config import Settings

FIRST, SECOND = "a1b2c3d" + "0" * 33, "e4f5a6b" + "0" * 33
BASIS = "b" * 32
KEY_FILE = "src/shop/settings.py"
SETTINGS = """\
diff --git a/src/shop/settings.py b/src/shop/settings.py
new file mode 100644
index 0000000..3f1c2aa
--- /dev/null
+++ b/src/shop/settings.py
@@ -0,0 +1,3 @@
+\"\"\"Shop settings.\"\"\"
+STRIPE_SECRET = "sk_live_51Hq8ZxK2mP9vR4tW7yB3nD6fJ0cL"
+CURRENCY = "EUR"
"""


def cart(total: str) -> str:
    return f"""\
diff --git a/src/shop/cart.py b/src/shop/cart.py
index 5d0e1b2..8c9f3a4 100644
--- a/src/shop/cart.py
+++ b/src/shop/cart.py
@@ -4,2 +4,3 @@ def total(items):
     amount = sum(item.price for item in items)
+    amount = {total}
     return amount
"""


def run(patch: str, state: PublishState) -> tuple[Report, PublishState]:
    """One push's review of `patch` after the run that left `state`; the state it leaves."""
    diff = ingest(patch)
    carried = carry_forward(state, diff, basis=BASIS, fresh=False)
    fresh = None
    if carried.asks:
        fresh = nothing_to_review(carried.rest, settings=Settings(), run_id="r")
        paths = sorted({f.path for f in carried.rest.files})
        seen = [  # a panel that reviewed every file it was sent
            ProviderReport(model="openai/gpt-5.1", family="openai", status="ok", files_seen=paths),
            ProviderReport(
                model="anthropic/claude-sonnet-4-5",
                family="anthropic",
                status="ok",
                files_seen=paths,
            ),
        ]
        met = Quorum(families_answered=2, min_providers=2, met=True)
        fresh = fresh.model_copy(update={"providers": seen, "quorum": met})
    report = carried.report(fresh, diff, run_id="r", threshold=0.75, workflow=None)
    head = SECOND if state.decisions else FIRST
    decisions = carried.decisions(report, head_sha=head)
    return report, PublishState(
        head_sha=head, records=finding_records(report.findings), decisions=decisions
    )


def key_prints(report: Report) -> list[str]:
    return [f.fingerprint for f in report.findings if f.path == KEY_FILE]


PUSHES = [  # what the change held before the push, after it
    pytest.param(SETTINGS + cart("0.0"), SETTINGS + cart("1.0"), id="cart.py changed"),
    pytest.param(SETTINGS, SETTINGS + cart("1.0"), id="cart.py added"),
    pytest.param(SETTINGS + cart("0.0"), SETTINGS, id="cart.py removed"),
    pytest.param(SETTINGS + cart("0.0"), cart("1.0") + SETTINGS, id="cart.py changed, first"),
]


@pytest.mark.parametrize(("before", "after"), PUSHES)
def test_a_key_on_an_untouched_line_keeps_its_one_finding_and_fingerprint(
    before: str, after: str
) -> None:
    first, state = run(before, PublishState())
    [posted] = key_prints(first)
    second, _ = run(after, state)
    assert key_prints(second) == [posted]  # not a second one, under the title's
    [kept] = [f for f in second.findings if f.path == KEY_FILE]
    assert kept.carried_from == FIRST and kept.line == 2


def test_a_run_that_carries_the_key_s_file_still_lists_its_redaction() -> None:
    _, state = run(SETTINGS + cart("0.0"), PublishState())
    second, _ = run(SETTINGS + cart("1.0"), state)
    assert [(r.path, r.line, r.kind) for r in second.redactions] == [(KEY_FILE, 2, "stripe-key")]


def test_the_state_a_first_run_leaves_decides_the_key_s_file() -> None:
    """The premise of the tests above: the key's file is carried, not decided again."""
    _, state = run(SETTINGS + cart("0.0"), PublishState())
    assert state.decisions is not None
    assert {f.path for f in state.decisions.files} == {KEY_FILE, "src/shop/cart.py"}


def test_a_key_an_earlier_version_posted_twice_is_decided_again_and_posted_once() -> None:
    """Such a version left two records of the key on its unchanged file: the second under
    the fingerprint of its title, made when the scan had no code of it."""
    _, state = run(SETTINGS + cart("0.0"), PublishState())
    assert state.decisions is not None
    [record] = [r for r in state.records if r.path == KEY_FILE]
    again = record.model_copy(update={"id": "F9", "fingerprint": "20c35d435fccd9cd"})
    files = [
        f.model_copy(update={"findings": 2}) if f.path == KEY_FILE else f
        for f in state.decisions.files
    ]
    left = state.model_copy(
        update={
            "records": (*state.records, again),
            "decisions": state.decisions.model_copy(update={"files": tuple(files)}),
        }
    )
    third, _ = run(SETTINGS + cart("1.0"), left)
    assert key_prints(third) == [record.fingerprint]
    [kept] = [f for f in third.findings if f.path == KEY_FILE]
    assert kept.carried_from is None  # decided again, by this run
