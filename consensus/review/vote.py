"""The vote of one review: the models' findings, consensus's own scan and the static
analyzers' results aligned into clusters (asking "same problem?" where the words cannot
decide), held to their places (review/grounding.py: a claim whose line is not on the
change, or whose evidence is not there, is ungrounded), scored against who reviewed each
file, and settled.

Who reviewed a file (`coverage`): the model families with a valid review of a chunk
holding it; an analyzer counts for a claim it reported and abstains where it is silent
(decide/analyzers.py). The scan reviews nothing: its findings are posted whoever else reported them
(ingest/detections.settle); an analyzer's are decided by decide/analyzers.settle_analyzers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from consensus.decide.align import SameProblemQuestion, align, open_questions
from consensus.decide.analyzers import (
    analyzer_findings,
    settle_analyzers,
)
from consensus.decide.fingerprint import namespaced
from consensus.decide.score import score
from consensus.ingest.detections import detections, settle
from consensus.inspect.snapshot import Snapshot
from consensus.model.analysis import AnalyzerRun
from consensus.model.base import FindingSource
from consensus.model.diff import ReviewDiff
from consensus.model.findings import ModelFailure, ModelReview, ScoredCluster
from consensus.ports import ModelClient
from consensus.review.grounding import ground, head_lines
from consensus.review.ledger import Ledger
from consensus.review.sameness import ask_same_problem
from consensus.settings.config import ProviderSettings, Settings

CallResult = ModelReview | ModelFailure


def coverage(results: Sequence[CallResult]) -> dict[str, frozenset[str]]:
    """path → families that returned a valid review of a chunk holding that path."""
    seen: dict[str, set[str]] = defaultdict(set)
    for result in results:
        if isinstance(result, ModelReview):
            for path in result.paths:
                seen[path].add(result.family)
    return {path: frozenset(families) for path, families in seen.items()}


def anchor_reader(diff: ReviewDiff) -> Callable[[str, int, int], str]:
    """(path, line, end_line) → the new-side code there, for fingerprints."""
    index: dict[str, dict[int, str]] = {}
    for changed in diff.files:
        index[changed.path] = {
            line.new_line: line.text
            for hunk in changed.hunks
            for line in hunk.lines
            if line.new_line is not None
        }

    def read(path: str, line: int, end_line: int) -> str:
        lines = index.get(path, {})
        return "\n".join(lines[n] for n in range(line, end_line + 1) if n in lines)

    return read


@dataclass(frozen=True)
class Ballot:
    """What the vote reads: the diff, the settings, the guarded client and its ledger (for
    the "same problem?" questions), the panel that answers them, and the workflow's
    fingerprint namespace."""

    diff: ReviewDiff
    settings: Settings
    client: ModelClient
    ledger: Ledger
    panel: Sequence[ProviderSettings]
    namespace: str = ""
    head: Snapshot | None = None  # the head tree, for grounding: the diff's head side without


async def align_and_score(
    ballot: Ballot,
    results: Sequence[CallResult],
    analyzed: Sequence[AnalyzerRun] = (),
    *,
    ask: bool,
) -> tuple[list[ScoredCluster], list[str]]:
    """Scored clusters, and a note on the "same problem?" questions asked (when `ask`)."""
    diff, settings = ballot.diff, ballot.settings
    findings = [f for r in results if isinstance(r, ModelReview) for f in r.findings]
    findings += analyzer_findings(analyzed, diff)
    findings += detections(diff)
    questions = open_questions(findings) if ask else []
    answers = await ask_same_problem(
        questions,
        diff=diff,
        panel=ballot.panel,
        client=ballot.client,
        ledger=ballot.ledger,
        concurrency=settings.concurrency,
    )
    clusters = [
        c.model_copy(update={"fingerprint": namespaced(c.fingerprint, ballot.namespace)})
        for c in align(findings, anchor_text=anchor_reader(diff), answers=answers)
    ]
    claimed = [f.path for f in findings if f.source is FindingSource.MODEL]
    clusters = ground(clusters, diff, head_lines(ballot.head, claimed))
    scored = score(
        clusters,
        coverage(results),
        threshold=settings.threshold,
        verify_min_severity=settings.verify_min_severity,
        check_min_severity=settings.inspector.check_consensus_min_severity,
    )
    return settle(settle_analyzers(scored, analyzed)), sameness_note(len(questions), answers)


def sameness_note(asked: int, answers: Mapping[SameProblemQuestion, bool]) -> list[str]:
    if not asked:
        return []
    same = sum(answers.values())
    unanswered = asked - len(answers)
    tail = f", {unanswered} left to the words" if unanswered else ""
    return [
        f'{asked} "same problem?" question{"s" if asked > 1 else ""} asked where the words '
        f"could not decide: {same} same, {len(answers) - same} different{tail}"
    ]
