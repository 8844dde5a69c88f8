"""The Action's writes: the review (with the 422 ladder), the summary comment, the files
and outputs GitHub Actions reads. An edge over the GitHub port's roles."""

from __future__ import annotations

from pathlib import Path

from consensus.app.services import ActionStep
from consensus.errors import GitHubError
from consensus.ingest.hunks import Hunks
from consensus.model.report import Report
from consensus.ports import (
    Conversation,
    GitHubPort,
    Log,
    PullRequestInfo,
    ReviewRejected,
    ReviewWriter,
)
from consensus.publish.plan import PublishPlan, move_to_summary, suspect_comments
from consensus.publish.resolution import thread_changes
from consensus.publish.state import PublishState
from consensus.publish.thread import Identity, PullRequestThread, duplicates
from consensus.settings.config import Settings


def post_review(
    host: ReviewWriter,
    info: PullRequestInfo,
    plan: PublishPlan,
    settings: Settings,
    api_hunks: Hunks,
    log: Log,
) -> PublishPlan:
    """Post the review; a 422 retries without the comments GitHub refused (to the summary)."""
    for attempt in range(3):
        review = plan.review
        if review is None:
            return plan
        try:
            host.create_review(
                info.number,
                commit_sha=info.head_sha,
                body=review.body,
                event=review.event,
                comments=review.comments,
            )
        except ReviewRejected as exc:
            reason = "; ".join(exc.errors) or exc.message
            note = f"GitHub refused the inline comment ({reason})"
            # First the comments that are not on GitHub's own view of the diff, then all.
            suspects = suspect_comments(review, api_hunks) if attempt == 0 else set()
            refused = suspects or set(review.fingerprints)
            log(f"GitHub refused the review ({reason}): {len(refused)} comment(s) → summary")
            plan = move_to_summary(
                plan, refused, note, settings=settings.publish, head_sha=info.head_sha
            )
            continue
        log(f"posted a review with {len(review.comments)} inline comment(s) ({review.event})")
        return plan
    log("GitHub refused the review three times: everything is in the summary comment")
    return plan.model_copy(update={"review": None})


def sync_review_threads(
    host: ReviewWriter,
    number: int,
    plan: PublishPlan,
    previous: PublishState,
    identity: Identity,
    log: Log,
) -> None:
    """Resolve the review threads of findings this run resolved, and unresolve those of
    findings that came back (publish.resolution says which). GitHub is asked only when
    something may change; a failure is a warning, as the summary already says it all."""
    earlier = {t.fingerprint for t in previous.findings if t.resolved}
    back = earlier & {p.finding.fingerprint for p in plan.placed if p.placement.inline}
    if not plan.resolved and not back:
        return
    done: list[str] = []
    try:
        threads = host.review_threads(number)
        for change in thread_changes(threads, plan, previously_resolved=earlier, identity=identity):
            host.set_thread_resolved(change.thread_id, change.resolve)
            done.append(f"{'resolved' if change.resolve else 'reopened'} {change.fingerprint}")
    except GitHubError as exc:
        log(f"warning: review threads were not updated: {exc.message}")
    if done:
        log(f"review threads: {', '.join(done)}")


def upsert_summary(
    host: Conversation, number: int, thread: PullRequestThread, body: str, log: Log
) -> None:
    if thread.summary_id is not None:
        host.edit_issue_comment(thread.summary_id, body)
        log(f"summary comment {thread.summary_id} updated")
    else:
        created = host.create_issue_comment(number, body)
        log(f"summary comment {created.id} posted")


def settle_concurrent_runs(host: GitHubPort, number: int, identity: Identity, log: Log) -> None:
    """Two runs on one PR at once (two runners, a re-run racing a push) both post: after
    posting, each deletes what repeats an older comment of ours (never anyone else's), so
    one of each remains."""
    inline, summaries = duplicates(
        host.issue_comments(number), host.review_comments(number), identity=identity
    )
    for comment_id in inline:
        host.delete_review_comment(comment_id)
    for comment_id in summaries:
        host.delete_issue_comment(comment_id)
    if inline or summaries:
        log(
            f"another run posted on this PR at the same time: removed {len(inline)} repeated "
            f"inline comment(s) and {len(summaries)} repeated summary comment(s)"
        )


def write_outputs(step: ActionStep, report: Report, plan: PublishPlan, summary: str) -> None:
    """The JSON report (and SARIF when asked), the step summary, the step's outputs."""
    from consensus.render import render_json, render_sarif

    runner = step.runner
    report_path = runner.temp / "consensus-report.json"
    report_path.write_text(render_json(report), encoding="utf-8")
    if step.inputs.sarif:
        Path(step.inputs.sarif).write_text(render_sarif(report), encoding="utf-8")
    if runner.step_summary:
        with open(runner.step_summary, "a", encoding="utf-8") as handle:
            handle.write(summary + "\n")
    if runner.outputs:
        kept_out = ("not_posted", "below_min_severity", "dismissed", "suppressed")
        open_findings = sum(1 for p in plan.placed if p.placement.value not in kept_out)
        with open(runner.outputs, "a", encoding="utf-8") as handle:
            handle.write(f"run-id={report.run_id}\nfindings={open_findings}\n")
            handle.write(f"report={report_path}\n")
