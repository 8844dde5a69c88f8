"""Static analyzers in the vote: their results as findings, the files each reviewed, and
what is posted of a cluster one reported.

An analyzer (model/analysis.py) is one family. Its results become findings of that
family (`FindingSource.ANALYZER`, persona `ANALYZER_PERSONA`, the title carrying the rule:
"F821: Undefined name `totl`") and are aligned with the models' findings like any family's,
the same "same problem?" path deciding open pairs. An analyzer counts in a claim's
threshold where it reported the claim, and abstains where it is silent: its rules see a
sliver of what models look for (an undefined name, not a wrong discount), so its silence on
a logic bug is no vote against it. Counting it among every covered file's reviewers cost
the quality benchmark a quarter of its recall before verification (0.53 to 0.39, 300 PRs)
for no precision a model-agreed claim lacked.

Then, as consensus's own scan is settled (ingest/detections.settle), a cluster holding an
analyzer's finding is decided here, after the score and before the judges:

- with a model family among its reporters, it is posted: the model's finding is
  *corroborated* ("also reported by ruff F821"), and no judge is asked (an analyzer never
  invents: its rule is its evidence, and the alignment already judged the two one problem);
- an analyzer's alone is posted when its run posts on its own (`Posting.ALONE`), else kept
  in the summary: "reported by ruff only; ruff posts with a model's agreement".

Judges are never asked about an analyzer's claim either way, and an analyzer is never
among a claim's `reviewers` (the families whose rates the judges' rule estimates).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from consensus.model.analysis import ANALYZER_PERSONA, AnalyzerResult, AnalyzerRun, Posting
from consensus.model.base import Category, FindingSource, Status
from consensus.model.diff import ReviewDiff
from consensus.model.findings import LINE_WINDOW, Finding, ScoredCluster

MAX_RULE = 100  # characters of a rule's id a finding keeps (the state's bound)
MAX_MESSAGE = 300  # characters of a result's message in a title and a judge's prompt
_SECURITY_RULE = re.compile(r"^S\d+$|security|injection|secret|crypto", re.IGNORECASE)


def rule_id(rule: str) -> str:
    """A rule's id as a finding keeps it: no blanks, at most MAX_RULE characters."""
    return re.sub(r"\s+", "-", rule.strip())[:MAX_RULE] or "rule"


def _message(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def category_of(rule: str) -> Category:
    """The kind a rule reports: security for bandit's S-rules (ruff) and rules whose id
    says so (semgrep's `python.lang.security…`), else a bug: alignment joins an analyzer's
    finding to a model's only where their kinds are compatible."""
    return Category.SECURITY if _SECURITY_RULE.search(rule) else Category.BUG


def analyzer_finding(run: AnalyzerRun, result: AnalyzerResult) -> Finding:
    rule = rule_id(result.rule)
    message = _message(result.message) or rule
    body = message + (f"\n\nRule: {result.help_uri}" if result.help_uri else "")
    return Finding(
        provider=run.name,
        family=run.name,
        persona=ANALYZER_PERSONA,
        chunk=0,
        path=result.path,
        line=result.line,
        end_line=max(result.line, result.end_line),
        severity=result.severity,
        category=category_of(rule),
        title=f"{rule}: {message}",
        body=body,
        evidence=f"{run.name} {rule}",
        source=FindingSource.ANALYZER,
        rule=rule,
    )


def analyzer_findings(runs: Sequence[AnalyzerRun], diff: ReviewDiff) -> list[Finding]:
    """Every result of every run on a file of the diff (a result elsewhere is not this
    review's: the filter keeps results on changed files only)."""
    held = {changed.path for changed in diff.files}
    return [
        analyzer_finding(run, result)
        for run in runs
        for result in run.results
        if result.path in held
    ]


def _named(item: ScoredCluster) -> str:
    """ "ruff F821", or "ruff F821 and semgrep eval-detected"."""
    named = sorted(
        {
            f"{m.family} {m.rule}" if m.rule else m.family
            for m in item.cluster.members
            if m.source is FindingSource.ANALYZER
        }
    )
    return " and ".join(named)


def settle_analyzers(
    scored: Sequence[ScoredCluster], runs: Sequence[AnalyzerRun]
) -> list[ScoredCluster]:
    """Each cluster an analyzer reported, decided by who else did and how the analyzer
    posts; every cluster's `reviewers` without the analyzers (they are no judges' peers)."""
    names = frozenset(run.name for run in runs)
    alone = frozenset(run.name for run in runs if run.posting is Posting.ALONE)
    settled = []
    for item in scored:
        reviewers = item.reviewers - names
        analyzers = item.cluster.analyzer_families
        if not analyzers or item.cluster.from_scan:  # the scan's settle decides those
            settled.append(item.model_copy(update={"reviewers": reviewers}))
            continue
        models = item.cluster.model_families
        tally = f"{item.votes_for} of {item.votes_of} families"
        named = _named(item)
        if models:
            status = Status.CONSENSUS
            reason = f"{tally}; also reported by {named}: the analyzer's rule corroborates it"
        elif analyzers & alone:
            posts = ", ".join(sorted(analyzers & alone))
            status = Status.CONSENSUS
            reason = f"reported by {named}; {posts} posts on its own"
        else:
            status = Status.UNVERIFIED
            who = " and ".join(sorted(analyzers))
            reason = f"reported by {who} only; {who} posts with a model's agreement"
        settled.append(
            item.model_copy(
                update={
                    "status": status,
                    "needs_verification": False,
                    "reason": reason,
                    "reviewers": reviewers,
                }
            )
        )
    return settled


def results_near(runs: Sequence[AnalyzerRun], path: str, line: int, end_line: int) -> list[str]:
    """What the analyzers report on the lines a judge checks (within LINE_WINDOW of
    them), one line each: "ruff F821 at src/cart.py:41: Undefined name `totl`"."""
    found = []
    for run in runs:
        for result in run.results:
            if result.path != path:
                continue
            if result.line > end_line + LINE_WINDOW or result.end_line < line - LINE_WINDOW:
                continue
            where = f"{path}:{result.line}"
            found.append(
                f"{run.name} {rule_id(result.rule)} at {where}: {_message(result.message)}"
            )
    return found


def run_notes(runs: Sequence[AnalyzerRun]) -> list[str]:
    """The report's notes on the analyzers: each one that could not run, and why; each
    one whose filter left results out, how many and why ("ruff: 2 of 9 results kept
    (filter_mode added): 5 not on an added line, 2 already on the base …")."""
    notes = []
    for run in runs:
        if run.note:
            notes.append(f"{run.name}: {run.note}")
        elif run.dropped:
            kept, left = len(run.results), sum(count for _, count in run.dropped)
            why = ", ".join(f"{count} {reason}" for reason, count in run.dropped)
            mode = run.filter_mode.value
            notes.append(f"{run.name}: {kept} of {kept + left} results kept ({mode}): {why}")
    return notes
