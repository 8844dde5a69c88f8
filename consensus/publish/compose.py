"""What a run posts on a pull request, composed before anything is posted. Pure.

`compose` takes the run's report, what was carried, the diff, and the pull request as the
host shows it (`PullView`: what earlier runs left on it, its head, its files, its links, the
base branch's learnings and publish settings, the host that shows its comments), and
returns a `Publication`: the review and its inline comments, the review threads to resolve
or reopen, and the summary page with its state (the comment's body, and the page a job's
step summary shows). It says what to post, not how a host posts it: an applier
(app/pull/apply.py, for GitHub and GitLab) posts it and decides nothing. A suggestion is
fenced for the host that applies it: GitHub's ```` ```suggestion ```` replaces the
comment's lines, GitLab's ```` ```suggestion:-N+0 ```` counts them from the line its note
sits on (publish/gitlab_suggestion.py). When the host refuses inline comments,
`Publication.refused` composes the page again with them in the summary.

A saved workflow's run composes its own section of the summary and its own part of the
state (publish/workflow_section.py) and leaves the rest of the page as it was.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from consensus.ingest.pull_diff import review_hunks
from consensus.model.base import Severity
from consensus.model.diff import ReviewDiff
from consensus.model.host import GITHUB_WORDS, HostWords
from consensus.model.report import Report
from consensus.publish.carry import Carried
from consensus.publish.gitlab_suggestion import with_gitlab_fences
from consensus.publish.learnings import learned_marks
from consensus.publish.plan import Placement, PublishPlan, Scope, move_to_summary, plan_publish
from consensus.publish.resolution import ThreadChanges
from consensus.publish.spend import PrAllowance, spent_after
from consensus.publish.state import PublishState, with_workflow, workflow_view
from consensus.publish.suggestion import head_lines
from consensus.publish.summary import (
    BUDGET,
    WORKFLOW_BUDGET,
    render_summary,
    render_workflow_section,
)
from consensus.publish.summary_edit import SummaryEdit
from consensus.publish.thread import PullRequestThread
from consensus.publish.workflow_section import put_section, workflow_sections
from consensus.settings.config import PublishSettings
from consensus.settings.learned import Learned
from consensus.settings.workflows import Workflow

KEPT_OUT = (Placement.NOT_POSTED, Placement.BELOW_MIN, Placement.DISMISSED, Placement.SUPPRESSED)


@dataclass(frozen=True)
class PullView:
    """The pull request as the host shows it to a run: what earlier runs left on it (read
    before anything is posted), its head, every path the host lists as changed, the links
    that are its own, the base branch's learnings and publish settings; the saved workflow
    this run is, what is left of the PR's budget for an automatic run, and the host that
    shows the comments (its suggestion fences) and its `words` (what the page calls the
    pull request)."""

    thread: PullRequestThread
    head_sha: str
    changed: frozenset[str]
    links: tuple[str, ...]
    settings: PublishSettings
    learned: Learned = field(default_factory=Learned)
    workflow: Workflow | None = None
    allowance: PrAllowance | None = None
    words: HostWords = GITHUB_WORDS


def own_part(thread: PullRequestThread, workflow: Workflow | None) -> PullRequestThread:
    """The thread as a run plans on it: a saved workflow's run sees its own head, findings
    and records, and the PR's dismissals and pause, never another run's findings."""
    if workflow is None:
        return thread
    state = workflow_view(thread.state, workflow.name)
    return PullRequestThread.model_validate({**dict(thread), "state": state})


@dataclass(frozen=True)
class _Page:
    """What the summary page is made of besides the plan, to compose it again."""

    report: Report
    pull: PullView
    spent_state: PublishState  # the page's state before this run: with what the PR spent


@dataclass(frozen=True)
class Publication:
    """Everything a run posts on the PR: `plan` (where each finding goes, the review and
    its inline comments, the state it leaves), the summary comment's body (its state on
    the last line), and `step_summary`, the page without the state (a saved workflow's
    section alone)."""

    plan: PublishPlan
    summary: str
    step_summary: str
    page: _Page

    @property
    def report(self) -> Report:
        return self.page.report

    @property
    def summary_id(self) -> int | None:
        """The summary comment `summary` replaces; None: it is posted as a new comment."""
        return self.page.pull.thread.summary_id

    @property
    def summary_edit(self) -> SummaryEdit:
        """The summary comment's write: the whole page, in place of ours or new."""
        return SummaryEdit(comment_id=self.summary_id, body=self.summary)

    @property
    def state(self) -> PublishState:
        """What the summary keeps for later runs (the whole page's, every workflow's)."""
        return _page_state(self.plan, self.page)

    @property
    def threads(self) -> ThreadChanges:
        own = own_part(self.page.pull.thread, self.page.pull.workflow).state
        return ThreadChanges(
            resolve=frozenset(t.fingerprint for t in self.plan.resolved),
            open_now=frozenset(
                p.finding.fingerprint for p in self.plan.placed if p.placement.inline
            ),
            earlier=frozenset(t.fingerprint for t in own.findings if t.resolved),
        )

    @property
    def posted(self) -> tuple[Severity, ...]:
        """The severities of what this run posted and nobody dismissed (fail-on reads them)."""
        return tuple(
            p.finding.severity
            for p in self.plan.placed
            if p.finding.status.posted
            and p.placement not in (Placement.DISMISSED, Placement.SUPPRESSED)
        )

    @property
    def open_findings(self) -> int:
        """The findings left open on the PR: inline or in the summary, not kept out."""
        return sum(1 for p in self.plan.placed if p.placement not in KEPT_OUT)

    def refused(self, fingerprints: Collection[str], note: str) -> Publication:
        """The publication after the host refused these inline comments: they go to the
        summary with `note`, and the page is composed again."""
        pull = self.page.pull
        plan = move_to_summary(
            self.plan, fingerprints, note, settings=pull.settings, head_sha=pull.head_sha
        )
        return _publication(plan, self.page)

    def without_review(self) -> Publication:
        """The publication when the host took no review at all: the summary says it all."""
        return _publication(self.plan.model_copy(update={"review": None}), self.page)


