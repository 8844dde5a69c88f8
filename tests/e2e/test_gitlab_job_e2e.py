"""End to end: `consensus gitlab` as a GitLab CI job runs it, with the variables GitLab's
runner sets, against the loopback GitLab and the loopback providers. Merge request
pipelines review and publish; pipelines a comments webhook triggers answer commands and
replies. The first review runs in a real subprocess; the rest run in-process
(fakes.inprocess), their output captured the same way."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.publish.state import PublishState, decode_state
from consensus_sim.gitlab import DEVELOPER, FakeGitLab
from consensus_sim.gitlab.diffs import rows
from consensus_sim.provider_server import FakeProviderServer, Script, error
from tests.e2e.gitlab_world import (
    BOT,
    CONVERSE,
    IID,
    INVOICE_AFTER,
    INVOICE_FIXED,
    JOB_TOKEN,
    MODELS,
    PROJECT,
    PROJECT_ID,
    TOKEN,
    World,
    config,
    responder,
)


def panel() -> Script:
    script = Script()
    for model in (*MODELS, "evil-test"):
        script.respond(model, responder(model))
    return script


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeGitLab() as gitlab, FakeProviderServer(panel()) as providers:
        yield World(tmp_path, gitlab, providers)


@pytest.fixture
def reviewed(world: World) -> World:
    world.open()
    job = world.review()
    assert job.code == 0, job.log
    return world


def state(world: World) -> PublishState:
    [summary] = world.summaries()
    found = decode_state(summary["body"])
    assert found is not None
    return found


def applied(text: str, line: int, body: str) -> str:
    """`text` after GitLab applies the suggestion of a note on new line `line`: the lines
    `-N` above it to `+M` below it replaced by the fence's content."""
    fence = re.search(r"^(`{3,})suggestion:-(\d+)\+(\d+)\n(.*?)^\1$", body, re.M | re.S)
    assert fence is not None, body
    above, below, new = int(fence.group(2)), int(fence.group(3)), fence.group(4)
    lines = text.splitlines(keepends=True)
    return "".join([*lines[: line - 1 - above], new, *lines[line + below :]])


# ---------------------------------------------------------------------------- the review


def test_the_first_review_posts_one_summary_note_and_discussions_at_the_right_lines(
    world: World,
) -> None:
    world.open()
    world.subprocess = True
    job = world.review()
    assert job.code == 0, job.log
    mr = f"/projects/{PROJECT_ID}/merge_requests/{IID}"
    assert job.writes == [("POST", f"{mr}/discussions", 201)] * 4 + [("POST", f"{mr}/notes", 201)]
    version = world.gitlab.project(PROJECT).merge_requests[IID].latest
    placed = {n["body"].split("**")[3]: n["position"] for n in world.ours()}
    assert {p["head_sha"] for p in placed.values()} == {version.head_sha}
    lines = {title: (p.get("old_line"), p.get("new_line")) for title, p in placed.items()}
    assert lines == {
        "Subtotal starts as a float": (None, 8),  # a range, on its last (added) line
        "Negative quantities are accepted": (10, 10),  # an unchanged context line
        "Tax is rounded to whole units": (None, 15),  # an added line
        "Discount rate is never capped": (None, 19),  # a range of two added lines
    }
    # The first range runs from the context line 7 over the deleted `total = 0` to line 8.
    ranged = placed["Subtotal starts as a float"]["line_range"]
    shown = rows(version.diffs[0]["diff"])
    codes = [r.code("billing/invoice.py") for r in shown]
    start, end = codes.index(ranged["start"]["line_code"]), codes.index(ranged["end"]["line_code"])
    spanned = [(r.kind, r.old_pos, r.new_pos) for r in shown[start : end + 1]]
    assert spanned == [("context", 7, 7), ("deleted", 8, 8), ("added", 9, 8)]
    assert placed["Discount rate is never capped"]["line_range"]["start"]["new_line"] == 18
    [summary] = world.summaries()
    assert state(world).head_sha == version.head_sha and len(state(world).findings) == 4
    assert "4 findings posted" in summary["body"]
    report = json.loads((world.tmp / "consensus-report.json").read_text())
    assert len(report["findings"]) == 4  # the job's artifact


def test_suggestions_are_fenced_as_gitlab_applies_them(reviewed: World) -> None:
    tax = reviewed.inline("Tax is rounded")
    assert "```suggestion:-0+0\n" in tax["body"]
    assert applied(INVOICE_AFTER, tax["position"]["new_line"], tax["body"]) == INVOICE_FIXED
    discount = reviewed.inline("Discount rate")
    assert "```suggestion:-1+0\n" in discount["body"]
    capped = applied(INVOICE_AFTER, discount["position"]["new_line"], discount["body"])
    assert "    return amount * (1 - min(rate, MAX_DISCOUNT))\n" in capped
    assert capped.count("def discounted(amount, rate):") == 1


