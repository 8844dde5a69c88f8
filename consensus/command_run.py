"""The slash commands that spend tokens: `review` and `verify`. Only reached after the
commenter's write permission was confirmed (action_commands.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from consensus.command_replies import Section, verified_section
from consensus.errors import ConsensusError
from consensus.model_adapters import model_client, needed_keys
from consensus.models import Cluster, Finding, ReviewDiff, ScoredCluster
from consensus.thread_state import FindingRecord, VerificationNote, VoteNote

if TYPE_CHECKING:
    from consensus.action_commands import Context


def review_now(context: Context) -> Section:
    """The full review of the PR head, published as an automatic run would be (pause or not)."""
    from consensus.action import _no_keys, _review_and_publish

    info = context.info
    if info.state != "open":
        raise ConsensusError(f"PR #{info.number} is {info.state}: nothing to review")
    if _no_keys(context.settings, context.env):
        raise ConsensusError("no provider key is available to this run: nothing was reviewed")
    comments = context.host.issue_comments(info.number)
    code = _review_and_publish(
        context.env,
        context.inputs,
        context.host,
        info,
        context.settings,
        False,
        comments,
        context.log,
    )
    if code == 3:
        raise ConsensusError("no review: too few providers answered (see the summary comment)")
    return Section(
        "/consensus review",
        f"Reviewed {info.head_sha[:12]}: the summary comment is up to date.",
    )


def verify_now(context: Context, record: FindingRecord) -> Section:
    """Inspector and redundancy voting on one finding now; the verdict goes into the state."""
    from consensus.action import _source
    from consensus.config import resolve_providers, unavailable_providers
    from consensus.detections import PROVIDER
    from consensus.guard import GuardedClient
    from consensus.ledger import Ledger
    from consensus.verify import verify

    if any(m.provider == PROVIDER for m in record.members):
        raise ConsensusError(f"{record.id} comes from consensus's own scan: nothing to verify")
    settings = context.settings
    providers = resolve_providers(settings, context.env)
    unavailable = unavailable_providers(providers, context.env, needed_keys)
    panel = [p for p in providers if p.model not in unavailable]
    if not panel:
        raise ConsensusError("no provider key is available to this run: nothing was verified")
    diff = _diff(context)
    workspace = Path(context.env.get("GITHUB_WORKSPACE") or ".")
    ledger = Ledger(settings.budget)
    [checked] = asyncio.run(
        verify(
            [_scored(record)],
            diff=diff,
            panel=panel,
            settings=settings,
            client=GuardedClient(model_client(context.env), ledger),
            ledger=ledger,
            source=_source(context.host, context.info, workspace),
        )
    )
    updated = _updated(record, checked, context.login)
    state = context.thread.state
    records = tuple(updated if r.id == record.id else r for r in state.records)
    context.save_state(state.model_copy(update={"records": records}))
    return verified_section(updated)


def _diff(context: Context) -> ReviewDiff:
    from consensus.action import _git_sections
    from consensus.ingest import ingest
    from consensus.pr_diff import build_pull_diff

    info, settings = context.info, context.settings
    workspace = Path(context.env.get("GITHUB_WORKSPACE") or ".")
    files = context.host.pull_files(info.number)
    pull = build_pull_diff(
        files,
        changed_files=info.changed_files,
        fallback=lambda: _git_sections(workspace, info),
    )
    return ingest(
        pull.text,
        include=settings.paths,
        exclude=settings.exclude,
        redact_patterns=settings.redact,
        gitattributes=context.host.read_file(".gitattributes", info.base_sha) or "",
    )


def _scored(record: FindingRecord) -> ScoredCluster:
    members = tuple(
        Finding(
            provider=m.provider,
            family=m.family,
            persona=m.persona,
            chunk=0,
            path=record.path,
            line=record.line,
            end_line=record.end_line,
            severity=record.severity,
            category=record.category,
            title=m.title,
            body="",
        )
        for m in record.members
    )
    cluster = Cluster(
        path=record.path,
        line=record.line,
        end_line=record.end_line,
        severity=record.severity,
        category=record.category,
        title=record.title,
        body=record.body,
        members=members,
        fingerprint=record.fingerprint,
    )
    return ScoredCluster(
        cluster=cluster,
        votes_for=record.votes_for,
        votes_of=record.votes_of,
        agreement=record.votes_for / record.votes_of if record.votes_of else 0.0,
        needed=0,
        status=record.status,
        reason=record.reason,
        needs_verification=True,
    )


def _updated(record: FindingRecord, checked: ScoredCluster, login: str) -> FindingRecord:
    counts = checked.verification
    note = None
    if counts is not None:
        note = VerificationNote(
            confirmed=counts.confirmed,
            refuted=counts.refuted,
            uncertain=counts.uncertain,
            ahead_by=counts.ahead_by,
            votes=tuple(
                VoteNote(model=v.model, role=v.role, verdict=v.verdict, reason=v.reason[:300])
                for v in counts.votes
            ),
            note=counts.note[:300],
            requested_by=login,
        )
    return record.model_copy(
        update={"status": checked.status, "reason": checked.reason[:300], "verification": note}
    )
