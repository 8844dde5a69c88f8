"""Precision, recall and F1 from the judge's matches, counted as the benchmark counts them.

Martian's Code Review Bench (its step3_judge_comments.py) counts per pull request: a
golden comment matched by at least one posted finding is a true positive (tp), an
unmatched golden a false negative (fn); precision is tp over every posted finding, recall
tp over the goldens. So every posted finding that is not the first match of its golden is
a false positive (fp): one that matches nothing, one whose judgement failed, and a second
finding on a golden already matched (a `duplicate`, counted apart too). tp + fp is the
number of posted findings. Sums over PRs give precision = tp / (tp + fp), recall =
tp / (tp + fn), F1 their harmonic mean. A clean PR (no golden) adds its findings to fp
and nothing to recall; the benchmark's own suite has none (docs/bench.md).

Intervals (95%): Wilson's score interval for precision and recall (each treated as a
proportion of independent trials: findings and goldens of one PR are not quite independent,
so the intervals are somewhat narrow); for F1 a percentile bootstrap over pull requests,
2,000 resamples drawn by a generator seeded with 0, so a re-score prints the same interval.
By severity: recall by the golden's severity, precision by the finding's own severity.
Pure: counts in, figures out.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from consensus.bench.judge import BenchFinding, GoldenMatch
from consensus.bench.suite import SuitePR
from consensus.model.base import Frozen, Severity
from consensus.model.calibration import wilson

BOOTSTRAP_RESAMPLES = 2_000
BOOTSTRAP_SEED = 0
SEVERITIES = (Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW, Severity.INFO)


class PRCounts(Frozen):
    """One pull request under one configuration."""

    pr: str
    group: str
    tp: int
    fp: int
    fn: int
    findings: int
    duplicates: int  # false positives that name a golden an earlier finding matched
    unjudged: int  # findings whose judgement failed (counted as matching nothing)
    clean: bool  # the PR has no golden: every finding on it is a false positive
    goldens_by_severity: dict[Severity, int]
    found_by_severity: dict[Severity, int]
    findings_by_severity: dict[Severity, int]
    hits_by_severity: dict[Severity, int]


def count_pr(
    pr: SuitePR, findings: Sequence[BenchFinding], judgements: Mapping[str, GoldenMatch]
) -> PRCounts:
    """`findings` in the order the configuration posted them: of two that match one
    golden, the first is its true positive and the second a false positive."""
    matched: set[int] = set()
    duplicates = unjudged = 0
    findings_by: dict[Severity, int] = {}
    hits_by: dict[Severity, int] = {}
    for finding in findings:
        judgement = judgements.get(finding.key)
        findings_by[finding.severity] = findings_by.get(finding.severity, 0) + 1
        if judgement is None or judgement.matched is None:
            unjudged += 1
        elif judgement.hit and judgement.golden is not None:
            if judgement.golden in matched:
                duplicates += 1
            else:
                matched.add(judgement.golden)
                hits_by[finding.severity] = hits_by.get(finding.severity, 0) + 1
    goldens_by: dict[Severity, int] = {}
    found_by: dict[Severity, int] = {}
    for index, golden in enumerate(pr.goldens):
        goldens_by[golden.severity] = goldens_by.get(golden.severity, 0) + 1
        if index in matched:
            found_by[golden.severity] = found_by.get(golden.severity, 0) + 1
    return PRCounts(
        pr=pr.key,
        group=pr.group,
        tp=len(matched),
        fp=len(findings) - len(matched),
        fn=len(pr.goldens) - len(matched),
        findings=len(findings),
        duplicates=duplicates,
        unjudged=unjudged,
        clean=not pr.goldens,
        goldens_by_severity=goldens_by,
        found_by_severity=found_by,
        findings_by_severity=findings_by,
        hits_by_severity=hits_by,
    )


def interval(successes: int, trials: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a proportion (model/calibration.py); None with no
    trial."""
    if trials <= 0:
        return None
    measured = wilson(successes, trials)
    return (measured.low, measured.high)


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def f1_of(tp: int, fp: int, fn: int) -> float:
    p, r = ratio(tp, tp + fp), ratio(tp, tp + fn)
    return 2 * p * r / (p + r) if p + r else 0.0


def bootstrap_f1(
    counts: Sequence[PRCounts],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float] | None:
    """Percentile interval of F1 over pull requests drawn with replacement."""
    if len(counts) < 2:
        return None
    rng = random.Random(seed)
    rows = [(c.tp, c.fp, c.fn) for c in counts]
    values = []
    for _ in range(resamples):
        drawn = [rows[rng.randrange(len(rows))] for _ in rows]
        values.append(f1_of(*(sum(column) for column in zip(*drawn, strict=True))))
    values.sort()
    low = values[int(0.025 * (resamples - 1))]
    high = values[math.ceil(0.975 * (resamples - 1))]
    return (low, high)


class Figure(Frozen):
    """Precision, recall and F1 over some pull requests, with 95% intervals."""

    prs: int
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    precision_ci: tuple[float, float] | None
    recall_ci: tuple[float, float] | None
    f1_ci: tuple[float, float] | None
    duplicates: int = 0  # of fp: a second finding on a golden already matched
    clean_prs: int = 0  # pull requests without a golden
    posted_on_clean: int = 0  # findings posted on them (all in fp)


def figure(counts: Sequence[PRCounts]) -> Figure:
    tp = sum(c.tp for c in counts)
    fp = sum(c.fp for c in counts)
    fn = sum(c.fn for c in counts)
    return Figure(
        prs=len(counts),
        tp=tp,
        fp=fp,
        fn=fn,
        precision=ratio(tp, tp + fp),
        recall=ratio(tp, tp + fn),
        f1=f1_of(tp, fp, fn),
        precision_ci=interval(tp, tp + fp),
        recall_ci=interval(tp, tp + fn),
        f1_ci=bootstrap_f1(counts),
        duplicates=sum(c.duplicates for c in counts),
        clean_prs=sum(1 for c in counts if c.clean),
        posted_on_clean=sum(c.findings for c in counts if c.clean),
    )


class SeverityRow(Frozen):
    severity: Severity
    goldens: int
    found: int
    recall: float
    recall_ci: tuple[float, float] | None
    findings: int
    matched: int  # findings of this severity that matched a golden
    precision: float
    precision_ci: tuple[float, float] | None


def by_severity(counts: Sequence[PRCounts]) -> list[SeverityRow]:
    rows = []
    for severity in SEVERITIES:
        goldens = sum(c.goldens_by_severity.get(severity, 0) for c in counts)
        found = sum(c.found_by_severity.get(severity, 0) for c in counts)
        findings = sum(c.findings_by_severity.get(severity, 0) for c in counts)
        matched = sum(c.hits_by_severity.get(severity, 0) for c in counts)
        if goldens or findings:
            rows.append(
                SeverityRow(
                    severity=severity,
                    goldens=goldens,
                    found=found,
                    recall=ratio(found, goldens),
                    recall_ci=interval(found, goldens),
                    findings=findings,
                    matched=matched,
                    precision=ratio(matched, findings),
                    precision_ci=interval(matched, findings),
                )
            )
    return rows


def by_group(counts: Sequence[PRCounts]) -> dict[str, Figure]:
    groups: dict[str, list[PRCounts]] = {}
    for row in counts:
        groups.setdefault(row.group, []).append(row)
    return {name: figure(rows) for name, rows in sorted(groups.items())}
