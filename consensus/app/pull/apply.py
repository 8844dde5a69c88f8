"""A publication applied to the code host: the review (with the ladder of refusals), the review
threads, the summary comment, the clean-up after concurrent runs, the files the CI reads.
An edge over the pull-request roles of the port that decides nothing: what to post was
composed in publish/compose.py, and what a refusal changes is composed there again
(`Publication.refused`).

GitHub and GitLab take the same steps through the same port: on GitLab the review is one
discussion per inline comment (its body is not posted: the summary note says the same),
the review threads are the diff discussions, and a refused position is a `ReviewRejected`
as GitHub's 422 is (adapters/gitlab.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from consensus.app.pull.pull_context import PullContext
from consensus.app.services import ActionStep
from consensus.errors import HostError
from consensus.ingest.hunks import Hunks
from consensus.ingest.pull_diff import host_hunks
from consensus.model.host import GITHUB_WORDS, HostWords
from consensus.ports import (
    Conversation,
    HostComment,
    Log,
    PullRequestHost,
    PullRequestInfo,
    ReviewRejected,
    ReviewWriter,
)
from consensus.publish.compose import Publication
from consensus.publish.conversation import Reply
from consensus.publish.plan import suspect_comments
from consensus.publish.reply_outcome import ReplyOutcome
from consensus.publish.resolution import ThreadChanges, thread_changes
from consensus.publish.state import PublishState
from consensus.publish.summary_edit import SummaryEdit, state_edit
from consensus.publish.thread import Identity, duplicates

# What other flows take from this room: the one write of the summary, and of a reply.
__all__ = ["apply_reply", "post", "write_state", "write_summary"]


def post(context: PullContext, publication: Publication) -> Publication:
    """Post `publication` on the PR of `context`, in order: the review, the threads, the
    summary, then the clean-up and the step's files. What was posted: comments the host
    refused are in its summary."""
    host, number, log = context.host, context.info.number, context.log
    api_hunks = host_hunks(context.pull_files())
    publication = post_review(host, context.info, publication, api_hunks, log, context.words)
    sync_review_threads(host, number, publication.threads, context.identity, log)
    write_summary(host, number, publication.summary_edit, log)
    settle_concurrent_runs(host, number, context.identity, log)
    write_outputs(context.step, publication)
    return publication


def post_review(
    host: ReviewWriter,
    info: PullRequestInfo,
    publication: Publication,
    api_hunks: Hunks,
    log: Log,
    words: HostWords = GITHUB_WORDS,
) -> Publication:
    """Post the review; a refusal (GitHub's 422, a position GitLab would not take) retries
    without the comments the host refused, which go to the summary."""
    for attempt in range(3):
        review = publication.plan.review
        if review is None:
            return publication
        event: Literal["COMMENT", "REQUEST_CHANGES"] = (
            "REQUEST_CHANGES" if review.requests_changes else "COMMENT"
        )
        try:
            host.create_review(
                info.number,
                commit_sha=info.head_sha,
                body=review.body,
                event=event,
                comments=review.comments,
            )
        except ReviewRejected as exc:
            reason = "; ".join(exc.errors) or exc.message
            note = f"{words.name} refused the inline comment ({reason})"
            # First the comments that are not on the host's own view of the diff, then all.
            suspects = suspect_comments(review, api_hunks) if attempt == 0 else set()
            refused = suspects or set(review.fingerprints)
            log(f"{words.name} refused the review ({reason}): {len(refused)} comment(s) → summary")
            publication = publication.refused(refused, note)
            continue
        log(words.review_posted.format(count=len(review.comments), event=event))
        return publication
    log(f"{words.name} refused the review three times: everything is in the summary comment")
    return publication.without_review()


def sync_review_threads(
    host: ReviewWriter, number: int, wanted: ThreadChanges, identity: Identity, log: Log
) -> None:
    """Resolve the review threads of findings this run resolved, and unresolve those of
    findings that came back (publish.resolution says which). The host is asked only when
    something may change; a failure is a warning, as the summary already says it all."""
    if not wanted.any:
        return
    done: list[str] = []
    try:
        threads = host.review_threads(number)
        for change in thread_changes(threads, wanted, identity=identity):
            host.set_thread_resolved(number, change.thread_id, change.resolve)
            done.append(f"{'resolved' if change.resolve else 'reopened'} {change.fingerprint}")
    except HostError as exc:
        log(f"warning: review threads were not updated: {exc.message}")
    if done:
        log(f"review threads: {', '.join(done)}")


def write_summary(host: Conversation, number: int, edit: SummaryEdit, log: Log) -> None:
    """The summary comment's one write: a review's page or a change of its state alone."""
    if edit.comment_id is not None:
        host.edit_issue_comment(number, edit.comment_id, edit.body)
        log(f"summary comment {edit.comment_id} {edit.edited}")
    else:
        created = host.create_issue_comment(number, edit.body)
        log(f"summary comment {created.id} {edit.posted}")


def write_state(context: PullContext, state: PublishState) -> None:
    """`state` into the summary comment as last read (publish/summary_edit.py), which is
    then read again."""
    edit = state_edit(context.summary_thread(), state, context.words)
    write_summary(context.host, context.info.number, edit, context.log)
    context.refresh_thread()


def apply_reply(context: PullContext, reply: Reply, outcome: ReplyOutcome) -> None:
    """What a reply comes to (publish/reply_outcome.py), applied: the state, the answer in
    the reply's thread, then the thread resolved."""
    if outcome.state is not None:
        write_state(context, outcome.state)
    context.host.reply_to_review_comment(context.info.number, reply.thread.id, outcome.answer)
    if outcome.resolve:
        resolve_thread(context, reply.thread)


def resolve_thread(context: PullContext, first: HostComment) -> None:
    """Resolve the review thread our comment `first` opened (a failure is a warning)."""
    try:
        for thread in context.host.review_threads(context.info.number):
            if thread.first.id == first.id and not thread.resolved:
                context.host.set_thread_resolved(context.info.number, thread.id, True)
    except HostError as exc:
        context.log(f"warning: the review thread was not resolved: {exc.message}")


def settle_concurrent_runs(
    host: PullRequestHost, number: int, identity: Identity, log: Log
) -> None:
    """Two runs on one PR at once (two runners, a re-run racing a push) both post: after
    posting, each deletes what repeats an older comment of ours (never anyone else's), so
    one of each remains."""
    inline, summaries = duplicates(
        host.issue_comments(number), host.review_comments(number), identity=identity
    )
    for comment_id in inline:
        host.delete_review_comment(number, comment_id)
    for comment_id in summaries:
        host.delete_issue_comment(number, comment_id)
    if inline or summaries:
        log(
            f"another run posted on this PR at the same time: removed {len(inline)} repeated "
            f"inline comment(s) and {len(summaries)} repeated summary comment(s)"
        )


def write_outputs(step: ActionStep, publication: Publication) -> None:
    """The JSON report (and SARIF when asked), the step summary, the step's outputs."""
    from consensus.render import render_json, render_sarif

    runner, report = step.runner, publication.report
    report_path = runner.temp / "consensus-report.json"
    report_path.write_text(render_json(report), encoding="utf-8")
    if step.inputs.sarif:
        Path(step.inputs.sarif).write_text(render_sarif(report), encoding="utf-8")
    if runner.step_summary:
        with open(runner.step_summary, "a", encoding="utf-8") as handle:
            handle.write(publication.step_summary + "\n")
    if runner.outputs:
        with open(runner.outputs, "a", encoding="utf-8") as handle:
            handle.write(f"run-id={report.run_id}\nfindings={publication.open_findings}\n")
            handle.write(f"report={report_path}\n")
