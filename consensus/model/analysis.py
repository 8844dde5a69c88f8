"""Static analyzers as reviewers: what one analyzer reported on a pull request's head.

An analyzer (ruff, semgrep, any tool whose SARIF 2.1.0 file an earlier CI step wrote) is a
reviewer family of its own: it never rubber-stamps and never invents, but it sees only
what its rules see, and only in the languages it covers. `AnalyzerRun` is one analyzer's
output after it was read, validated and filtered to the change (`filter_mode`, reviewdog's
convention); `AnalyzerResult` one result in it, with the rule that produced it.

The vote reads an analyzer's results as findings (`FindingSource.ANALYZER`, provider and
family the analyzer's name, persona `ANALYZER_PERSONA`) and counts the analyzer among a
file's reviewers only where it `covers` the file's language. A run that could not happen
(the tool is not installed, no file in its languages, a SARIF file that failed to read)
carries no results and a `note` the summary shows: nothing an analyzer said is dropped
without a word.
"""

from __future__ import annotations

from enum import Enum

from consensus.model.base import Frozen, Severity

ANALYZER_PERSONA = "analyzer"  # the persona an analyzer's findings are listed under


class FilterMode(str, Enum):
    """Which results are kept, as reviewdog keeps them: on lines the change added (the
    default), within the diff's hunks (`diff_context`), anywhere in a changed file (`file`),
    or all of them (`nofilter`)."""

    ADDED = "added"
    DIFF_CONTEXT = "diff_context"
    FILE = "file"
    NOFILTER = "nofilter"


class Posting(str, Enum):
    """When an analyzer's result is posted: only when a model family agrees at that place
    (`with_models`, the default), or on its own (`alone`)."""

    WITH_MODELS = "with_models"
    ALONE = "alone"


class AnalyzerResult(Frozen):
    """One result: the rule, where (head-side lines), what it says, and how sure the tool
    is (`severity`, mapped from SARIF's level or the tool's own)."""

    rule: str  # "F821", "python.lang.security.audit.eval-detected"
    path: str
    line: int
    end_line: int
    message: str
    severity: Severity
    fingerprint: str | None = None  # SARIF partialFingerprints, where the file gives one
    help_uri: str | None = None


class AnalyzerRun(Frozen):
    """One analyzer's results on this change, kept by `filter_mode` and new against the
    base; `covers`: the linguist languages it reviews (a file in none of them is outside
    its view, so it is not counted among that file's reviewers). `dropped`: how many
    results the filter left out, by reason ("not on an added line": 12)."""

    name: str  # the family name in the vote: "ruff", "semgrep", "codeql"
    covers: tuple[str, ...]
    results: tuple[AnalyzerResult, ...] = ()
    posting: Posting = Posting.WITH_MODELS
    filter_mode: FilterMode = FilterMode.ADDED
    dropped: tuple[tuple[str, int], ...] = ()
    note: str | None = None  # why it did not run, or what went wrong, in one line
    seconds: float = 0.0


class AnalyzerCheck(Frozen):
    """Whether an analyzer the configuration names could run here, before a review finds
    out (`consensus doctor`, `consensus review --dry-run`): `ready`, and in one line what
    was found ("ruff 0.8.4") or what is missing and how to get it. An analyzer that is not
    ready never stops a review: the review goes on without it, as its note says."""

    name: str
    ready: bool
    detail: str
