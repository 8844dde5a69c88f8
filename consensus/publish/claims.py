"""The claim a recorded finding makes: what `/consensus verify F3` asks the judges, built
from the summary's state as `decide/judgement.claim_of` builds it from a live cluster."""

from __future__ import annotations

from consensus.model.base import SCAN_NAME, FindingSource
from consensus.model.claim import Claim
from consensus.publish.state import FindingRecord


def claim_of_record(record: FindingRecord) -> Claim:
    """What the judges of a recorded finding are asked about (`/consensus verify`): the
    same claim its run would have put to them, from what the state keeps (the state does
    not keep a finding's quoted evidence). A record kept without its members names its
    reporters by model alone: the judges read their families from the panel."""
    models = [m for m in record.members if m.source is FindingSource.MODEL]
    named = (m.provider for m in models) if record.members else record.providers
    return Claim(
        fingerprint=record.fingerprint,
        path=record.path,
        line=record.line,
        end_line=record.end_line,
        title=record.title,
        body=record.body,
        category=record.category,
        severity=record.severity,
        families=frozenset(m.family for m in models),
        providers=tuple(sorted(set(named) - {SCAN_NAME})),
        scanned=record.found_by_scan,
        reviewing=record.votes_of,
        ungrounded=record.ungrounded or None,
    )
