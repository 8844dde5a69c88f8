"""Every prompt redacted before it leaves: the ModelClient wrapper each face's client is
built behind (app/wiring.py), so no caller can send a model what ingest would have hidden.

Each message of a request (system, user, and the assistant turns a repair quotes back)
goes through ingest/redact.py's rules, the same line-preserving replacement the diff gets:
the vendor formats, keyword assignments, private key blocks, random values, and the
repository's own `redact:` patterns once a flow has read its settings (`add_patterns`).
Text that holds no secret goes through unchanged, so the journal's digest of a call, taken
outside this wrapper, stays what it was. The block a provider may cache (`cache_prefix`,
the diff, the same for every call of a run) is redacted once and remembered.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from consensus.ingest.redact import redact_text, validated_patterns
from consensus.ports import Completion, CompletionRequest, Message, ModelClient

REMEMBERED = 32  # redacted cache prefixes kept: a run sends a few, each many times


class RedactingClient:
    def __init__(self, inner: ModelClient, patterns: Sequence[str] = ()) -> None:
        self._inner = inner
        self._patterns: tuple[str, ...] = ()
        self._prefixes: OrderedDict[str, str] = OrderedDict()
        self.add_patterns(patterns)

    @property
    def patterns(self) -> tuple[str, ...]:
        """The repository patterns applied besides the built-in rules."""
        return self._patterns

    def add_patterns(self, patterns: Sequence[str]) -> None:
        """Redact what `patterns` (a repository's `redact:` setting) match from now on,
        besides everything redacted already. ConfigError for a pattern that is no regex."""
        added = [p for p in validated_patterns(patterns) if p not in self._patterns]
        if added:
            self._patterns = (*self._patterns, *added)
            self._prefixes.clear()

    async def complete(self, request: CompletionRequest) -> Completion:
        messages = tuple(self._message(m) for m in request.messages)
        if messages != request.messages:
            request = request.model_copy(update={"messages": messages})
        return await self._inner.complete(request)

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
