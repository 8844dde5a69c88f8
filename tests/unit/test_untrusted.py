"""The sanitiser (render/untrusted.py), and every renderer driven with hostile text.

The oracle is CommonMark itself (tests/markdown_oracle.py): a page is rendered once
with plain words where the untrusted text goes and once with a hostile string, and the
hostile page may hold nothing live that the plain one does not: no HTML tag or comment,
no link or image, no autolink, mention or issue reference in text, no invisible or
reordering character, and none of our own tags swallowed by a fence it left open.
"""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consensus.app.talk.commands import handle_comment
from consensus.app.wiring import action_step, services
from consensus.model.base import Category, Severity, Status, VerdictKind
from consensus.model.diff import SkippedFile
from consensus.model.events import IssueCommentEvent
from consensus.model.findings import Verification, Vote
from consensus.model.flow_result import ResultKind
from consensus.model.host import GITHUB_WORDS
from consensus.model.report import (
    FindingMember,
    ProviderReport,
    Quorum,
    Report,
    ReportFinding,
    Votes,
)
from consensus.ports import PullFile, PullRequestInfo
from consensus.publish.answers import (
    Section,
    explain_section,
    help_section,
    render_answer,
    verified_section,
)
from consensus.publish.inline import inline_body
from consensus.publish.plan import Scope, plan_publish
from consensus.publish.records import finding_record
from consensus.publish.state import (
    Dismissal,
    FindingRecord,
    PublishState,
    TrackedFinding,
    encode_state,
)
from consensus.publish.state_section import new_summary
from consensus.publish.summary import render_summary
from consensus.publish.thread import SUMMARY_MARKER, PullRequestThread
from consensus.queue.standing import GateFinding, QueueEntry, QueueStatus, QueueView, Risk
from consensus.queue.writes import comment_body, gate_review_body, render_queue_markdown
from consensus.render.markdown import render_markdown
from consensus.render.untrusted import (
    ZWJ,
    code,
    escape_line,
    escape_markdown_text,
    is_login,
    person,
)
from consensus.settings.command_files import load_commands
from consensus.settings.config import PublishSettings
from consensus.testing import FakeGitHubHost, FakePull
from tests.markdown_oracle import REPO_LINK, live

PLAIN = "plain words"


def added(render: Callable[[str], str], hostile: str) -> Counter[str]:
    """What the hostile text makes live that plain words do not."""
    return live(render(hostile)) - live(render(PLAIN))


# --------------------------------------------------------------------------- hostile text

FRAGMENTS = [
    "@octocat", "@acme/security", " @everyone ", "![t](https://tracker.example/t.png)",
    "[x](https://evil.example)", "[x][r]\n\n[r]: https://evil.example", "<https://evil.example>",
    "https://evil.example/p", "www.evil.example", "mail me@evil.example", "<img src=x onerror=a>",
    "<!--", "-->", "<details>", "</details>", "```", "~~~", "```mermaid\n", "\n", "\n\n",
    "    ", "   ", "- ", "> ", "`", "``", "\\", "[", "]", "(", ")", "|", "#12", "GH-7",
    "acme/other#3", "\u200d", "\u202e", "\u2066", "\u200b", "\ufeff", "&#64;", "&lt;", "*",
    "_", "F1", " ", "a", "1. ", "\t", "&amp;", "javascript:alert(1)",
]  # fmt: skip
hostile_text = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=24).map("".join),
    st.text(max_size=60),
)

# --------------------------------------------------------------------------- the renderers


def finding(text: str, n: int = 1, status: Status = Status.CONSENSUS) -> ReportFinding:
    votes = (
        Vote(model="openai/o", family="openai", role="inspector", verdict=None, reason=text),
        Vote(
            model="google/g",
            family="google",
            role="voter",
            verdict=VerdictKind.REFUTED,
            reason=text,
        ),
    )
    return ReportFinding(
        id=f"F{n}",
        fingerprint=f"{n:016x}",
        path="src/app.py",
        line=3,
        end_line=3,
        severity=Severity.HIGH,
        category=Category.BUG,
        title=text,
        body=text,
        agreement=0.75,
        votes=Votes(**{"for": 3, "of": 4}),
        providers=["anthropic/c", "google/g", "openai/o"],
        personas=["correctness"],
        status=status,
        reason=text,
        verification=Verification(confirmed=1, refuted=1, votes=votes, note=text),
        members=(
            FindingMember(provider="openai/o", family="openai", persona="x", line=3, title=text),
        ),
    )


