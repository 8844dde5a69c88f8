"""The fake of the analyzers' port: `FakeAnalyzers` returns the runs it was given (one
`AnalyzerRun` per analyzer, as ruff, semgrep or a SARIF file's tool would have produced
them after the filter) and records each diff it was asked about.

    FakeAnalyzers((AnalyzerRun(name="ruff", covers=("Python",), results=(...)),))

A run with a `note` and no results stands for an analyzer that could not run (the tool
is not installed, the SARIF file did not read): the vote counts it among no file's
reviewers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from consensus.model.analysis import AnalyzerResult, AnalyzerRun, Posting
from consensus.model.base import Severity
from consensus.model.diff import ReviewDiff


@dataclass
class FakeAnalyzers:
    """Answers every review with `runs`; `asked` holds the diffs, one per review."""

    runs: tuple[AnalyzerRun, ...] = ()
    asked: list[ReviewDiff] = field(default_factory=list)

    async def analyze(self, diff: ReviewDiff) -> tuple[AnalyzerRun, ...]:
        self.asked.append(diff)
        return self.runs


def ruff_run(
    results: Sequence[tuple[str, str, int, str]],
    *,
    posting: Posting = Posting.WITH_MODELS,
    severity: Severity = Severity.HIGH,
) -> AnalyzerRun:
    """A ruff run on Python files with `results` as (rule, path, line, message)."""
    return AnalyzerRun(
        name="ruff",
        covers=("Python",),
        posting=posting,
        results=tuple(
            AnalyzerResult(
                rule=rule,
                path=path,
                line=line,
                end_line=line,
                message=message,
                severity=severity,
                help_uri=f"https://docs.astral.sh/ruff/rules/#{rule}",
            )
            for rule, path, line, message in results
        ),
    )
