"""The slash commands that spend tokens: `review` and `verify`. Only reached after the
commenter's write permission was confirmed (app/talk/commands.py)."""

from __future__ import annotations

import asyncio

from consensus.app.jobs import review_diff
from consensus.app.pull.apply import write_state
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.review import review_and_publish
from consensus.decide.judgement import Judgement, settled
from consensus.errors import ConsensusError
from consensus.model.base import Status
from consensus.ports import ModelClient
from consensus.publish.answers import Section, verified_section
from consensus.publish.claims import claim_of_record
from consensus.publish.records import verification_note
from consensus.publish.state import FindingRecord
from consensus.review.budget import plan_budget
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.review.verify import Panel, judge_claims
from consensus.settings.workflows import Workflow


def review_now(context: PullContext) -> Section:
    """The full review of the PR head, published as an automatic run would be (pause or not)."""
    info = context.info
    if info.state != "open":
        raise ConsensusError(f"{context.words.ref(info.number)} is {info.state}: nothing to review")
    _publish_now(context)
    return Section(
        "/consensus review",
        f"Reviewed {info.head_sha[:12]}: the summary comment is up to date.",
    )


def workflow_now(context: PullContext, workflow: Workflow) -> Section:
    """The saved workflow `workflow` on the PR head: its own personas, providers and
    instructions, published in its own section of the summary comment."""
    info = context.info
    if info.state != "open":
        raise ConsensusError(f"{context.words.ref(info.number)} is {info.state}: nothing to review")
    _publish_now(context.running(workflow=workflow))
    return Section(
        f"/consensus {workflow.name}",
        f"Ran the saved review workflow `{workflow.name}` on {info.head_sha[:12]}: its section "
        "of the summary comment is up to date.",
    )


def _publish_now(context: PullContext) -> None:
    """A fresh look at the PR head, published; an error when it could not be a review."""
    if context.services.keys.none_usable(context.read_settings()):
        raise ConsensusError("no provider key is available to this run: nothing was reviewed")
    result = review_and_publish(context, carry=False, thread=context.read_thread())
    if not result.quorum_met:
        raise ConsensusError("no review: too few providers answered (see the summary comment)")


def verify_now(context: PullContext, record: FindingRecord) -> Section:
    """Inspector and redundancy voting on one finding now; the verdict goes into the state."""
    if record.found_by_scan:
        raise ConsensusError(f"{record.id} comes from consensus's own scan: nothing to verify")
    judgement = verify_record(context, record, context.read_models())
    updated = _updated(record, judgement, context.asker)
    state = context.summary_thread().state
    records = tuple(updated if r.id == record.id else r for r in state.records)
    write_state(context, state.model_copy(update={"records": records}))
    return verified_section(updated)


def verify_record(context: PullContext, record: FindingRecord, client: ModelClient) -> Judgement:
    """The finding of `record` judged on the PR's current head, through `client` behind the
    budget of the base branch's settings (a ConsensusError when no provider can be called)."""
    settings, keys = context.read_settings(), context.services.keys
    providers = keys.providers(settings)
    unavailable = keys.unavailable(providers)
    panel = [p for p in providers if p.model not in unavailable]
    if not panel:
        raise ConsensusError("no provider key is available to this run: nothing was verified")
    diff = review_diff(context.raw_diff(), settings)
    ledger = Ledger(settings.budget)
    # No review calls are planned: an `auto` cap is the verification share alone.
    ledger.hold_to(plan_budget(settings.budget, [], unpriced=[], changed_lines=0).limits())
    guarded = GuardedClient(client, ledger, context.services.counter)
    judges = Panel(diff, panel, settings, guarded, ledger, context.head_source())
    [judgement] = asyncio.run(judge_claims([claim_of_record(record)], judges)).judgements
    return judgement


def _updated(record: FindingRecord, judgement: Judgement, login: str) -> FindingRecord:
    agreed = record.reason.split(";")[0] if record.status is Status.CONSENSUS else ""
    status, reason = settled(record.status, True, judgement, agreed)
    note = verification_note(judgement.verification, requested_by=login)
    return record.model_copy(
        update={"status": status, "reason": reason[:300], "verification": note}
    )