def report(text: str) -> Report:
    return Report(
        run_id="r1",
        findings=[
            finding(text, 1),
            finding(text, 2, Status.UNDECIDED),
            finding(text, 3, Status.REJECTED),
        ],
        providers=[
            ProviderReport(
                model="openai/o",
                family="openai",
                status="failed",
                error=text,
                files_seen=["src/app.py"],
            )
        ],
        quorum=Quorum(families_answered=1, min_providers=2, met=False),
        threshold=0.75,
        skipped_files=[SkippedFile(path="yarn.lock", reason=text)],
        notes=[text],
    )


def state(text: str) -> PublishState:
    """What a believed state may hold: free text anywhere it is allowed."""
    tracked = TrackedFinding(
        fingerprint=f"{9:016x}",
        id="F9",
        path="src/old.py",
        line=2,
        severity=Severity.LOW,
        title=text[:300],
        inline=False,
        resolved=True,
        resolved_reason=text[:300],
    )
    dismissal = Dismissal(
        fingerprint=f"{1:016x}", id="F1", title=text[:300], by="maria", reason=text[:300]
    )
    return PublishState(findings=(tracked,), dismissed=(dismissal,))


def summary_page(text: str, *, with_state: bool = True) -> str:
    thread = PullRequestThread(state=state(text))
    plan = plan_publish(
        report(text),
        thread,
        PublishSettings(),
        scope=Scope(head_sha="h" * 40, reviewed={"src/app.py"}, in_diff={"src/app.py"}),
        hunks={"src/app.py": (frozenset({3}),)},
        links=[REPO_LINK],
    )
    return render_summary(
        report(text),
        plan,
        head_sha="h" * 40,
        words=GITHUB_WORDS,
        links=[REPO_LINK],
        notices=[text],
        with_state=with_state,
    )


def record(text: str) -> FindingRecord:
    return finding_record(finding(text))


def reply_page(text: str) -> str:
    specs = load_commands()
    sections = [
        explain_section(record(text), None, state(text).dismissed[0]),
        verified_section(record(text)),
        help_section(specs, words=GITHUB_WORDS, unknown=text),
        Section("/consensus dismiss F1", f"Dismissed F1 ({escape_line(text)})"),
    ]
    return render_answer(7, "maria", sections)


def queue_pages(text: str) -> str:
    entry = QueueEntry(
        number=4,
        title=text,
        author=text,
        status=QueueStatus.CONFLICT,
        risk=Risk(score=1, max_severity=None, changed_lines=3, sensitive=()),
        conflicts_with=(2,),
        conflict_at=text,
        reviewers=(text,),
    )
    view = QueueView(entries=(entry,), max_in_review=3, in_review=1)
    now = datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc)
    gate = GateFinding(id="F1", severity=Severity.HIGH, title=text, path=text, line=3)
    return "\n\n".join(
        [
            comment_body(entry, view),
            gate_review_body([gate], "h" * 40),
            render_queue_markdown(view, now),
        ]
    )


RENDERERS: dict[str, Callable[[str], str]] = {
    "reply": reply_page,
    "summary comment": summary_page,
    "step summary": lambda text: summary_page(text, with_state=False),
    "inline comment": lambda text: inline_body(finding(text), [REPO_LINK]),
    "markdown report": lambda text: render_markdown(report(text)),
    "queue comment, gate review, queue table": queue_pages,
    "summary rewritten for a command": lambda text: new_summary(state(text), GITHUB_WORDS, [text]),
}


@pytest.mark.parametrize("name", RENDERERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile_text)
def test_no_renderer_lets_hostile_text_act(name: str, text: str) -> None:
    assert added(RENDERERS[name], text) == Counter(), RENDERERS[name](text)


@pytest.mark.parametrize(
    "text",
    [
        "@acme/security",
        "![t](https://tracker.example/t.png)",
        "[x](https://evil.example)",
        "<img src=x onerror=alert(1)> @everyone [link](http://evil)",
        "```\n<img src=x>",
        "   ```\n  <img src=x onerror=a>",  # a fence we close where CommonMark does
        "- a\n\n  ```\n     ```\n  <img src=x onerror=a>",  # a closer deeper than the opener
        "- a\n\n  ~~~\n  x",  # closed inside its list item, not by a new fence
        "`a\nb` <img src=x onerror=a> `c`",  # a code span that began a line earlier
        "\\`@octocat`",
        "x\u202edcb\u2066 @\u200dy",
        "[r]: https://evil.example\n\n[see][r]",
    ],
)
def test_known_escapes_stay_closed(text: str) -> None:
    for name, render in RENDERERS.items():
        assert added(render, text) == Counter(), name