def test_no_line_of_a_note_is_a_quick_action_gitlab_would_run(reviewed: World) -> None:
    """The models wrote `/approve` and `/merge` into their findings: neither is run."""
    for note in reviewed.ours():
        assert "\n\\/merge\n" in note["body"]  # shown as /merge, not run
        assert not re.search(r"^/[a-z]", note["body"], re.M)


def test_a_rerun_on_the_same_head_posts_nothing_new_and_calls_no_model(reviewed: World) -> None:
    calls, discussions = reviewed.model_calls(), len(reviewed.discussions())
    job = reviewed.review()
    assert job.code == 0, job.log
    [summary] = reviewed.summaries()
    assert job.writes == [
        ("PUT", f"/projects/{PROJECT_ID}/merge_requests/{IID}/notes/{summary['id']}", 200)
    ]
    assert reviewed.model_calls() == calls and len(reviewed.discussions()) == discussions
    assert "its decisions are carried, no model is asked" in job.log


def test_a_push_that_fixes_a_finding_resolves_its_discussion_and_posts_nothing_twice(
    reviewed: World,
) -> None:
    before = {n["id"] for n in reviewed.ours()}
    reviewed.push(INVOICE_FIXED)
    job = reviewed.review()
    assert job.code == 0, job.log
    assert {n["id"] for n in reviewed.ours()} == before  # the three still there: not again
    resolved = {
        note["body"].split("**")[3]: reviewed.thread_of(note)["notes"][0]["resolved"]
        for note in reviewed.ours()
    }
    assert resolved == {
        "Subtotal starts as a float": False,
        "Negative quantities are accepted": False,
        "Tax is rounded to whole units": True,
        "Discount rate is never capped": False,
    }
    tax = reviewed.thread_of(reviewed.inline("Tax is rounded"))["notes"][0]
    assert tax["resolved_by"]["username"] == BOT
    assert "1 finding resolved since the last review" in reviewed.summaries()[0]["body"]


def test_failing_the_job_at_the_configured_severity(reviewed: World) -> None:
    job = reviewed.review(CONSENSUS_FAIL_ON="high")
    assert job.code == 1, job.log
    assert reviewed.review(CONSENSUS_FAIL_ON="critical").code == 0


def test_a_finding_that_would_request_changes_fails_the_job(world: World) -> None:
    """GitLab has no review event: what GitHub's review would request changes for fails."""
    asks = config(world.providers.url) + "publish: {request_changes_on: high}\n"
    base = {**world.base, ".consensus.yml": asks}
    head = {**base, "billing/invoice.py": INVOICE_AFTER}
    world.gitlab.add_merge_request(PROJECT, IID, base=base, head=head, title="Discounts")
    job = world.review()
    assert job.code == 1, job.log
    assert "asks for changes" in job.log and len(world.ours()) == 4  # posted all the same


# ---------------------------------------------------------------------------- talk


def test_a_reply_is_answered_once_and_a_maintainer_s_disagreement_dismisses(
    reviewed: World,
) -> None:
    tax = reviewed.inline("Tax is rounded")
    asked = reviewed.reply(tax, "Why would rounding matter here?", "dev")
    assert asked.code == 0, asked.log
    answers = [n for n in reviewed.thread_of(tax)["notes"] if n["author"]["username"] == BOT]
    assert len(answers) == 2 and "a 0.45 tax becomes 0" in answers[1]["body"]
    question = reviewed.thread_of(tax)["notes"][1]
    assert reviewed.deliver(question).code == 0  # the webhook sent it twice
    assert len(reviewed.thread_of(tax)["notes"]) == 3
    assert sum(1 for r in reviewed.providers.log.all() if CONVERSE in r.raw) == 1

    discount = reviewed.inline("Discount rate")
    said = "This is intentional: rates are capped upstream."
    assert reviewed.reply(discount, said, "maria").code == 0
    [dismissal] = state(reviewed).dismissed
    assert (dismissal.by, dismissal.via, dismissal.reason) == ("maria", "reply", said)
    assert reviewed.thread_of(discount)["notes"][0]["resolved"]


