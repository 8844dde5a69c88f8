"""The python-gitlab adapter against the loopback GitLab: each port method sends the
request GitLab expects and reads its answer; positions land where GitLab shows them;
failures are retried boundedly or become a GitLabError with a fix."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consensus.adapters.gitlab import GitLabHost
from consensus.adapters.retries import Retries
from consensus.errors import GitLabError
from consensus.ports import InlineComment, ReviewRejected
from consensus_sim.gitlab import DEVELOPER, MAINTAINER, REPORTER, FakeGitLab

PROJECT = "acme/service"
TOKEN = "glpat-consensus-bot-token"
BOT = "project_7_bot_3f9a2c"
BASE = {
    ".consensus.yml": "threshold: 0.5\n",
    "billing/invoice.py": "".join(f"line {n}\n" for n in range(1, 31)),
    "billing/tax.py": "RATE = 0.2\n",
    "docs/notes.md": "# Notes\n",
}
HEAD = {
    **BASE,
    # line 5 replaced, line 20 removed, two lines added after line 25
    "billing/invoice.py": "".join(
        "line 5 fixed\n"
        if n == 5
        else ""
        if n == 20
        else f"line {n}\n" + ("x\ny\n" if n == 25 else "")
        for n in range(1, 31)
    ),
    "billing/tax.py": "RATE = 0.21\n",
}


@pytest.fixture
def gitlab() -> Iterator[FakeGitLab]:
    with FakeGitLab() as server:
        server.project(PROJECT, ident=7)
        server.user(BOT, bot=True, token=TOKEN)
        server.add_member(PROJECT, BOT, DEVELOPER)
        server.add_member(PROJECT, "maria", MAINTAINER)
        server.add_member(PROJECT, "dev", DEVELOPER)
        server.add_member(PROJECT, "rita", REPORTER)
        server.user("outsider")
        server.add_merge_request(PROJECT, 12, base=BASE, head=HEAD, author="dev", title="Tax")
        yield server


def host(server: FakeGitLab, waits: list[float] | None = None, **kwargs: object) -> GitLabHost:
    sleeps = waits if waits is not None else []
    return GitLabHost(
        "7",
        token=str(kwargs.pop("token", TOKEN)),
        api_url=server.api_url,
        retries=Retries(sleep=sleeps.append, attempts=3),
        **kwargs,  # type: ignore[arg-type]
    )


def positions(server: FakeGitLab) -> list[dict[str, object]]:
    return [d["notes"][0]["position"] for d in server.project(PROJECT).discussions]


def comment(
    line: int, start: int | None = None, side: str = "RIGHT", text: str = "x"
) -> InlineComment:
    body = f"**high** · {text}\n<!-- consensus:fp=0a1b2c3d{line:04d} -->"
    return InlineComment(
        path="billing/invoice.py", line=line, start_line=start, side=side, body=body
    )  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- reading


def test_the_merge_request_is_read_with_its_diff_refs_and_target_branch(gitlab: FakeGitLab) -> None:
    info = host(gitlab).pull_request(12)
    version = gitlab.project(PROJECT).merge_requests[12].latest
    assert (info.number, info.title, info.author, info.state) == (12, "Tax", "dev", "open")
    assert (info.head_sha, info.base_sha, info.base_ref) == (
        version.head_sha,
        version.base_sha,
        "main",
    )
    assert info.base_repo == info.head_repo == PROJECT and info.changed_files == 2


def test_a_fork_merge_request_names_the_fork_or_none_when_gitlab_hides_it(
    gitlab: FakeGitLab,
) -> None:
    mr = gitlab.project(PROJECT).merge_requests[12]
    mr.source_project_id = 19
    assert host(gitlab).pull_request(12).head_repo is None  # not visible to the token
    fork = gitlab.project("bob/service", ident=19)
    fork.members[gitlab.user(BOT).id] = DEVELOPER
    assert host(gitlab).pull_request(12).head_repo == "bob/service"


def test_files_come_with_their_diffs_and_a_diff_gitlab_left_out_is_none(gitlab: FakeGitLab) -> None:
    mr = gitlab.project(PROJECT).merge_requests[12]
    mr.latest.diffs.append(
        {
            **mr.latest.diffs[0],
            "new_path": "big.json",
            "old_path": "big.json",
            "too_large": True,
            "diff": "",
        }
    )
    files = {f.path: f for f in host(gitlab).pull_files(12)}
    assert files["billing/tax.py"].patch == "@@ -1 +1 @@\n-RATE = 0.2\n+RATE = 0.21"
    assert (files["billing/tax.py"].additions, files["billing/tax.py"].deletions) == (1, 1)
    assert files["big.json"].patch is None


def test_a_merge_request_of_many_files_is_read_page_by_page(gitlab: FakeGitLab) -> None:
    head = {**BASE, **{f"gen/f{n}.py": f"v = {n}\n" for n in range(230)}}
    gitlab.add_merge_request(PROJECT, 13, base=BASE, head=head)
    assert len(host(gitlab).pull_files(13)) == 230
    pages = [r.query["page"] for r in gitlab.requests if r.path.endswith("/13/diffs")]
    assert pages == ["1", "2", "3"]


def test_files_are_read_at_the_target_branch_commit(gitlab: FakeGitLab) -> None:
    adapter = host(gitlab)
    base = adapter.pull_request(12).base_sha
    assert adapter.read_file(".consensus.yml", base) == "threshold: 0.5\n"
    assert adapter.read_file("billing/tax.py", base) == "RATE = 0.2\n"  # not the MR's head
    assert adapter.read_file("missing.yml", base) is None
    assert adapter.read_file("../../etc/passwd", base) is None
    assert adapter.read_files(["billing/tax.py", "nope"], base) == {
        "billing/tax.py": "RATE = 0.2\n",
        "nope": None,
    }
    assert adapter.list_dir("billing", base) == ["invoice.py", "tax.py"]
    assert adapter.list_dir("", base) == [".consensus.yml"]  # files only, not folders
    assert adapter.list_dir(".consensus/personas", base) is None
    read = next(r for r in gitlab.requests if "/repository/files/" in r.path)
    assert read.path == "/projects/7/repository/files/.consensus.yml" and read.query == {
        "ref": base
    }


def test_the_default_branch_and_the_token_user(gitlab: FakeGitLab) -> None:
    assert host(gitlab).default_branch() == "main"
    assert host(gitlab).viewer_login() == BOT


@pytest.mark.parametrize(
    ("login", "permission"),
    [
        ("maria", "maintain"),
        ("dev", "write"),
        ("rita", "triage"),
        ("outsider", "none"),
        ("ghost-user", "none"),
    ],
)
def test_a_role_is_asked_of_the_project_members_api(
    gitlab: FakeGitLab, login: str, permission: str
) -> None:
    assert host(gitlab).collaborator_permission(login) == permission


# ---------------------------------------------------------------------------- comments


def test_conversation_notes_exclude_diff_notes_and_system_notes(gitlab: FakeGitLab) -> None:
    adapter = host(gitlab)
    gitlab.add_note(PROJECT, 12, "/consensus review", "maria")
    adapter.create_review(12, commit_sha="", body="", event="COMMENT", comments=[comment(5)])
    system = gitlab.add_note(PROJECT, 12, "added 1 commit", "dev")
    system["system"] = True
    notes = adapter.issue_comments(12)
    assert [(n.body, n.author, n.author_is_bot) for n in notes] == [
        ("/consensus review", "maria", False)
    ]


def test_a_summary_note_is_posted_edited_in_place_and_deleted(gitlab: FakeGitLab) -> None:
    adapter = host(gitlab)
    posted = adapter.create_issue_comment(12, "## consensus\n<!-- consensus:summary -->")
    assert posted.author == BOT and posted.author_is_bot
    assert adapter.comment_edit(posted) is None  # never edited
    adapter.edit_issue_comment(
        12, posted.id, "## consensus · 2 findings\n<!-- consensus:summary -->"
    )
    (shown,) = adapter.issue_comments(12)
    assert shown.id == posted.id and "2 findings" in shown.body
    edit = adapter.comment_edit(shown)
    assert edit is not None and edit.editor == BOT
    gitlab.edit_note(PROJECT, posted.id, "tampered", "maria")
    edit = adapter.comment_edit(shown)
    assert edit is not None and edit.editor == "maria"
    adapter.delete_issue_comment(12, posted.id)
    adapter.delete_issue_comment(12, posted.id)  # already gone: what we wanted
    assert adapter.issue_comments(12) == []


def test_an_instance_that_cannot_say_who_edited_a_note_is_a_warning_not_a_failure(
    gitlab: FakeGitLab,
) -> None:
    lines: list[str] = []
    adapter = host(gitlab, log=lines.append)
    posted = adapter.create_issue_comment(12, "## consensus\n<!-- consensus:summary -->")
    gitlab.fail_next(
        "POST", r"^/api/graphql$", 400, message="Field 'lastEditedBy' doesn't exist on 'Note'"
    )
    assert adapter.comment_edit(posted) is None  # believed: only Maintainers edit our notes
    assert "who last edited note" in lines[-1] and "lastEditedBy" in lines[-1]


def test_a_summary_edited_by_a_maintainer_names_them_and_the_time_in_graphqls_form(
    gitlab: FakeGitLab,
) -> None:
    adapter = host(gitlab)
    posted = adapter.create_issue_comment(12, "## consensus\n<!-- consensus:summary -->")
    gitlab.edit_note(PROJECT, posted.id, "## consensus\n<!-- consensus:state paused -->", "maria")
    edit = adapter.comment_edit(posted)
    assert edit is not None and edit.editor == "maria"
    assert edit.edited_at == "2026-01-02T00:00:00Z"  # GraphQL's Time: whole seconds


def test_a_note_graphql_answers_null_for_is_a_warning_not_never_edited(gitlab: FakeGitLab) -> None:
    lines: list[str] = []
    adapter = host(gitlab, log=lines.append)
    posted = adapter.create_issue_comment(12, "## consensus\n<!-- consensus:summary -->")
    adapter.delete_issue_comment(12, posted.id)  # gone between reading the notes and asking
    assert adapter.comment_edit(posted) is None  # believed, as when GitLab cannot answer
    assert f"who last edited note {posted.id} is unknown" in lines[-1]
    assert "no such note, or the token may not read it" in lines[-1]


def test_a_reaction_is_an_award_emoji_and_giving_it_twice_is_no_error(gitlab: FakeGitLab) -> None:
    note = gitlab.add_note(PROJECT, 12, "/consensus review", "maria")
    adapter = host(gitlab)
    adapter.add_reaction(12, int(note["id"]), "eyes")
    adapter.add_reaction(12, int(note["id"]), "eyes")
    assert [a["name"] for a in gitlab.project(PROJECT).awards] == ["eyes"]


# ---------------------------------------------------------------------------- inline


def test_inline_comments_land_on_added_deleted_context_and_multi_line_positions(
    gitlab: FakeGitLab,
) -> None:
    adapter = host(gitlab)
    version = gitlab.project(PROJECT).merge_requests[12].latest
    comments = [comment(5), comment(20, side="LEFT"), comment(7), comment(26, start=24)]
    first = adapter.create_review(
        12, commit_sha=version.head_sha, body="", event="COMMENT", comments=comments
    )
    placed = positions(gitlab)
    assert first == gitlab.project(PROJECT).discussions[0]["notes"][0]["id"]
    assert [(p.get("old_line"), p.get("new_line")) for p in placed] == [
        (None, 5),  # added
        (20, None),  # deleted
        (7, 7),  # unchanged context
        (None, 26),  # multi-line (context 24 to added 26), on its last line
    ]
    assert {p["head_sha"] for p in placed} == {version.head_sha}
    ranged = placed[3]["line_range"]
    assert (ranged["start"]["type"], ranged["start"]["old_line"], ranged["start"]["new_line"]) == (  # type: ignore[index]
        "old",
        25,
        24,
    )
    assert (ranged["end"]["type"], ranged["end"]["new_line"]) == ("new", 26)  # type: ignore[index]


def test_a_comment_outside_the_diff_refuses_the_review_and_nothing_is_posted(
    gitlab: FakeGitLab,
) -> None:
    with pytest.raises(ReviewRejected) as refused:
        host(gitlab).create_review(
            12, commit_sha="", body="", event="COMMENT", comments=[comment(5), comment(15)]
        )
    assert refused.value.errors == (
        "billing/invoice.py: line 15 (RIGHT) is not in the merge request's diff",
    )
    assert gitlab.project(PROJECT).discussions == []


def test_gitlab_refusing_a_position_is_a_rejected_review(gitlab: FakeGitLab) -> None:
    gitlab.fail_next(
        "POST",
        "/discussions$",
        400,
        message='400 Bad request - Note {:line_code=>["can\'t be blank"]}',
    )
    with pytest.raises(ReviewRejected, match="line_code"):
        host(gitlab).create_review(
            12, commit_sha="", body="", event="COMMENT", comments=[comment(5)]
        )


def test_a_comment_already_posted_is_not_posted_again(gitlab: FakeGitLab) -> None:
    adapter = host(gitlab)
    adapter.create_review(12, commit_sha="", body="", event="COMMENT", comments=[comment(5)])
    adapter.create_review(
        12, commit_sha="", body="", event="COMMENT", comments=[comment(5), comment(7)]
    )
    assert len(gitlab.project(PROJECT).discussions) == 2


def test_after_a_push_comments_are_placed_on_the_version_of_their_commit(
    gitlab: FakeGitLab,
) -> None:
    old = gitlab.project(PROJECT).merge_requests[12].latest
    gitlab.push(PROJECT, 12, {**HEAD, "billing/tax.py": "RATE = 0.22\n"})
    host(gitlab).create_review(
        12, commit_sha=old.head_sha, body="", event="COMMENT", comments=[comment(5)]
    )
    assert positions(gitlab)[0]["head_sha"] == old.head_sha


def test_replies_reactions_threads_and_resolving(gitlab: FakeGitLab) -> None:
    adapter = host(gitlab)
    adapter.create_review(12, commit_sha="", body="", event="COMMENT", comments=[comment(5)])
    (ours,) = adapter.review_comments(12)
    gitlab.reply(PROJECT, 12, ours.id, "Is this really a bug?", "maria")
    gitlab.award(PROJECT, ours.id, "thumbsup", "maria")
    gitlab.award(PROJECT, ours.id, "thumbsdown", "dev")
    assert [(r.content, r.user) for r in adapter.review_comment_reactions(12, ours.id)] == [
        ("+1", "maria"),
        ("-1", "dev"),
    ]
    answer = adapter.reply_to_review_comment(12, ours.id, "Yes: line 5 drops the rounding.")
    assert answer.in_reply_to == ours.id and answer.path == "billing/invoice.py"
    replies = [c for c in adapter.review_comments(12) if c.in_reply_to == ours.id]
    assert [c.author for c in replies] == ["maria", BOT]
    (thread,) = adapter.review_threads(12)
    assert not thread.resolved and thread.first.id == ours.id and thread.last.id == answer.id
    adapter.set_thread_resolved(12, thread.id, True)
    (thread,) = adapter.review_threads(12)
    assert thread.resolved and thread.resolved_by == BOT
    adapter.set_thread_resolved(12, thread.id, False)
    assert not adapter.review_threads(12)[0].resolved
    adapter.delete_review_comment(12, answer.id)
    assert [c.id for c in adapter.review_comments(12)] == [ours.id, replies[0].id]


def test_a_note_never_read_is_reached_under_the_merge_request_the_call_names(
    gitlab: FakeGitLab,
) -> None:
    note = gitlab.add_note(PROJECT, 12, "/consensus help", "maria")
    host(gitlab).add_reaction(12, int(note["id"]), "eyes")  # nothing read first
    assert [a["name"] for a in gitlab.project(PROJECT).awards] == ["eyes"]
    with pytest.raises(GitLabError) as elsewhere:
        host(gitlab).add_reaction(99, int(note["id"]), "eyes")
    assert elsewhere.value.status == 404


# ---------------------------------------------------------------------------- failures


def test_a_rate_limit_waits_for_retry_after(gitlab: FakeGitLab) -> None:
    gitlab.fail_next("GET", "/merge_requests/12$", 429, headers={"Retry-After": "7"})
    waits: list[float] = []
    assert host(gitlab, waits).pull_request(12).number == 12
    assert waits == [7.0]


def test_a_wait_longer_than_allowed_gives_up_and_says_so(gitlab: FakeGitLab) -> None:
    gitlab.fail_next("GET", "/merge_requests/12$", 429, headers={"Retry-After": "3600"})
    with pytest.raises(GitLabError, match="GitLab asked to wait 3600s") as waited:
        host(gitlab).pull_request(12)
    assert waited.value.status == 429 and waited.value.fix


def test_a_note_that_landed_before_a_502_is_not_posted_twice(gitlab: FakeGitLab) -> None:
    gitlab.fail_next("POST", "/merge_requests/12/notes$", 502, after=True)
    waits: list[float] = []
    posted = host(gitlab, waits).create_issue_comment(
        12, "## consensus\n<!-- consensus:summary -->"
    )
    assert waits == [1.0] and posted.body.startswith("## consensus")
    assert len(gitlab.project(PROJECT).notes(12)) == 1


def test_a_wrong_token_is_an_error_naming_the_variable_to_fix(gitlab: FakeGitLab) -> None:
    with pytest.raises(GitLabError) as refused:
        host(gitlab, token="glpat-revoked").pull_request(12)
    assert refused.value.status == 401 and "401" in refused.value.message
    assert refused.value.fix and "masked CI/CD variable" in refused.value.fix
    assert host(gitlab, token="glpat-revoked").viewer_login() is None


def test_a_project_the_token_cannot_see_is_a_404_with_a_fix(gitlab: FakeGitLab) -> None:
    gitlab.project("other/private", ident=99)
    adapter = GitLabHost("99", token=TOKEN, api_url=gitlab.api_url)
    with pytest.raises(GitLabError, match="HTTP 404") as hidden:
        adapter.default_branch()
    assert hidden.value.fix and "CI_PROJECT_ID" in hidden.value.fix


def test_a_self_managed_instance_under_a_relative_root_is_reached_there() -> None:
    with FakeGitLab(prefix="/gitlab") as server:
        server.project(PROJECT, ident=7)
        server.user(BOT, bot=True, token=TOKEN)
        server.add_member(PROJECT, BOT, DEVELOPER)
        server.add_merge_request(PROJECT, 1, base=BASE, head=HEAD)
        assert server.api_url.endswith("/gitlab/api/v4")
        adapter = GitLabHost("7", token=TOKEN, api_url=server.api_url)
        assert adapter.pull_request(1).number == 1
        assert adapter.viewer_login() == BOT
