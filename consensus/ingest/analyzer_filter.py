"""An analyzer's results filtered to the change, as reviewdog filters them. Pure.

`filter_mode` (model/analysis.FilterMode) says which lines a result may start on:

| mode | kept where the result starts on |
|---|---|
| `added` (default) | a line the pull request added |
| `diff_context` | a line of the diff's hunks, added or context |
| `file` | any line of a file the pull request changed |
| `nofilter` | any line of a changed file, old results included |

A result on a file the review does not hold has nowhere to be posted and is counted as
outside the reviewed files, in every mode. Then, but for `nofilter`, a result that is not
new is left out: SARIF's `baselineState` says so ("unchanged", "absent"), or the base
tree had a result of the same rule on the same code (the line's text, blanks aside; the
analyzer run on the base, where that is cheap). Every result left out is counted by
reason, so that the summary can say what the filter held back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import Field

from consensus.ingest.sarif_results import Observed
from consensus.model.analysis import AnalyzerResult, FilterMode
from consensus.model.base import Frozen
from consensus.model.diff import ReviewDiff

OUTSIDE = "outside the reviewed files"
BASELINE = "unchanged since the baseline"  # baselineState, or the base's SARIF
ON_BASE = "already on the base (same rule, same code)"
NOT_ADDED = "not on an added line"
NOT_IN_HUNKS = "not in the diff's hunks"


class BaseResults(Frozen):
    """The same analyzer's results on the base tree, and the lines of the files they are
    in (base paths), for telling an old result from a new one."""

    results: tuple[AnalyzerResult, ...] = ()
    lines: dict[str, tuple[str, ...]] = Field(default_factory=dict)


class Filtered(Frozen):
    """The results kept, and how many were left out by reason."""

    results: tuple[AnalyzerResult, ...] = ()
    dropped: tuple[tuple[str, int], ...] = ()


def filter_to_change(
    observed: Sequence[Observed],
    diff: ReviewDiff,
    mode: FilterMode,
    *,
    head_lines: Mapping[str, Sequence[str]] | None = None,
    base: BaseResults | None = None,
) -> Filtered:
    """The results `mode` keeps of `observed` on `diff`. `head_lines` (path → the head
    file's lines) and `base` compare each result with the base's; without them a result
    is new unless its baselineState says otherwise."""
    files = {changed.path: changed for changed in diff.files}
    old = _base_keys(base, diff) if base is not None and head_lines is not None else Counter()
    kept: list[AnalyzerResult] = []
    dropped: Counter[str] = Counter()
    for item in sorted(observed, key=lambda o: (o.result.path, o.result.line, o.result.rule)):
        result = item.result
        changed = files.get(result.path)
        why: str | None = None
        if changed is None:
            why = OUTSIDE
        elif mode is not FilterMode.NOFILTER and item.baseline in ("unchanged", "absent"):
            why = BASELINE
        elif mode is FilterMode.ADDED and result.line not in changed.added_lines:
            why = NOT_ADDED
        elif mode is FilterMode.DIFF_CONTEXT and result.line not in changed.commentable_lines:
            why = NOT_IN_HUNKS
        elif mode is not FilterMode.NOFILTER and head_lines and result.path in head_lines:
            key = _key(result.path, result.rule, head_lines.get(result.path, ()), result.line)
            if old[key] > 0:  # one base result accounts for one head result
                old[key] -= 1
                why = ON_BASE
        if why is None:
            kept.append(result)
        else:
            dropped[why] += 1
    return Filtered(results=tuple(kept), dropped=tuple(sorted(dropped.items())))


def _base_keys(base: BaseResults, diff: ReviewDiff) -> Counter[tuple[str, str, str]]:
    """(head path, rule, code) of each base result: a renamed file's under its new path."""
    head_path = {changed.old_path or changed.path: changed.path for changed in diff.files}
    keys: Counter[tuple[str, str, str]] = Counter()
    for result in base.results:
        path = head_path.get(result.path)
        if path is not None and result.path in base.lines:
            keys[_key(path, result.rule, base.lines.get(result.path, ()), result.line)] += 1
    return keys


def _key(path: str, rule: str, lines: Sequence[str], line: int) -> tuple[str, str, str]:
    code = lines[line - 1] if 0 < line <= len(lines) else ""
    return path, rule, " ".join(code.split())
