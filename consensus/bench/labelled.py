"""Labelled claims for calibration, from a bench's judged findings.

Each finding of a consensus run that the judge answered becomes one labelled claim, in the
JSON Lines format `consensus calibrate --labels` reads:

    {"id": "L1", "diff": "<the file's unified diff>", "path": "app/db.py", "line": 42,
     "end_line": 44, "title": "…", "body": "…", "real": true, "severity": "high",
     "category": "bug", "origin": "martian-offline:getsentry/sentry#123"}

`real` is the judge's verdict: the finding matches a known defect of the PR. Every
verifier vote cast on those findings during the run goes to a second file, one line per
vote naming its claim's id, so a judge's answers can be compared with the labels. A finding
whose judgement failed gets no label. The claims are `consensus.model.labels.LabelledClaim`,
the very model the calibration reads. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from consensus.bench.judge import BenchFinding, GoldenMatch
from consensus.model.base import Frozen
from consensus.model.labels import LabelledClaim
from consensus.model.report import ReportFinding


class VoteRecord(Frozen):
    """One verifier vote cast during the run on a labelled claim."""

    claim: str  # the LabelledClaim's id
    model: str
    family: str
    role: str
    verdict: str | None  # confirmed | refuted | uncertain; None: the call failed
    reason: str
    self_vote: bool


class Labelled(Frozen):
    claims: list[LabelledClaim]
    votes: list[VoteRecord]


def label_findings(
    judged: Sequence[tuple[str, str, Sequence[ReportFinding], Mapping[str, str]]],
    judgements: Mapping[tuple[str, str], GoldenMatch],
) -> Labelled:
    """`judged`: (PR key, origin, the run's findings, path → that file's diff section)."""
    claims: list[LabelledClaim] = []
    votes: list[VoteRecord] = []
    for pr, origin, findings, sections in judged:
        for finding in findings:
            judgement = judgements.get((pr, BenchFinding.of(finding).key))
            diff = sections.get(finding.path) or "".join(sections.values())
            if judgement is None or judgement.matched is None or not diff:
                continue
            ident = f"L{len(claims) + 1}"
            claims.append(
                LabelledClaim(
                    id=ident,
                    diff=diff,
                    path=finding.path,
                    line=finding.line,
                    end_line=finding.end_line if finding.end_line > finding.line else None,
                    title=finding.title,
                    body=finding.body,
                    real=judgement.hit,
                    severity=finding.severity,
                    category=finding.category,
                    origin=origin,
                )
            )
            record = finding.verification
            for vote in record.votes if record is not None else ():
                votes.append(
                    VoteRecord(
                        claim=ident,
                        model=vote.model,
                        family=vote.family,
                        role=vote.role,
                        verdict=vote.verdict.value if vote.verdict else None,
                        reason=vote.reason,
                        self_vote=vote.self_vote,
                    )
                )
    return Labelled(claims=claims, votes=votes)


def jsonl(rows: Sequence[Frozen]) -> str:
    """One JSON object a line, optional keys left out when empty."""
    return "".join(
        json.dumps(row.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n"
        for row in rows
    )