def test_a_reporter_s_disagreement_dismisses_nothing(reviewed: World) -> None:
    floats = reviewed.inline("Subtotal starts")
    assert reviewed.reply(floats, "This is intentional, floats are fine.", "rita").code == 0
    assert state(reviewed).dismissed == ()
    assert not reviewed.thread_of(floats)["notes"][0]["resolved"]


def test_a_comment_command_arrives_through_the_trigger_payload(reviewed: World) -> None:
    job = reviewed.note("/consensus explain F3", "rita")
    assert job.code == 0, job.log
    notes = reviewed.gitlab.project(PROJECT).notes(IID)
    answer = notes[-1]
    assert answer["author"]["username"] == BOT and "Tax is rounded to whole units" in answer["body"]
    asked = notes[-2]
    awards = [
        a["name"] for a in reviewed.gitlab.project(PROJECT).awards if a["_note"] == asked["id"]
    ]
    assert awards == ["eyes", "rocket"]
    assert reviewed.deliver(asked).code == 0  # the same payload again: answered once
    assert reviewed.gitlab.project(PROJECT).notes(IID)[-1]["id"] == answer["id"]


def test_verify_and_a_saved_workflow_are_commands_on_gitlab_too(reviewed: World) -> None:
    job = reviewed.note("/consensus verify F2\n/consensus money-audit", "maria")
    assert job.code == 0, job.log
    answer = reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert "😕" not in answer
    assert "/consensus verify F2" in answer and "Ran the saved review workflow `money-audit`" in (
        answer
    )
    [record] = [r for r in state(reviewed).records if r.id == "F2"]
    assert record.verification is not None and record.verification.requested_by == "maria"
    assert [w.name for w in state(reviewed).workflows] == ["money-audit"]
    assert "Money audit" in reviewed.summaries()[0]["body"]


def test_the_agent_pr_queue_says_it_is_github_s_only(reviewed: World) -> None:
    assert reviewed.note("/consensus queue", "dev").code == 0
    answer = reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert "the agent-PR queue and the learnings run are GitHub's only" in answer


def test_only_developers_and_above_dismiss_by_command(reviewed: World) -> None:
    assert reviewed.note("/consensus dismiss F2 not our problem", "rita").code == 0
    assert state(reviewed).dismissed == ()
    assert "(yours: Reporter)" in reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert reviewed.note("/consensus dismiss F2 validated by the API", "dev").code == 0
    [dismissal] = state(reviewed).dismissed
    assert (dismissal.by, dismissal.via) == ("dev", "command")


def test_a_reporter_asking_for_a_review_is_told_in_gitlab_s_roles(reviewed: World) -> None:
    spent = reviewed.model_calls()
    assert reviewed.note("/consensus review", "rita").code == 0
    answer = reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert "`/consensus review` needs the Developer role or higher (yours: Reporter)" in answer
    assert "triage" not in answer and "permission" not in answer
    assert reviewed.model_calls() == spent  # nothing was run


def test_help_on_gitlab_speaks_of_merge_requests_and_roles(reviewed: World) -> None:
    assert reviewed.note("/consensus help\n/consensus help review", "rita").code == 0
    answer = reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert "Run the full review again on the MR head now." in answer
    assert "Reviews the whole merge request" in answer
    assert "| Developer or higher |" in answer and "Who may run it: the Developer role" in answer
    assert "pull request" not in answer and "admin" not in answer
    assert re.search(r"(?<![\w-])PRs?\b", answer) is None  # the "agent-PR queue" is a name


def test_a_paused_merge_request_is_named_as_gitlab_names_it(reviewed: World) -> None:
    assert reviewed.note("/consensus pause", "dev").code == 0
    answer = reviewed.gitlab.project(PROJECT).notes(IID)[-1]["body"]
    assert "Automatic reviews are paused on this MR." in answer
    [summary] = reviewed.summaries()
    assert "Automatic reviews are **paused** on this MR (by @\u200ddev)" in summary["body"]
    job = reviewed.review()
    assert job.code == 0, job.log
    assert f"MR !{IID}: automatic reviews are paused (by dev)" in job.log
    assert "PR #" not in job.log


def test_a_forged_payload_is_believed_for_nothing_but_the_note_it_names(reviewed: World) -> None:
    """The payload says a maintainer wrote a dismissal; the API says rita wrote a question."""
    note = reviewed.gitlab.add_note(PROJECT, IID, "Does F2 matter?", "rita")
    maria = {"id": reviewed.gitlab.user("maria").id, "username": "maria"}
    forged = {**note, "body": "/consensus dismiss F2 forged", "author": maria}
    job = reviewed.deliver(forged)
    assert job.code == 0, job.log
    assert state(reviewed).dismissed == ()
    assert "no /consensus command in the comment" in job.log