def compose(report: Report, carried: Carried, diff: ReviewDiff, pull: PullView) -> Publication:
    """Decide everything this run posts: the plan on the run's own part of the thread, what
    the PR's runs have spent with this one, and the summary page."""
    seen = {p for r in report.providers if r.status == "ok" for p in r.files_seen}
    spent = spent_after(pull.thread.state.spent, report, pull.allowance)
    plan = plan_publish(
        report,
        own_part(pull.thread, pull.workflow),
        pull.settings,
        scope=Scope(
            head_sha=pull.head_sha,
            reviewed=seen | carried.carry.paths,
            in_diff=pull.changed,
            rechecked=frozenset(f.path for f in carried.carry.rechecked),
            decisions=carried.decisions(report, head_sha=pull.head_sha),
            spent=spent if pull.workflow is None else None,  # a workflow's section shows none
        ),
        hunks=review_hunks(diff),
        links=pull.links,
        head=head_lines(diff),
        marks=learned_marks(pull.learned, report.findings),
    )
    if pull.words.fences_from_note:
        plan = _gitlab_fenced(plan)
    spent_state = pull.thread.state.model_copy(update={"spent": spent})
    return _publication(plan, _Page(report, pull, spent_state))


def _gitlab_fenced(plan: PublishPlan) -> PublishPlan:
    """The plan with each inline comment's suggestion fenced as GitLab applies it: counted
    from the line the note sits on (a range's last line)."""
    if plan.review is None:
        return plan
    comments = tuple(
        comment.model_copy(
            update={
                "body": with_gitlab_fences(
                    comment.body, start=comment.start_line or comment.line, end=comment.line
                )
            }
        )
        for comment in plan.review.comments
    )
    review = plan.review.model_copy(update={"comments": comments})
    return plan.model_copy(update={"review": review})


def _page_state(plan: PublishPlan, page: _Page) -> PublishState:
    workflow = page.pull.workflow
    if workflow is None:
        return plan.state
    return with_workflow(page.spent_state, workflow.name, plan.state)


def _publication(plan: PublishPlan, page: _Page) -> Publication:
    if page.pull.workflow is not None:
        summary, section = _workflow_page(plan, page, page.pull.workflow)
        return Publication(plan, summary, section, page)
    return Publication(plan, _summary(plan, page, True), _summary(plan, page, False), page)


def _summary(plan: PublishPlan, page: _Page, with_state: bool) -> str:
    """The default review's page, every saved workflow's section carried over as it was."""
    thread = page.pull.thread
    carried_sections = workflow_sections(thread.summary_body).values() if with_state else ()
    return render_summary(
        page.report,
        plan,
        head_sha=page.pull.head_sha,
        words=page.pull.words,
        links=page.pull.links,
        notices=[thread.state_problem] if thread.state_problem else [],
        with_state=with_state,
        workflows=list(carried_sections),
    )


def _workflow_page(plan: PublishPlan, page: _Page, workflow: Workflow) -> tuple[str, str]:
    """The summary comment with this workflow's section (and its part of the state) redone,
    and the section alone for the step summary."""
    body = page.pull.thread.summary_body
    own = workflow_sections(body).get(workflow.name, [])
    others = len(body) - len("\n".join(own))
    section = render_workflow_section(
        page.report,
        plan,
        title=workflow.title,
        description=workflow.description,
        head_sha=page.pull.head_sha,
        words=page.pull.words,
        links=page.pull.links,
        budget=max(1_000, min(WORKFLOW_BUDGET, BUDGET - others)),
    )
    summary = put_section(body, workflow.name, section, _page_state(plan, page), page.pull.words)
    return summary, "\n".join(section)
