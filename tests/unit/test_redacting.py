"""The redacting client: what every face's model client sends is redacted as a diff is."""

from __future__ import annotations

import asyncio

import pytest

from consensus.errors import ConfigError
from consensus.model.base import FailureKind
from consensus.ports import CompletionRequest, Message, ModelCallError
from consensus.review.redacting import RedactingClient
from consensus.testing import FakeModelClient, rate_limited

AWS = "AKIAZ7Q4W2M9K3TR8YXB"
OWN = "acme-internal-qmzrtkvw"
DIFF = (
    "<diff-1a2b3c4d5e6f>\n"
    "--- src/app/settings.py\n"
    "+AWS_ACCESS_KEY_ID = os.environ['AWS_ACCESS_KEY_ID']\n"
    "</diff-1a2b3c4d5e6f>"
)


def request(*messages: Message) -> CompletionRequest:
    return CompletionRequest(model="openai/gpt-5.1", messages=messages, schema_name="verdict")


def sent(
    client: RedactingClient, asked: CompletionRequest, fake: FakeModelClient
) -> CompletionRequest:
    asyncio.run(client.complete(asked))
    return fake.calls[-1]


def test_a_request_without_a_secret_is_sent_as_it_is() -> None:
    fake = FakeModelClient(default="{}")
    asked = request(
        Message(role="system", content="You are an independent verifier."),
        Message(role="user", content=DIFF + "\nIs it real?", cache_prefix=DIFF),
    )
    assert sent(RedactingClient(fake), asked, fake) is asked


def test_every_message_is_redacted_line_for_line() -> None:
    fake = FakeModelClient(default="{}")
    said = f'{{"verdict": "confirmed", "reason": "the key {AWS} is live"}}'
    asked = request(
        Message(role="system", content="Judge the claim."),
        Message(role="user", content=f"Claim: a key is committed.\nIt reads {AWS}.\nIs it real?"),
        Message(role="assistant", content=said),
        Message(role="user", content="Answer with JSON only."),
    )
    out = sent(RedactingClient(fake), asked, fake)
    assert AWS not in out.model_dump_json()
    assert out.messages[1].content == (
        "Claim: a key is committed.\nIt reads «redacted:aws-access-key».\nIs it real?"
    )
    assert "«redacted:aws-access-key»" in out.messages[2].content
    assert [m.role for m in out.messages] == [m.role for m in asked.messages]
    assert out.model_copy(update={"messages": asked.messages}) == asked  # nothing else changed


def test_the_repositorys_own_patterns_apply_once_a_flow_adds_them() -> None:
    fake = FakeModelClient(default="{}")
    services_client = RedactingClient(fake)
    asked = request(Message(role="user", content=f"The token {OWN} is used in tests."))
    assert OWN in sent(services_client, asked, fake).messages[0].content  # no rule knows it
    client = services_client.with_patterns(["acme-internal-[a-z0-9]{8}"])
    client = client.with_patterns(["acme-internal-[a-z0-9]{8}"])  # added once
    assert client.patterns == ("acme-internal-[a-z0-9]{8}",)
    assert sent(client, asked, fake).messages[0].content == (
        "The token «redacted:custom» is used in tests."
    )
    # the services' client is left as it was: the patterns are the new client's
    assert services_client.patterns == ()
    assert OWN in sent(services_client, asked, fake).messages[0].content


def test_a_pattern_that_is_no_regex_is_refused_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="redact: pattern '\\(unclosed' is not a valid regex"):
        RedactingClient(FakeModelClient()).with_patterns(["(unclosed"])


def test_the_cached_prefix_stays_the_start_of_the_redacted_message() -> None:
    fake = FakeModelClient(default="{}")
    client = RedactingClient(fake)
    leaky = DIFF.replace("os.environ['AWS_ACCESS_KEY_ID']", f"'{AWS}'")
    for persona in ("correctness", "security"):
        asked = request(Message(role="user", content=f"{leaky}\nReview as {persona}.",
                                cache_prefix=leaky))  # fmt: skip
        [message] = sent(client, asked, fake).messages
        assert message.cache_prefix is not None and AWS not in message.cache_prefix
        assert message.content.startswith(message.cache_prefix)
        assert message.content.endswith(f"\nReview as {persona}.")
    first, second = (call.messages[0].cache_prefix for call in fake.calls)
    assert first == second  # the same prefix for every call: a provider may still cache it


def test_every_faces_client_is_the_redacting_one() -> None:
    from consensus.app.wiring import services

    assert isinstance(services({}, log=lambda line: None).models, RedactingClient)


# ---------------------------------------------------------------------------- the replies

GITHUB = "ghp_" + "R7kq2ZxW9mN4vB8cT1yH6jL3pD5sF0gA2eQu"
DEPLOY = "stagingdeployqzmxwkrt"  # a run's secret: in no vendor's format


def answered(client: RedactingClient) -> str:
    asked = request(Message(role="user", content="Is it real?"))
    return asyncio.run(client.complete(asked)).text


def test_a_reply_comes_back_with_every_secret_a_model_wrote_replaced() -> None:
    reply = (
        '{"verdict": "confirmed", "reason": '
        f'"the log prints {AWS}, {GITHUB}, {OWN} and {DEPLOY}"}}'
    )
    client = RedactingClient(FakeModelClient(default=reply), secrets=lambda: [DEPLOY])
    client = client.with_patterns(["acme-internal-[a-z0-9]{8}"])
    assert answered(client) == (
        '{"verdict": "confirmed", "reason": "the log prints «redacted:aws-access-key», '
        '«redacted:github-token», «redacted:custom» and «redacted:secret»"}'
    )


def test_a_reply_without_a_secret_is_the_completion_the_provider_gave() -> None:
    fake = FakeModelClient(default='{"findings": []}')
    completion = asyncio.run(
        RedactingClient(fake).complete(request(Message(role="user", content="Review.")))
    )
    assert completion.text == '{"findings": []}' and completion.tokens_out == fake.tokens_out


def test_a_failed_calls_message_is_redacted_and_keeps_its_kind() -> None:
    leaked = rate_limited(f"429 for key {DEPLOY}: slow down")
    client = RedactingClient(FakeModelClient(default=leaked), secrets=lambda: [DEPLOY])
    with pytest.raises(ModelCallError) as failed:
        answered(client)
    assert failed.value.message == "429 for key «redacted:secret»: slow down"
    assert failed.value.kind is FailureKind.RATE_LIMITED


def test_the_runs_secrets_are_read_once_at_the_first_reply_never_before() -> None:
    asked: list[int] = []

    def secrets() -> list[str]:
        asked.append(1)
        return [DEPLOY, "short"]  # a value under 8 characters would replace words: kept out

    client = RedactingClient(FakeModelClient(default=f"{DEPLOY} is short"), secrets=secrets)
    assert asked == []
    assert answered(client) == "«redacted:secret» is short"
    assert answered(client) == "«redacted:secret» is short"
    assert asked == [1]


def test_a_secret_inside_a_longer_one_leaves_nothing_of_the_longer() -> None:
    client = RedactingClient(
        FakeModelClient(default=f"{DEPLOY}-suffix and {DEPLOY}"),
        secrets=lambda: [DEPLOY, f"{DEPLOY}-suffix"],
    )
    assert answered(client) == "«redacted:secret» and «redacted:secret»"
