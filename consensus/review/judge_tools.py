"""A judge that reads the repository: the question asked with tools, each tool call the
model makes answered from the pull request's trees, and its verdict's citations checked.

The conversation of one vote slot: the question is sent with the workbench's tools; while
the model asks for tools and its claim's budget lasts, each call is answered (a call over
the budget is answered with a note that it was not run) and the question goes back with
the answers; once the budget is spent, the model is told to answer (`tool_choice: none`).
A model that cannot call tools (the adapter's `no_tools`) is asked once more without them,
with the evidence inline (the claim's lines and what its names are), and is not offered
tools again this run. Every round is a model call through the run's client: budgeted,
journaled, replayed like any other.

What the judge was shown (the question's code, every tool answer, the inline evidence)
is kept as spans, so that each line it cites can be checked as lines it had seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from consensus.model.base import FailureKind
from consensus.model.claim import Claim
from consensus.model.findings import CitedLines
from consensus.model.reply import ReplyCitation
from consensus.model.tool_calls import ToolCall, ToolSpec
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError, ModelClient

DEFAULT_TOOL_BUDGET = 6  # tool calls one judge may make about one claim
BUDGET_SPENT = (
    "Not run: the {budget} tool calls allowed for this claim are spent. "
    "Answer now with the JSON verdict, citing what you have read."
)


@dataclass(frozen=True)
class Span:
    """Lines a judge was shown: of `path`, at `side`, `start`..`end`."""

    path: str
    start: int
    end: int
    side: str = "head"


@dataclass(frozen=True)
class Shown:
    """One answer the judge was given: its text (redacted), the lines it showed, and what
    it was, in words (`read src/cart.py:11-71`), for the reader and the journal."""

    text: str
    spans: tuple[Span, ...] = ()
    said: str = ""


class Workbench(Protocol):
    """What a judge may look at, over the pull request's trees (read-only)."""

    def specs(self) -> tuple[ToolSpec, ...]: ...

    def run(self, call: ToolCall) -> Shown:
        """A tool call answered; a refused or malformed call is answered with the reason,
        never raised."""
        ...

    def inline(self, claim: Claim) -> Shown:
        """The evidence a model without tools is given in the question itself."""
        ...

    def checked(
        self, cited: Sequence[ReplyCitation], seen: Sequence[Span]
    ) -> tuple[CitedLines, ...] | None:
        """The citations found in the tree and among `seen`; None when any of them is not
        (or nothing is cited): the verdict is then a blind vote."""
        ...


@dataclass
class Conversation:
    """One vote slot's exchange: what was shown, and what the judge looked at."""

    seen: list[Span] = field(default_factory=list)
    looked: list[str] = field(default_factory=list)
    calls: int = 0


class Looker:
    """Asks questions with a workbench's tools; remembers, for the run, which models
    cannot call tools, so each is refused once."""

    def __init__(self, bench: Workbench, budget: int = DEFAULT_TOOL_BUDGET) -> None:
        self._bench = bench
        self._budget = budget
        self._toolless: set[str] = set()

    async def ask(
        self,
        client: ModelClient,
        request: CompletionRequest,
        claim: Claim,
        shown: Sequence[Span],
        on_answer: Callable[[Completion], None],
    ) -> tuple[Completion, Conversation]:
        """The final answer to `request` after the tool rounds, with the conversation."""
        talk = Conversation(seen=list(shown))
        if request.model in self._toolless or self._budget <= 0:
            return await self._inline(client, request, claim, talk, on_answer), talk
        messages = list(request.messages)
        while True:
            spent = talk.calls >= self._budget
            asked = request.model_copy(
                update={
                    "messages": tuple(messages),
                    "tools": self._bench.specs(),
                    "tool_choice": "none" if spent else "auto",
                }
            )
            try:
                completion = await client.complete(asked)
            except ModelCallError as exc:
                if exc.kind is not FailureKind.NO_TOOLS or talk.calls:
                    raise
                self._toolless.add(request.model)
                return await self._inline(client, request, claim, talk, on_answer), talk
            on_answer(completion)
            if not completion.tool_calls or spent:
                return completion, talk
            messages.append(
                Message(role="assistant", content=completion.text, tool_calls=completion.tool_calls)
            )
            messages.extend(self._answers(completion.tool_calls, talk))

    def _answers(self, calls: Sequence[ToolCall], talk: Conversation) -> list[Message]:
        """Every call answered (a provider refuses a conversation with an unanswered
        call), those past the budget with a note that they were not run."""
        answers = []
        for call in calls:
            if talk.calls >= self._budget:
                text = BUDGET_SPENT.format(budget=self._budget)
            else:
                talk.calls += 1
                result = self._bench.run(call)
                talk.seen.extend(result.spans)
                if result.said:
                    talk.looked.append(result.said)
                text = result.text
            answers.append(Message(role="tool", content=text, tool_call_id=call.id))
        return answers

    async def _inline(
        self,
        client: ModelClient,
        request: CompletionRequest,
        claim: Claim,
        talk: Conversation,
        on_answer: Callable[[Completion], None],
    ) -> Completion:
        evidence = self._bench.inline(claim)
        talk.seen.extend(evidence.spans)
        if evidence.said:
            talk.looked.append(evidence.said)
        *head, last = request.messages
        block = f"{last.content}\n\nWhat the repository holds that bears on it:\n{evidence.text}"
        asked = request.model_copy(
            update={"messages": (*head, last.model_copy(update={"content": block}))}
        )
        completion = await client.complete(asked)
        on_answer(completion)
        return completion

    def grounded(
        self, cited: Sequence[ReplyCitation], talk: Conversation
    ) -> tuple[CitedLines, ...] | None:
        """The verdict's citations as checked against the tree and what it was shown."""
        if not cited:
            return None
        return self._bench.checked(cited, talk.seen)
