"""A simulated judge that looks before it answers, as grounded verifiers do.

Each claim the judge may be asked about has a truth: real or invented, and where the lines
that decide it live in the repository (`Decisive`): the guard earlier in the function that
refutes an invention, the caller two files away, the test that covers the case, or, for a
real claim, the line that shows the bug. Some claims have nothing that decides them (a
matter of taste): no tool result can help there.

The judge chooses its tool calls from the claim alone, never from the truth: it reads the
claim's file around its lines, then asks where each name the title quotes in backticks is
defined and used. It answers with its `blind` rates unless a tool result the product
returned (or the code the prompt showed) contains a decisive line, and then with its
`looking` rates; both answers come from one draw per question, so where looking helps
nothing the two are the same answer. A looking answer cites the decisive line it read
(`path`, its line number as the tool result numbered it, its text); a blind one cites
nothing. With probability `misquote` a looking judge cites the line in its own words, a
citation the product's check must refuse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from consensus_sim.script import (
    VERIFY_TITLE,
    JsonObject,
    Responder,
    Step,
    call_tools,
    drawn,
    drawn_verdict,
    prompt_text,
    reply,
)

LOCATION = re.compile(r"^Location: (?P<path>\S.*?), lines (?P<line>\d+)-(?P<end>\d+)$", re.M)
QUOTED_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]{0,80})`")
NUMBERED = re.compile(r"^\s*(?:(?P<path>[^\s:]+):)?(?P<line>\d+)\s*[:|]\s?(?P<text>.*)$")
READ_AROUND = 30  # lines either side of the claim the judge reads first
NAMES_LOOKED_UP = 2


@dataclass(frozen=True)
class Rates:
    """How often a judge is right: a real claim confirmed (tpr), an invented one refuted
    (tnr); a wrong answer is `uncertain` with probability `uncertain`."""

    tpr: float
    tnr: float
    uncertain: float = 0.1


@dataclass(frozen=True)
class Decisive:
    """A line that decides a claim, once read: where it is and what it says."""

    path: str
    line: int
    text: str


@dataclass(frozen=True)
class ClaimTruth:
    real: bool
    decisive: Decisive | None = None  # None: nothing in the repository decides it


def looking_judge(
    truth: Mapping[str, ClaimTruth],
    *,
    blind: Rates,
    looking: Rates,
    misquote: float = 0.0,
    seed: str = "",
) -> Responder:
    """The responder of one judge family (see the module docstring)."""

    def respond(body: JsonObject) -> Step:
        question = first_user_text(body)
        title = VERIFY_TITLE.search(question)
        if title is None or "verdict" not in prompt_text(body):
            return reply(json.dumps({"findings": []}))
        claim = truth.get(title["title"].strip())
        if claim is None:
            return reply(json.dumps({"verdict": "uncertain", "reason": "not a claim I know"}))
        results = tool_results(body)
        plan = planned_calls(question, title["title"])
        if offers_tools(body) and len(results) < len(plan):
            return call_tools(plan[len(results)])
        read = "\n".join([*results, question])
        decisive = claim.decisive
        seen = sees(decisive, read)
        draw = drawn(seed, question)
        verdict = _verdict_of(claim.real, looking if seen else blind, draw)
        evidence = []
        if seen and decisive is not None and verdict != "uncertain":
            misquoted = drawn(seed + "\0quote", question) < misquote
            evidence = [citation(decisive, read, misquoted)]
        reason = "Read the code that decides it." if seen else "Judged from the change."
        return reply(json.dumps({"verdict": verdict, "reason": reason, "evidence": evidence}))

    return respond


MISQUOTE = "the code checks this before it gets here"  # a citation in the judge's own words


def sees(decisive: Decisive | None, read: str) -> bool:
    """Whether what the judge read (tool results, inline evidence) holds the decisive line."""
    return decisive is not None and _normal(decisive.text) in _normal(read)


def citation(decisive: Decisive, read: str, misquoted: bool = False) -> JsonObject:
    """The verdict's citation of the decisive line: its line as the tool result numbered
    it; `misquoted`: in the judge's own words (a citation the product must refuse)."""
    line = _numbered_line(read, decisive) or decisive.line
    quote = MISQUOTE if misquoted else decisive.text
    return {"path": decisive.path, "start_line": line, "end_line": line, "quote": quote}


def planned_calls(question: str, title: str) -> list[tuple[str, JsonObject]]:
    """The judge's tool calls, from the claim alone: its file around its lines, then each
    quoted name's definition and references."""
    calls: list[tuple[str, JsonObject]] = []
    where = LOCATION.search(question)
    if where is not None:
        start = max(1, int(where["line"]) - READ_AROUND)
        end = int(where["end"]) + READ_AROUND
        calls.append(("read_file", {"path": where["path"], "start_line": start, "end_line": end}))
    for name in list(dict.fromkeys(QUOTED_NAME.findall(title)))[:NAMES_LOOKED_UP]:
        calls.append(("find_definition", {"symbol": name}))
        calls.append(("find_references", {"symbol": name}))
    return calls


def offers_tools(body: JsonObject) -> bool:
    """Tools are offered and the model may call them (not `tool_choice: none`)."""
    choice = body.get("tool_choice")
    none = choice == "none" or (isinstance(choice, dict) and choice.get("type") == "none")
    return bool(body.get("tools")) and not none


def first_user_text(body: JsonObject) -> str:
    """The question itself: the first user message (tool results come after it)."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [p.get("text", "") for p in content if isinstance(p, dict)]
                return "".join(str(t) for t in texts)
    return ""


def tool_results(body: JsonObject) -> list[str]:
    """The tool results of the conversation so far, in order, whatever the API: OpenAI's
    and Ollama's `tool` messages, Anthropic's `tool_result` blocks."""
    return list(_results(body.get("messages") or []))


def _results(messages: list[object]) -> Iterator[str]:
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "tool":
            yield content if isinstance(content, str) else json.dumps(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, list):
                        inner = "".join(
                            str(b.get("text", "")) for b in inner if isinstance(b, dict)
                        )
                    yield str(inner or "")


def _numbered_line(read: str, decisive: Decisive) -> int | None:
    """The line number the tool result gave the decisive line, where it numbered it."""
    wanted = _normal(decisive.text)
    for line in read.splitlines():
        found = NUMBERED.match(line)
        if found and wanted in _normal(found["text"]):
            return int(found["line"])
    return None


def _verdict_of(real: bool, rates: Rates, draw: float) -> str:
    return drawn_verdict(real, rates.tpr, rates.tnr, rates.uncertain, draw)


def _normal(text: str) -> str:
    return " ".join(text.split())
