"""Held to GitLab's GraphQL schema (the part of it in tests/data/gitlab/note_schema.graphql,
checked by tests/contract/gitlab_graphql.py):

- the one document the GitLab adapter sends, who last edited a note, is valid in GitLab's
  schema, with the note's global ID as GitLab takes it, whatever the kind of note;
- the loopback GitLab answers it with GitLab's types (tests/conftest.py checks every
  loopback GitLab of the suite the same way);
- the checker itself finds what GitLab would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consensus.adapters.gitlab import GitLabHost
from consensus.adapters.gitlab_wire import EDIT_QUERY, note_comment
from consensus_sim.gitlab import DEVELOPER, MAINTAINER, FakeGitLab
from tests.contract.gitlab_graphql import answer_problems, problems_of, request_problems

TOKEN = "glpat-contract-bot"
AUTHOR = {"id": 9, "username": "project_7_bot_ab12", "bot": True}


def edit_request(note_id: object) -> dict[str, object]:
    return {"query": EDIT_QUERY, "variables": {"id": note_id}}


@pytest.fixture
def server() -> Iterator[FakeGitLab]:
    with FakeGitLab() as gitlab:
        gitlab.project("acme/service", ident=7)
        gitlab.user("project_7_bot_ab12", bot=True, token=TOKEN)
        gitlab.add_member("acme/service", "project_7_bot_ab12", DEVELOPER)
        gitlab.add_member("acme/service", "maria", MAINTAINER)
        gitlab.add_merge_request("acme/service", 3, base={"a.py": "x\n"}, head={"a.py": "y\n"})
        yield gitlab


@pytest.mark.parametrize("kind", [None, "DiscussionNote", "DiffNote"])
def test_the_edit_query_is_valid_in_gitlabs_schema_for_every_kind_of_note(
    kind: str | None,
) -> None:
    note = {"id": 1204, "type": kind, "body": "## consensus", "author": AUTHOR}
    summary = note_comment(note)
    assert summary.node_id == f"gid://gitlab/{kind or 'Note'}/1204"
    assert request_problems(edit_request(summary.node_id)) == []


def test_the_loopback_answers_who_edited_a_note_with_gitlabs_types(server: FakeGitLab) -> None:
    host = GitLabHost("7", token=TOKEN, api_url=server.api_url)
    posted = host.create_issue_comment(3, "## consensus\n<!-- consensus:summary -->")
    assert host.comment_edit(posted) is None
    server.edit_note("acme/service", posted.id, "## consensus · edited", "maria")
    assert host.comment_edit(posted) is not None
    asked = [r for r in server.requests if r.path.endswith("/api/graphql")]
    assert len(asked) == 2 and all(r.status == 200 for r in asked)
    assert problems_of(server.requests) == []


def test_a_note_id_that_is_not_a_notes_global_id_is_refused() -> None:
    assert any("not a valid Global ID" in p for p in request_problems(edit_request(1204)))
    assert any("not a valid Global ID" in p for p in request_problems(edit_request("1204")))
    problems = request_problems(edit_request("gid://gitlab/MergeRequest/3"))
    assert any("does not represent an instance of Note" in p for p in problems)


def test_a_field_or_an_id_type_gitlab_does_not_have_is_refused() -> None:
    githubs = "query($id: ID!) { note(id: $id) { lastEditedAt editor { login } } }"
    problems = request_problems({"query": githubs, "variables": {"id": "gid://gitlab/Note/1"}})
    assert any("Unknown type 'ID'" in p for p in problems)
    assert any("Cannot query field 'editor' on type 'Note'" in p for p in problems)
    wrong_type = "query($id: String!) { note(id: $id) { lastEditedAt } }"
    assert any("String!" in p and "NoteID!" in p for p in request_problems({"query": wrong_type}))


def test_an_answer_gitlabs_types_do_not_allow_is_found() -> None:
    asked = edit_request("gid://gitlab/Note/1204")
    edited = {"lastEditedAt": "2026-01-02T00:00:00Z", "lastEditedBy": {"username": "maria"}}
    assert answer_problems(asked, {"data": {"note": edited}}) == []
    assert answer_problems(asked, {"data": {"note": None}}) == []
    rest_time = {**edited, "lastEditedAt": "2026-01-02T00:00:00.000Z"}
    assert any("not a Time" in p for p in answer_problems(asked, {"data": {"note": rest_time}}))
    no_name = {**edited, "lastEditedBy": {"username": None}}
    problems = answer_problems(asked, {"data": {"note": no_name}})
    assert any("non-nullable field UserCore.username" in p for p in problems)
    extra = {**edited, "editor": {"login": "maria"}}
    assert any(
        "not what GitLab's types give" in p
        for p in answer_problems(asked, {"data": {"note": extra}})
    )
