"""The conversation flow over the in-memory GitHub and a fake model: what is posted, what is
saved, what is asked, in milliseconds (the loopback tests run the same through the CLI)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from consensus.adapters.journal import Journal
from consensus.app.pull.pull_context import PullContext, PullReads
from consensus.app.services import ActionStep, ProviderKeys, Services
from consensus.app.talk.conversation import AnswerTools, answer_replies, waiting
from consensus.app.talk.spend_commands import verify_record
from consensus.model.findings import ScoredCluster
from consensus.model.host import GITHUB_WORDS
from consensus.ports import PullFile, PullRequestInfo
from consensus.publish.conversation import Step
from consensus.publish.state import FindingRecord
from consensus.publish.state_section import new_summary
from consensus.publish.thread import ACTIONS, fingerprint_marker
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import ProviderSettings, Settings
from consensus.testing import FakeGitHubHost, FakeModelClient, FakePull, timed_out
from tests.e2e.test_commands_e2e import seeded_state
from tests.flows.flows_world import Counter, NoCheckout

MODEL = "openai/gpt-test"
KEY = "sk-live-0123456789abcdef"


def world(*replies: tuple[str, str], permissions: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    host = FakeGitHubHost(permissions=permissions or {"maria": "maintain"})
    info = PullRequestInfo(number=7, head_sha="h" * 40, base_sha="b" * 40, base_repo="acme/s")
    code = 'query = f"SELECT * FROM users WHERE id = {user_id}"\n'
    host.add_pull(
        FakePull(info=info, files=[PullFile(path="src/app/db.py", status="modified")],
                 head_files={"src/app/db.py": code * 8})
    )  # fmt: skip
    state = seeded_state()
    host.create_issue_comment(7, new_summary(state, GITHUB_WORDS))
    record = state.records[0]
    body = f"**high** · SQL injection\n{fingerprint_marker(record.fingerprint)}"
    ours = host.seed_review_comment(
        7, body, author="github-actions[bot]", bot=True, path=record.path, line=record.line
    )
    host.review_comment_list[-1] = host.review_comment_list[-1].model_copy(
        update={"commit_id": "h" * 40}
    )
    for author, text in replies:
        host.seed_reply(ours, text, author=author)
    settings = Settings(providers=(ProviderSettings(model=MODEL),))
    lines: list[str] = []
    services = Services(
        models=RedactingClient(FakeModelClient()),  # the flow is handed its client in AnswerTools
        counter=Counter(),
        keys=ProviderKeys({"OPENAI_API_KEY": KEY}, needed_keys=lambda model: ()),
        journal=lambda: Journal(Path(tempfile.mkdtemp()) / "journal.db"),
        log=lines.append,
        checkout=NoCheckout(),
        github=host,
    )
    context = PullContext(
        services, ActionStep(ActionInputs()), info, ACTIONS, reads=PullReads(settings=settings)
    )
    return host, context, lines


def conversation(client: FakeModelClient, checked: list[FindingRecord]) -> AnswerTools:
    def check(record: FindingRecord) -> ScoredCluster:
        checked.append(record)
        raise AssertionError("no check expected")

    provider = ProviderSettings(model=MODEL)
    return AnswerTools(client=client, providers=(provider,), judge_now=check, secrets=(KEY,))


def pending(host: FakeGitHubHost, context: PullContext):  # type: ignore[no-untyped-def]
    return waiting(context, host.review_comments(7))


def answers(host: FakeGitHubHost) -> list[str]:
    return [c.body for c in host.review_comment_list if "consensus:answer to=" in c.body]


def test_a_maintainer_disagreement_dismisses_without_a_model_call() -> None:
    host, context, _ = world(("maria", "Intentional: user_id is an int from the router."))
    client = FakeModelClient()
    done = answer_replies(context, conversation(client, []), pending(host, context))
    assert [d.step for d in done] == [Step.DISMISS]
    assert client.calls == []
    context.refresh_thread()
    [dismissal] = context.summary_thread().state.dismissed
    assert (dismissal.by, dismissal.via) == ("maria", "reply")
    assert host.resolved_threads  # the thread is resolved


def test_a_question_is_answered_once_from_the_code_at_the_comment_s_commit() -> None:
    host, context, _ = world(("randall", "Why is this a problem?"))
    reply = {"kind": "question", "stands": True, "answer": f"`user_id` reaches SQL. {KEY}"}
    client = FakeModelClient(default=json.dumps(reply))
    done = answer_replies(context, conversation(client, []), pending(host, context))
    assert [d.step for d in done] == [Step.ANSWER]
    [answer] = answers(host)
    assert KEY not in answer and "reaches SQL" in answer
    [call] = client.calls
    assert 'query = f"SELECT' in call.messages[-1].content
    again = answer_replies(context, conversation(client, []), pending(host, context))
    assert [(d.step, d.why) for d in again] == [(Step.IGNORE, "already answered")]
    assert len(client.calls) == 1 and len(answers(host)) == 1  # never answered twice


def test_a_failed_model_call_posts_nothing() -> None:
    host, context, lines = world(("randall", "Hmm, let me look at the retry loop first."))
    client = FakeModelClient(default=timed_out())
    done = answer_replies(context, conversation(client, []), pending(host, context))
    assert [d.step for d in done] == [Step.IGNORE] and answers(host) == []
    assert any("no usable answer" in line for line in lines)


def test_a_read_only_concession_does_not_dismiss() -> None:
    host, context, _ = world(("randall", "This is a false positive, user_id is an int."))
    reply = {"kind": "disagreement", "stands": False, "answer": "You are right."}
    answer_replies(
        context,
        conversation(FakeModelClient(default=json.dumps(reply)), []),
        pending(host, context),
    )
    [answer] = answers(host)
    assert "Conceded. Someone with write, maintain or admin permission can dismiss it" in answer
    context.refresh_thread()
    assert context.summary_thread().state.dismissed == ()


def test_a_dismissal_reason_keeps_no_secret() -> None:
    leaked = "sk-proj-AbCdEf0123456789AbCdEf0123456789"
    _, context, _ = world(("maria", f"Intentional: {leaked} is a test key."))
    answer_replies(context, conversation(FakeModelClient(), []), pending(context.host, context))
    context.refresh_thread()
    [dismissal] = context.summary_thread().state.dismissed
    assert leaked not in dismissal.reason and "redacted" in dismissal.reason


def test_a_check_asked_in_a_reply_goes_through_the_conversation_s_client() -> None:
    # The conversation hands its journaled client to the check: a call made around it
    # would be missing from the run's journal, and replay could not derive the answer.
    _, context, _ = world()
    handed = FakeModelClient(default=json.dumps({"verdict": "confirmed", "reason": "f-string"}))
    record = context.summary_thread().state.records[0]

    judgement = verify_record(context, record, handed)

    assert handed.calls, "the check asked no model through the client it was handed"
    assert [v.verdict.value for v in judgement.verification.votes if v.verdict] == ["confirmed"]
