"""Every prompt redacted before it leaves, every reply as it arrives: the ModelClient
wrapper each face's client is built behind (app/wiring.py), so no caller can send a model
what ingest would have hidden, and nothing a model writes reaches an output with a secret.

Each message of a request (system, user, and the assistant turns a repair quotes back)
goes through ingest/redact.py's rules, the same line-preserving replacement the diff gets:
the vendor formats, keyword assignments, private key blocks, random values, and the
repository's own `redact:` patterns once a flow has read its settings (`with_patterns`:
a client of its own for them, the services' left as it was).
Text that holds no secret goes through unchanged, so the journal's digest of a call, taken
outside this wrapper, stays what it was. The block a provider may cache (`cache_prefix`,
the diff, the same for every call of a run) is redacted once and remembered.

Each reply (and a failed call's message) comes back through the same rules and the run's
own secret values (`secrets`: the environment's, app/secrets.py, read at the first reply),
before anything records or parses it: the journal stores the redacted reply, every
output is made of it, and a replay, which parses what the journal stored, decides the
same. A key a model quotes from a file the rules did not recognise, or invents in a
vendor's shape, is `«redacted:KIND»` in every comment, report and bench file.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cache

from consensus.ingest.redact import known_values, redact_outbound, redact_text, validated_patterns
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError, ModelClient

REMEMBERED = 32  # redacted cache prefixes kept: a run sends a few, each many times


class RedactingClient:
    def __init__(
        self,
        inner: ModelClient,
        patterns: Sequence[str] = (),
        *,
        secrets: Callable[[], Sequence[str]] = tuple,
    ) -> None:
        """`secrets`: the run's secret values, asked once, at the first reply (reading them
        may load the detector, which a command that asks no model never needs)."""
        self._inner = inner
        self._patterns: tuple[str, ...] = ()
        self._prefixes: OrderedDict[str, str] = OrderedDict()
        self._values: Callable[[], re.Pattern[str] | None] = cache(lambda: known_values(secrets()))
        self._patterns = tuple(dict.fromkeys(validated_patterns(patterns)))

    @property
    def patterns(self) -> tuple[str, ...]:
        """The repository patterns applied besides the built-in rules."""
        return self._patterns

    def with_patterns(self, patterns: Sequence[str]) -> RedactingClient:
        """A client that also redacts what `patterns` (a repository's `redact:` setting)
        match, besides everything this one redacts; itself when they add nothing. The run's
        secret values are the same ones, asked once. ConfigError for a pattern that is no
        regex."""
        added = [p for p in validated_patterns(patterns) if p not in self._patterns]
        if not added:
            return self
        wider = RedactingClient(self._inner)
        wider._patterns = (*self._patterns, *added)
        wider._values = self._values
        return wider

    async def complete(self, request: CompletionRequest) -> Completion:
        messages = tuple(self._message(m) for m in request.messages)
        if messages != request.messages:
            request = request.model_copy(update={"messages": messages})
        try:
            completion = await self._inner.complete(request)
        except ModelCallError as exc:
            message = self.outbound(exc.message)
            if message == exc.message:
                raise
            raise ModelCallError(exc.kind, message, exc.fix) from None
        text = self.outbound(completion.text)
        if text == completion.text:
            return completion
        return completion.model_copy(update={"text": text})

    def outbound(self, text: str) -> str:
        """`text` a model wrote (or a provider's error), as every output may show it."""
        return redact_outbound(text, self._patterns, self._values())

    def _message(self, message: Message) -> Message:
        prefix = message.cache_prefix
        head: str | None = None
        if prefix is not None and message.content.startswith(prefix) and _line_end(message, prefix):
            head = self._prefix(prefix)
            content = head + self._redacted(message.content[len(prefix) :])
        else:
            content = self._redacted(message.content)
        if content == message.content:
            return message
        return message.model_copy(update={"content": content, "cache_prefix": head})

    def _prefix(self, prefix: str) -> str:
        known = self._prefixes.get(prefix)
        if known is None:
            known = self._prefixes[prefix] = self._redacted(prefix)
            while len(self._prefixes) > REMEMBERED:
                self._prefixes.popitem(last=False)
        else:
            self._prefixes.move_to_end(prefix)
        return known

    def _redacted(self, text: str) -> str:
        return redact_text(text, self._patterns)[0] if text else text


def _line_end(message: Message, prefix: str) -> bool:
    """The prefix ends a line, so redacting it apart from the rest sees whole lines."""
    rest = message.content[len(prefix) :]
    return prefix.endswith("\n") or not rest or rest.startswith("\n")
