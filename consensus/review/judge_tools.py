"""A judge that reads the repository: the question asked with the verification tools
(inspect/), each tool call the model makes answered from the pull request's trees, and
its verdict's citations checked.

The conversation of one vote slot: the question is sent with the tools; while the model
asks for tools and its claim's budget lasts (`ToolBudget`, every call counted, a refused
one too), each call is answered and the question goes back with the answers; once the
budget is spent, the model is told to answer (`tool_choice: none`, and the budget's note
as the answer to any call past it). Every question holds the product's first read of the claim
(inspect/inline_evidence.py: its function from the first line, where that function is
called, the definitions of the names it mentions), read once a run. A model that cannot
call tools (the adapter's `no_tools`: litellm lists none for it, or its provider refused
them) answers from that alone, and is not offered tools again this run. Every round is a model call
through the run's client: budgeted, journaled and replayed like any other.

What the judge was shown (the question's code, every tool answer, the inline evidence)
is kept as spans: a line it cites counts only if it is among them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from consensus.inspect.citations import check_citations
from consensus.inspect.inline_evidence import inline_evidence
from consensus.inspect.lookups import Lookups, ToolBudget
from consensus.inspect.schema import tool_schemas
from consensus.inspect.snapshot import Snapshot
from consensus.inspect.tool_results import Span, ToolResult
from consensus.model.base import FailureKind
from consensus.model.claim import Claim
from consensus.model.completion import ToolCall, ToolSpec
from consensus.model.reply import Citation
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError, ModelClient

# The question of one vote slot, with the evidence given inline (or "" for none).
Question = Callable[[str], CompletionRequest]
SPANS_NAMED = 3  # of one answer, in the words of what a judge looked at


@dataclass
class Conversation:
    """One vote slot's exchange: the tool calls made, and everything shown."""

    lookups: Lookups
    shown: list[Span] = field(default_factory=list)  # the question's code and inline evidence
    looked: list[str] = field(default_factory=list)  # what it read, in words

    def seen(self) -> tuple[Span, ...]:
        return (*self.shown, *self.lookups.seen())


class Looker:
    """Asks questions with the verification tools over one snapshot of the trees (shared by
    every claim and judge of a run: each file is read and redacted once); remembers, for
    the run, which models cannot call tools."""

    def __init__(self, snapshot: Snapshot, budget: ToolBudget | None = None) -> None:
        self._snapshot = snapshot
        self._budget = budget or ToolBudget()
        self._specs = tuple(
            ToolSpec(
                name=tool["function"]["name"],
                description=tool["function"]["description"],
                parameters=tool["function"]["parameters"],
            )
            for tool in tool_schemas()
        )
        self._toolless: set[str] = set()
        self._read_first: dict[tuple[str, int, int, str, str], ToolResult] = {}

    async def ask(
        self,
        client: ModelClient,
        question: Question,
        claim: Claim,
        shown: Sequence[Span],
        on_answer: Callable[[Completion], None],
    ) -> tuple[Completion, Conversation]:
        """The final answer to the question after the tool rounds, with the conversation."""
        talk = Conversation(Lookups(self._snapshot, self._budget), shown=list(shown))
        first = self._first_read(claim)
        talk.shown.extend(first.spans)
        talk.looked.append(in_words(first))
        request = question(first.text)
        if request.model in self._toolless or self._budget.calls == 0:
            return await self._inline(client, request, on_answer), talk
        messages = list(request.messages)
        while True:
            spent = talk.lookups.exhausted
            asked = request.model_copy(
                update={
                    "messages": tuple(messages),
                    "tools": self._specs,
                    "tool_choice": "none" if spent else "auto",
                }
            )
            try:
                completion = await client.complete(asked)
            except ModelCallError as exc:
                if exc.kind is not FailureKind.NO_TOOLS or talk.lookups.spent:
                    raise
                self._toolless.add(request.model)
                return await self._inline(client, request, on_answer), talk
            on_answer(completion)
            if not completion.tool_calls or spent:
                return completion, talk
            messages.append(
                Message(role="assistant", content=completion.text, tool_calls=completion.tool_calls)
            )
            messages.extend(self._answer(call, talk) for call in completion.tool_calls)

    def grounded(self, cited: Sequence[Citation], talk: Conversation) -> tuple[Citation, ...]:
        """The verdict's citations when every one holds (see inspect/citations.py); none
        when it cites nothing or any fails: the vote is then a blind one."""
        report = check_citations(cited, self._snapshot, talk.seen())
        return tuple(check.citation for check in report.checks) if report.grounded else ()

    def _answer(self, call: ToolCall, talk: Conversation) -> Message:
        """Every call answered (a provider refuses a conversation with an unanswered one),
        those past the budget with the budget's note."""
        result = talk.lookups.call(call.name, call.arguments)
        talk.looked.append(in_words(result))
        return Message(role="tool", content=result.text, tool_call_id=call.id)

    def _first_read(self, claim: Claim) -> ToolResult:
        """What the product reads for every judge of a claim before any asks (once a run)."""
        key = (claim.path, claim.line, claim.end_line, claim.title, claim.body)
        if key not in self._read_first:
            self._read_first[key] = inline_evidence(self._snapshot, claim)
        return self._read_first[key]

    async def _inline(
        self,
        client: ModelClient,
        request: CompletionRequest,
        on_answer: Callable[[Completion], None],
    ) -> Completion:
        """The question with the first read in it and no tools (among the data it shows,
        never outside the data markers: the repository's code is no instruction)."""
        completion = await client.complete(request)
        on_answer(completion)
        return completion


def in_words(result: ToolResult) -> str:
    """What one answer showed, for the reader: "read_file src/cart.py:11-71" (the lines it
    showed, the first few), or the refusal it was."""
    if result.error:
        return f"{result.tool}: {result.text.removeprefix('error: ')[:120]}"
    spans = [f"{s.path}:{s.start_line}-{s.end_line}" for s in result.spans[:SPANS_NAMED]]
    more = len(result.spans) - SPANS_NAMED
    if more > 0:
        spans.append(f"{more} more")
    return f"{result.tool} " + (", ".join(spans) if spans else "(nothing found)")
