"""ingest/analyzer_filter.py: an analyzer's results kept by filter_mode, as reviewdog keeps
them, and only the new ones (the base's own, by SARIF's baselineState or by the same rule on
the same code)."""

from __future__ import annotations

import pytest

from consensus.ingest.analyzer_filter import (
    BASELINE,
    NOT_ADDED,
    NOT_IN_HUNKS,
    ON_BASE,
    OUTSIDE,
    BaseResults,
    filter_to_change,
)
from consensus.ingest.review_diff import ingest
from consensus.ingest.sarif_results import Baseline, Observed
from consensus.model.analysis import AnalyzerResult, FilterMode
from consensus.model.base import Severity

# src/cart.py: line 3 added, lines 2 and 4 context in the hunk, line 30 outside any hunk.
DIFF = """\
diff --git a/src/cart.py b/src/cart.py
--- a/src/cart.py
+++ b/src/cart.py
@@ -1,3 +1,4 @@
 import os
 def total(items):
+    return amont
     pass
diff --git a/src/old.py b/src/new.py
similarity index 90%
rename from src/old.py
rename to src/new.py
--- a/src/old.py
+++ b/src/new.py
@@ -1,2 +1,2 @@
-x = 1
+x = undefined_thing
 import sys
"""
HEAD = {
    "src/cart.py": ["import os", "def total(items):", "    return amont", "    pass"],
    "src/new.py": ["x = undefined_thing", "import sys"],
}
BASE_LINES = {
    "src/cart.py": ["import os", "def total(items):", "    pass"],
    "src/old.py": ["x = 1", "import sys"],
}


def found(path: str, line: int, rule: str = "F821", baseline: Baseline | None = None) -> Observed:
    return Observed(
        result=AnalyzerResult(
            rule=rule,
            path=path,
            line=line,
            end_line=line,
            message="…",
            severity=Severity.HIGH,
        ),
        baseline=baseline,
    )


ADDED = found("src/cart.py", 3)
CONTEXT = found("src/cart.py", 2, rule="ARG001")
FAR = found("src/cart.py", 30, rule="E501")
ELSEWHERE = found("src/models.py", 1)


@pytest.mark.parametrize(
    ("mode", "kept", "dropped"),
    [
        (FilterMode.ADDED, [ADDED], {NOT_ADDED: 2, OUTSIDE: 1}),
        (FilterMode.DIFF_CONTEXT, [CONTEXT, ADDED], {NOT_IN_HUNKS: 1, OUTSIDE: 1}),
        (FilterMode.FILE, [CONTEXT, ADDED, FAR], {OUTSIDE: 1}),
        (FilterMode.NOFILTER, [CONTEXT, ADDED, FAR], {OUTSIDE: 1}),
    ],
)
def test_each_mode_keeps_its_lines(
    mode: FilterMode, kept: list[Observed], dropped: dict[str, int]
) -> None:
    filtered = filter_to_change([FAR, ELSEWHERE, ADDED, CONTEXT], ingest(DIFF), mode)
    assert list(filtered.results) == [o.result for o in kept]
    assert dict(filtered.dropped) == dropped


@pytest.mark.parametrize(
    ("baseline", "new"),
    [("new", True), ("updated", True), (None, True), ("unchanged", False), ("absent", False)],
)
def test_sarif_baseline_state_says_what_is_not_new(baseline: Baseline | None, new: bool) -> None:
    observed = found("src/cart.py", 3, baseline=baseline)
    filtered = filter_to_change([observed], ingest(DIFF), FilterMode.ADDED)
    assert (len(filtered.results) == 1) is new
    assert filtered.dropped == (() if new else ((BASELINE, 1),))


def test_nofilter_keeps_what_the_baseline_had() -> None:
    observed = found("src/cart.py", 2, baseline="unchanged")
    filtered = filter_to_change([observed], ingest(DIFF), FilterMode.NOFILTER)
    assert filtered.results == (observed.result,)


def base(*results: Observed) -> BaseResults:
    return BaseResults(
        results=tuple(o.result for o in results),
        lines={path: tuple(lines) for path, lines in BASE_LINES.items()},
    )


def test_a_result_the_base_had_on_the_same_code_is_not_new() -> None:
    # F401 on `import os`: line 1 on both sides, but the mode that keeps context lines
    # must still not report it as the change's
    old = found("src/cart.py", 1, rule="F401")
    diff = ingest(DIFF)
    filtered = filter_to_change(
        [old, ADDED], diff, FilterMode.FILE, head_lines=HEAD, base=base(old)
    )
    assert filtered.results == (ADDED.result,)
    assert filtered.dropped == ((ON_BASE, 1),)


def test_the_same_code_under_another_rule_or_other_code_is_new() -> None:
    base_result = found("src/cart.py", 3, rule="E999")  # base line 3 is "    pass"
    head = [found("src/cart.py", 4, rule="F821"), found("src/cart.py", 3, rule="E999")]
    filtered = filter_to_change(
        head, ingest(DIFF), FilterMode.FILE, head_lines=HEAD, base=base(base_result)
    )
    # line 4 is `pass` as base line 3 was, but a different rule; line 3 is new code
    assert len(filtered.results) == 2


def test_a_renamed_files_base_results_count_under_its_new_path() -> None:
    old = found("src/old.py", 2, rule="F401")  # `import sys`, unchanged by the rename
    new = found("src/new.py", 1, rule="F821")
    moved = found("src/new.py", 2, rule="F401")
    filtered = filter_to_change(
        [new, moved], ingest(DIFF), FilterMode.FILE, head_lines=HEAD, base=base(old)
    )
    assert filtered.results == (new.result,)


def test_one_base_result_accounts_for_one_head_result() -> None:
    lines = {"src/cart.py": ["import os", "def total(items):", "import os", "    pass"]}
    diff = ingest(DIFF.replace("+    return amont", "+import os"))
    old = found("src/cart.py", 1, rule="F811")
    twice = [found("src/cart.py", 1, rule="F811"), found("src/cart.py", 3, rule="F811")]
    filtered = filter_to_change(twice, diff, FilterMode.FILE, head_lines=lines, base=base(old))
    assert [r.line for r in filtered.results] == [3]


def test_without_the_heads_lines_nothing_is_compared_with_the_base() -> None:
    old = found("src/cart.py", 1, rule="F401")
    filtered = filter_to_change([old], ingest(DIFF), FilterMode.FILE, base=base(old))
    assert filtered.results == (old.result,)
