"""The journal keeps a tool conversation as it keeps any call: a model's tool calls are
served again on resume and replay, a call that offers no tools keeps the digest it had
before tools existed, and a journal written before tools opens and serves its calls."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

from consensus.adapters.journal import Journal, call_digest
from consensus.adapters.recording import JournaledClient
from consensus.model.completion import ToolCall, ToolSpec
from consensus.ports import Completion, CompletionRequest, Message
from consensus.review.redacting import RedactingClient
from consensus.testing import FakeModelClient

SEARCH = ToolSpec(
    name="search",
    description="Matches in the head tree.",
    parameters={"type": "object", "properties": {"pattern": {"type": "string"}}},
)
CALL = ToolCall(id="call_7", name="search", arguments='{"pattern": "def total"}')


def question(*more: Message, tools: tuple[ToolSpec, ...] = (SEARCH,)) -> CompletionRequest:
    return CompletionRequest(
        model="openai/gpt-5.1",
        messages=(Message(role="user", content="Title: total is unset"), *more),
        tools=tools,
    )


def complete(client: JournaledClient, request: CompletionRequest) -> Completion:
    return asyncio.run(client.complete(request))


def test_a_models_tool_calls_are_served_again_on_replay(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    journal.start_run("r1", "r1", "label", "{}")
    inner = FakeModelClient(default=Completion(text="", tool_calls=(CALL,)))

    first = complete(JournaledClient(journal, "r1", inner), question())
    replayed = complete(JournaledClient(journal, "r1", None), question())

    assert first.tool_calls == (CALL,)
    assert replayed.tool_calls == (CALL,) and replayed.from_journal
    assert len(inner.calls) == 1


def test_the_tool_results_are_part_of_the_question(tmp_path: Path) -> None:
    """Two conversations that differ only in what a tool returned are two calls."""
    asked = Message(role="assistant", content="", tool_calls=(CALL,))
    one = question(
        asked, Message(role="tool", content="cart.py:40: total = 0", tool_call_id="call_7")
    )
    other = question(asked, Message(role="tool", content="no match", tool_call_id="call_7"))

    assert call_digest(one) != call_digest(other)
    assert call_digest(question()) != call_digest(question(tools=()))


def test_a_call_without_tools_keeps_the_digest_it_had_before_tools() -> None:
    request = question(tools=())
    before = request.model_dump(
        mode="json", exclude={"api_key_env", "timeout_s", "tools", "tool_choice"}
    )
    for message in before["messages"]:
        del message["tool_calls"], message["tool_call_id"]
    digest = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()

    assert call_digest(request) == digest


def test_a_journal_from_before_tools_opens_and_serves_its_calls(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    Journal(path).close()
    with sqlite3.connect(path) as db:  # the calls table as it was before tools
        db.execute("ALTER TABLE calls DROP COLUMN tool_calls")
        db.execute(
            "INSERT INTO calls (run_id, digest, model, ok, reply, started, finished)"
            " VALUES ('r1', ?, 'openai/gpt-5.1', 1, '{\"findings\": []}', 0, 0)",
            (call_digest(question(tools=())),),
        )

    journal = Journal(path)
    served = complete(JournaledClient(journal, "r1", None), question(tools=()))

    assert served.text == '{"findings": []}' and served.tool_calls == ()


def test_redaction_keeps_a_tool_conversation_whole() -> None:
    """A tool result holding a secret is redacted like any prompt text, and the message
    still answers its call."""
    inner = FakeModelClient()
    key = "AKIA" + "Q3EXAMPLE7ZX2MNB"
    result = Message(role="tool", content=f"settings.py:2: KEY = '{key}'", tool_call_id="call_7")
    asked = Message(role="assistant", content="", tool_calls=(CALL,))

    asyncio.run(RedactingClient(inner).complete(question(asked, result)))

    sent = inner.calls[0].messages
    assert key not in sent[2].content and sent[2].tool_call_id == "call_7"
    assert sent[1].tool_calls == (CALL,)