# --------------------------------------------------------------------------- the sanitiser


def test_what_it_keeps_readable() -> None:
    out = escape_markdown_text("see `a < b && @x` and\n```py\nif a < b: ping(@me)\n```")
    assert "`a < b && @x`" in out and "if a < b: ping(@me)" in out
    assert escape_line("ping @octocat about #12") == f"ping @{ZWJ}octocat about #{ZWJ}12"
    link = f"{REPO_LINK}blob/main/app.py#L3"
    assert escape_line(f"[here]({link})", allowed_links=[REPO_LINK]) == f"[here]({link})"
    assert escape_line("[here](https://evil.example/x)", allowed_links=[REPO_LINK]) == (
        f"\\[here\\](https{ZWJ}://evil.example/x)"
    )


def test_a_gitlab_merge_request_reference_is_not_linked() -> None:
    assert escape_line("same as !12 and acme/shop!7") == f"same as !{ZWJ}12 and acme/shop!{ZWJ}7"
    assert escape_line("not equal: a != b!") == "not equal: a != b!"


@pytest.mark.parametrize("login", ["maria.k", "dev_ops", "project_7_bot_5e1f0a", "a"])
def test_a_gitlab_username_is_a_login(login: str) -> None:
    assert is_login(login) and person(login) == f"@{ZWJ}{login}"


@pytest.mark.parametrize("text", ["acme/security", "maria.", "-maria", "a b", "maria@x", ""])
def test_what_is_no_login_on_either_host(text: str) -> None:
    assert not is_login(text)


def test_invisible_characters_show() -> None:
    assert escape_line("a\u202eb\u200bc\u200dd") == "a\ufffdb\ufffdc\ufffdd"
    assert code("x\u2066y") == "`x\ufffdy`"


def test_a_login_is_named_without_a_ping_and_anything_else_is_code() -> None:
    assert person("maria") == f"@{ZWJ}maria"
    assert person("acme/security") == "`acme/security`"
    assert person("<b>x</b>") == "`<b>x</b>`"


def test_unclosed_fence_is_closed_at_the_openers_indentation() -> None:
    assert escape_markdown_text("  ~~~\n  code") == "  ~~~\n  code\n  ~~~"
    assert escape_markdown_text("  ~~~\ncode <b>") == "  ~~~\n  ~~~\ncode &lt;b&gt;"
    assert escape_markdown_text("```mermaid\ngraph TD;\n```").startswith("```text\n")


# --------------------------------------------------------------------------- hole 1, in process


def host_with_pull() -> FakeGitHubHost:
    host = FakeGitHubHost(permissions={"maria": "write", "randall": "read"})
    info = PullRequestInfo(number=5, head_sha="h" * 40, base_sha="b" * 40, base_repo="acme/service")
    host.add_pull(FakePull(info=info, files=[PullFile(path="src/app.py", status="modified")]))
    line = encode_state(PublishState(findings=state(PLAIN).findings, records=(record(PLAIN),)))
    host.create_issue_comment(5, f"{SUMMARY_MARKER}\n## consensus review\n{line}")
    return host


def comment(host: FakeGitHubHost, body: str, login: str) -> str:
    comment_id = host.seed_comment(5, body, author=login)
    event = IssueCommentEvent.model_validate(
        {
            "action": "created",
            "issue": {"number": 5, "pull_request": {"url": "x"}},
            "comment": {"id": comment_id, "body": body, "user": {"login": login, "type": "User"}},
        }
    )
    env = {"GITHUB_REPOSITORY": "acme/service", "CONSENSUS_POST_INTERVAL": "0"}
    wired = services(env, log=lambda line: None, github=host)
    assert handle_comment(wired, action_step(env), event).kind is not ResultKind.INCOMPLETE
    return host.issue_comment_list[-1].body


@settings(max_examples=40, deadline=None)
@given(
    text=hostile_text.filter(
        lambda t: t.strip() and "\n" not in t and not re.match(r"[Ff]\d", t.strip())
    )
)
def test_command_arguments_and_reasons_never_come_back_live(text: str) -> None:
    for command, login in (("explain", "randall"), ("dismiss F1", "maria")):
        plain = live(comment(host_with_pull(), f"/consensus {command} {PLAIN}", login))
        reply = comment(host_with_pull(), f"/consensus {command} {text}", login)
        assert live(reply) - plain == Counter(), reply
