"""One model call about a person's reply to a finding: what kind of reply it is, whether the
finding stands, and the one answer to post. Grounded in the code at the commit the
finding was written on; the reply is data between nonce markers, never instructions.

The call goes through whatever client the caller hands in (journaled and budgeted by the
app); a failed call or a reply that does not parse after one repair turn is None, and
the caller says nothing rather than guess.
"""

from __future__ import annotations

import hashlib

from pydantic import ValidationError

from consensus.ingest.redact import redact_text
from consensus.model.base import Frozen
from consensus.model.reply import ConverseReply
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.review.context import code_context
from consensus.review.prompt import language_note, template
from consensus.review.reply import ReplyError, extract_json, repair_prompt
from consensus.settings.config import ProviderSettings

MAX_REPLY_CHARS = 4_000  # of the person's reply shown to the model
MAX_BODY_CHARS = 2_000


class Topic(Frozen):
    """The finding a reply is about, as the thread and the state know it."""

    title: str
    body: str
    path: str
    line: int
    end_line: int


def converse_request(
    provider: ProviderSettings,
    topic: Topic,
    source: str | None,
    *,
    author: str,
    reply: str,
    language: str = "en",
    redact: tuple[str, ...] = (),
) -> CompletionRequest:
    """The request for `reply` on `topic`, with the file at the finding's commit (`source`,
    None when it could not be read). Secrets in the code and the reply are redacted first."""
    if source is None:
        context = "(the file could not be read at that commit)"
    else:
        context = code_context(redact_text(source, redact)[0], topic.line, topic.end_line)
    said = redact_text(reply[:MAX_REPLY_CHARS], redact)[0]
    nonce = hashlib.sha256((context + said).encode("utf-8", "replace")).hexdigest()[:12]
    system = template("converse_system.j2").render(nonce=nonce)
    user = template("converse.j2").render(
        nonce=nonce,
        title=topic.title,
        path=topic.path,
        line=topic.line,
        end_line=topic.end_line,
        body=topic.body[:MAX_BODY_CHARS],
        context=context,
        author=author,
        reply=said,
        language_note=language_note(language, 'the "answer"'),
    )
    return CompletionRequest(
        model=provider.model,
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        response_schema=ConverseReply.model_json_schema(),
        schema_name="converse",
        api_base=provider.api_base,
        api_key_env=provider.api_key_env,
        timeout_s=provider.timeout_s,
        temperature=0.0,
        max_tokens=800,
    )


def parse_converse(text: str) -> ConverseReply:
    try:
        return ConverseReply.model_validate(extract_json(text))
    except ValidationError as error:
        raise ReplyError(str(error.errors()[0]["msg"])) from None


async def converse(client: ModelClient, request: CompletionRequest) -> ConverseReply | None:
    """Ask once; a malformed answer gets one repair turn; None when nothing usable came."""
    messages = request.messages
    for _ in range(2):
        try:
            completion = await client.complete(request.model_copy(update={"messages": messages}))
        except ModelCallError:
            return None
        try:
            return parse_converse(completion.text)
        except ReplyError as exc:
            messages = (
                *messages,
                Message(role="assistant", content=completion.text[:2_000]),
                Message(role="user", content=repair_prompt(str(exc))),
            )
    return None
