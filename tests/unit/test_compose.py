"""What a run posts, composed without a host (publish/compose.py): the review and its inline
comments, the review threads to change, the summary page and its state; a saved
workflow's section beside the default review's; a host's refusal composed again."""

from __future__ import annotations

from consensus.ingest.review_diff import ingest
from consensus.model.base import Category, Severity, Status
from consensus.model.host import GITHUB_WORDS, GITLAB_WORDS
from consensus.model.report import ProviderReport, Quorum, Report, ReportFinding, Stats, Votes
from consensus.publish.carry import carry_forward
from consensus.publish.compose import PullView, compose
from consensus.publish.plan import Placement
from consensus.publish.spend import Spent
from consensus.publish.state import (
    PublishState,
    TrackedFinding,
    WorkflowState,
    decode_state,
    encode_state,
)
from consensus.publish.summary import render_summary
from consensus.publish.thread import SUMMARY_MARKER, PullRequestThread
from consensus.publish.workflow_section import workflow_sections
from consensus.settings.config import PublishSettings
from consensus.settings.workflows import parse_workflow

HEAD = "9f3c2a1b7d" + "0" * 30
BASIS = "c" * 32
DIFF = """\
diff --git a/src/orders/db.py b/src/orders/db.py
--- a/src/orders/db.py
+++ b/src/orders/db.py
@@ -10,3 +10,6 @@ def connect():
 def find_order(conn, order_id):
-    return conn.execute("SELECT * FROM orders WHERE id = ?", (order_id,))
+    query = f"SELECT * FROM orders WHERE id = {order_id}"
+    return conn.execute(query)
+
+
 def total(rows):
diff --git a/src/orders/api.py b/src/orders/api.py
--- a/src/orders/api.py
+++ b/src/orders/api.py
@@ -40,2 +40,3 @@ async def checkout(request):
     order = await load(request.order_id)
+    charge(order)
     return {"ok": True}
"""
SECURITY_AUDIT = """---
description: Injection and secrets only
personas: [security]
---
Look only for injection and leaked secrets.
"""


def finding(n: int, path: str, line: int, title: str, **given: object) -> ReportFinding:
    fields: dict[str, object] = {
        "id": f"F{n}",
        "fingerprint": f"{n:02x}" * 8,
        "path": path,
        "line": line,
        "end_line": line,
        "severity": Severity.HIGH,
        "category": Category.SECURITY if "SQL" in title else Category.BUG,
        "title": title,
        "body": f"{title}: the caller's input reaches it unchecked.",
        "agreement": 0.75,
        "votes": Votes(**{"for": 3, "of": 4}),
        "providers": ["anthropic/claude-sonnet-4-5", "google/gemini-2.5-pro", "openai/gpt-5.1"],
        "personas": ["security"],
        "status": Status.CONSENSUS,
    }
    return ReportFinding.model_validate(fields | given)


SQL = finding(1, "src/orders/db.py", 11, "SQL injection in find_order")
CHARGE = finding(2, "src/orders/api.py", 41, "charge() is not awaited")


def report(*findings: ReportFinding, cost: float = 0.42, workflow: str | None = None) -> Report:
    seen = ["src/orders/api.py", "src/orders/db.py"]
    return Report(
        run_id="run-7",
        workflow=workflow,
        findings=list(findings),
        providers=[
            ProviderReport(model=m, family=m.split("/")[0], status="ok", files_seen=seen)
            for m in ("anthropic/claude-sonnet-4-5", "google/gemini-2.5-pro", "openai/gpt-5.1")
        ],
        stats=Stats(calls=6, tokens_in=9_000, tokens_out=1_200, cost_usd=cost),
        quorum=Quorum(families_answered=3, min_providers=2, met=True),
        threshold=0.75,
    )


def tracked(item: ReportFinding, *, resolved: bool = False) -> TrackedFinding:
    return TrackedFinding(
        fingerprint=item.fingerprint,
        id=item.id,
        path=item.path,
        line=item.line,
        severity=item.severity,
        title=item.title,
        inline=True,
        resolved=resolved,
        resolved_reason="fixed" if resolved else "",
    )


def view(thread: PullRequestThread | None = None, **given: object) -> PullView:
    fields: dict[str, object] = {
        "thread": thread or PullRequestThread(),
        "head_sha": HEAD,
        "changed": frozenset({"src/orders/db.py", "src/orders/api.py"}),
        "links": ("https://github.com/acme/shop/",),
        "settings": PublishSettings(),
    }
    return PullView(**(fields | given))  # type: ignore[arg-type]


def composed(made: Report, pull: PullView):  # type: ignore[no-untyped-def]
    diff = ingest(DIFF)
    carried = carry_forward(pull.thread.state, diff, basis=BASIS, fresh=False)
    return compose(made, carried, diff, pull)


def test_a_run_composes_its_review_its_inline_comments_and_the_summary_with_its_state() -> None:
    publication = composed(report(SQL, CHARGE), view())
    review = publication.plan.review
    assert review is not None and not review.requests_changes
    assert [(c.path, c.line) for c in review.comments] == [
        ("src/orders/db.py", 11),
        ("src/orders/api.py", 41),
    ]
    assert publication.summary.startswith(SUMMARY_MARKER)
    state = decode_state(publication.summary)
    assert state is not None and state == publication.state
    assert [t.id for t in state.findings] == ["F1", "F2"]
    assert state.spent is not None and state.spent.cost_usd == 0.42  # this run's, kept
    assert state.decisions is not None  # what the next run may carry
    assert publication.step_summary == publication.summary.rsplit("\n", 1)[0]  # no state
    assert publication.posted == (Severity.HIGH, Severity.HIGH)
    assert publication.summary_id is None  # a new comment: none was on the PR