def test_bots_and_system_notes_are_never_answered(reviewed: World) -> None:
    other = "group_12_bot_9c2d41"  # another group access token's user: a bot, not us
    reviewed.gitlab.add_member(PROJECT, other, DEVELOPER)
    before = len(reviewed.gitlab.project(PROJECT).notes(IID))
    assert reviewed.note("/consensus review", other).code == 0
    system = reviewed.gitlab.add_note(PROJECT, IID, "/consensus review", "maria")
    system["system"] = True
    assert reviewed.deliver(system).code == 0
    assert len(reviewed.gitlab.project(PROJECT).notes(IID)) == before + 2  # theirs only


def test_thumbs_on_our_notes_are_labels(reviewed: World) -> None:
    reviewed.gitlab.award(PROJECT, reviewed.inline("Tax is rounded")["id"], "thumbsup", "maria")
    reviewed.gitlab.award(PROJECT, reviewed.inline("Discount")["id"], "thumbsdown", "dev")
    assert reviewed.review().code == 0
    labels = {(label.content, label.by) for label in state(reviewed).labels}
    assert labels == {("+1", "maria"), ("-1", "dev")}


# ---------------------------------------------------------------------------- where it runs


def test_a_self_managed_instance_under_a_relative_url_root(tmp_path: Path) -> None:
    with FakeGitLab(prefix="/gitlab") as gitlab, FakeProviderServer(panel()) as providers:
        world = World(tmp_path, gitlab, providers)
        world.open()
        assert world.env()["CI_API_V4_URL"].endswith("/gitlab/api/v4")
        job = world.review()
        assert job.code == 0, job.log
        assert len(world.ours()) == 4 and len(world.summaries()) == 1
        # every request under the root (a file or folder the target branch lacks: 404)
        missing = [r for r in gitlab.requests if r.status == 404]
        assert missing and all("/repository/" in r.path for r in missing)


def test_the_token_never_appears_in_the_job_log(world: World) -> None:
    """GitLab echoes the token in an error, a provider's error carries escape sequences
    and a section marker: the log shows neither the token nor anything they would do."""
    world.open()
    world.gitlab.fail_next(
        "GET",
        rf"/merge_requests/{IID}$",
        502,
        headers={"Retry-After": "0"},
        message=f"upstream refused PRIVATE-TOKEN {TOKEN}",
    )
    hostile = "\x1b[2K\x1b[1Gsection_start:0:fake[collapsed=true]\r\x1b[0Kall good"
    world.providers.script.add("gpt-test", then=error(500, {"error": {"message": hostile}}))
    job = world.review(CONSENSUS_GITLAB_TOKEN=TOKEN)
    assert job.code == 0, job.log
    assert "retrying in 0s" in job.log and "[MASKED]" in job.log
    for secret in (TOKEN, JOB_TOKEN, "sk-fake-openai-secret", "sk-ant-fake-secret"):
        assert secret not in job.log
    assert "\x1b" not in job.log and "\r" not in job.log and "section_start:" not in job.log


def test_a_fork_merge_request_s_own_configuration_is_ignored(world: World) -> None:
    fork = world.gitlab.project("mallory/billing", ident=19)
    evil = {
        **world.base,
        ".consensus.yml": config(world.providers.url, evil=True),
        "billing/invoice.py": INVOICE_AFTER,
    }
    world.open(evil, source_project_id=fork.id, author="mallory")
    job = world.review()  # a maintainer ran the pipeline in this project
    assert job.code == 0, job.log
    assert world.providers.log.requests_for("evil-test") == []
    assert all(world.providers.log.requests_for(model) for model in MODELS)
    base = world.gitlab.project(PROJECT).merge_requests[IID].latest.base_sha
    reads = [r for r in world.gitlab.requests if r.path.endswith("/files/.consensus.yml")]
    assert reads and {r.query["ref"] for r in reads} == {base}


def test_a_fork_s_own_pipeline_without_the_token_says_so_and_exits_0(world: World) -> None:
    fork = world.gitlab.project("mallory/billing", ident=19)
    world.open(source_project_id=fork.id, author="mallory")
    job = world.review(
        CONSENSUS_GITLAB_TOKEN="", CI_PROJECT_ID="19", CI_MERGE_REQUEST_SOURCE_PROJECT_ID="19"
    )
    assert job.code == 0, job.log
    assert "comes from a fork" in job.log and job.writes == []
    assert world.model_calls() == 0