def test_a_suggestion_is_fenced_for_the_host_that_applies_it() -> None:
    fixed = '    return conn.execute("SELECT * FROM orders WHERE id = ?", (order_id,))'
    offer = {"provider": "openai/gpt-5.1", "line": 11, "end_line": 12, "text": fixed}
    sql = finding(1, "src/orders/db.py", 11, "SQL injection in find_order", end_line=12)
    sql = ReportFinding.model_validate({**sql.model_dump(), "suggestion": offer})
    on_github = composed(report(sql), view()).plan.review
    on_gitlab = composed(report(sql), view(words=GITLAB_WORDS)).plan.review
    assert on_github is not None and on_gitlab is not None
    [github], [gitlab] = on_github.comments, on_gitlab.comments
    assert (gitlab.start_line, gitlab.line) == (github.start_line, github.line) == (11, 12)
    assert "```suggestion\n" in github.body and "suggestion:-" not in github.body
    # GitLab places the note on line 12 and counts the suggestion up from it
    assert gitlab.body == github.body.replace("```suggestion\n", "```suggestion:-1+0\n")


def test_what_earlier_runs_spent_adds_up_in_the_state() -> None:
    earlier = PullRequestThread(summary_id=5, state=PublishState(spent=Spent(cost_usd=1.0)))
    publication = composed(report(SQL, cost=0.5), view(earlier))
    assert publication.state.spent is not None and publication.state.spent.cost_usd == 1.5
    assert publication.summary_id == 5


def test_a_finding_gone_resolves_its_thread_and_one_that_came_back_reopens_it() -> None:
    gone = finding(3, "src/orders/db.py", 12, "Unclosed cursor")
    state = PublishState(head_sha="1" * 40, findings=(tracked(gone), tracked(SQL, resolved=True)))
    publication = composed(report(SQL), view(PullRequestThread(summary_id=5, state=state)))
    threads = publication.threads
    assert threads.resolve == {gone.fingerprint}
    assert SQL.fingerprint in threads.open_now & threads.earlier  # it came back
    assert threads.any


def test_a_dismissed_finding_is_not_posted_nor_counted_for_fail_on() -> None:
    from consensus.publish.state import Dismissal

    state = PublishState(dismissed=(Dismissal(fingerprint=SQL.fingerprint, by="maria"),))
    publication = composed(report(SQL, CHARGE), view(PullRequestThread(state=state)))
    placements = {p.finding.id: p.placement for p in publication.plan.placed}
    assert placements == {"F1": Placement.DISMISSED, "F2": Placement.INLINE}
    assert publication.posted == (Severity.HIGH,)
    assert publication.open_findings == 1


def test_comments_the_host_refused_go_to_the_summary_and_the_page_is_composed_again() -> None:
    publication = composed(report(SQL, CHARGE), view())
    refused = publication.refused({CHARGE.fingerprint}, "GitHub refused the inline comment")
    assert refused.plan.review is not None
    assert [c.path for c in refused.plan.review.comments] == ["src/orders/db.py"]
    assert "here: GitHub refused the inline comment" in refused.summary
    assert CHARGE.fingerprint not in refused.threads.open_now
    assert [t.inline for t in refused.state.findings] == [True, False]
    assert refused.without_review().plan.review is None


def test_a_saved_workflow_composes_its_own_section_and_leaves_the_default_page() -> None:
    default = composed(report(CHARGE), view())
    page = PullRequestThread(summary_id=5, summary_body=default.summary, state=default.state)
    audit = parse_workflow(SECURITY_AUDIT, path=".consensus/workflows/security-audit.md")
    publication = composed(report(SQL, workflow="security-audit"), view(page, workflow=audit))
    sections = workflow_sections(publication.summary)
    assert list(sections) == ["security-audit"]
    assert "SQL injection in find_order" in "\n".join(sections["security-audit"])
    assert publication.step_summary == "\n".join(sections["security-audit"])
    state = decode_state(publication.summary)
    assert state is not None
    assert [t.id for t in state.findings] == ["F2"]  # the default review's, as they were
    own = state.workflow("security-audit")
    assert own is not None and own.head_sha == HEAD and [t.id for t in own.findings] == ["F1"]
    assert state.spent is not None  # the PR's spend is the page's, never the section's
    assert "charge() is not awaited" in publication.summary  # the default page is kept


def test_the_default_review_carries_every_workflows_section_over() -> None:
    section = [
        "<!-- consensus:workflow=security-audit -->",
        "### Workflow `security-audit`",
        "<!-- /consensus:workflow=security-audit -->",
    ]
    body = render_summary(
        report(), composed(report(), view()).plan, head_sha=HEAD, words=GITHUB_WORDS
    )
    body = body.replace("<sub>run ", "\n".join(section) + "\n\n<sub>run ", 1)
    state = PublishState(workflows=(WorkflowState(name="security-audit"),))
    thread = PullRequestThread(summary_id=5, summary_body=body + "\n" + encode_state(state))
    publication = composed(report(SQL), view(thread))
    assert workflow_sections(publication.summary)["security-audit"] == section
    assert "security-audit" not in publication.step_summary
