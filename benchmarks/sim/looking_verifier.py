"""The quality benchmark's judges that look: today's simulated verifier, offered tools.

Asked with the verification tools, a judge plans its calls from the claim alone, as
consensus_sim/looking_judge.py's judge does (`planned_calls`: the claim's file 30 lines
either side of its lines, then the definition and the uses of the first two names its
title or explanation quotes in backticks), asks for them all in one round, as models
call tools in parallel, and answers once they are answered. It answers with its preset's
blind rates unless the tool results (or the evidence the prompt gives inline) hold the
line that decides the claim (benchmarks/sim/looking_world.py), and then with its looking
rates at the benchmark's effect (benchmarks/sim/judge_presets.py `looking`). Both from
the one draw of the question, as benchmarks/sim/quality_world.py's `Verifier` draws it
(self-preference and a family's repeated first verdict as there), drawn from the question
without the product's first read in it (`blind_question`), so at effect none every
verdict is the blind judge's. A looking answer cites the line it read (path, the line as
the tool result numbered it, its text); with probability `MISQUOTE` in its own words, a
citation the product's check refuses.

Tokens are estimated, the fake client reporting none: four characters a token of
everything sent (the messages and, when offered, the tools' schemas) and answered
(`CHARS_PER_TOKEN`), for the judges that look and for the blind ones alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from benchmarks.sim.judge_presets import LOOKED, Judge, looking
from benchmarks.sim.looking_world import Repo
from benchmarks.sim.quality_world import (
    SimParams,
    SimPR,
    Verifier,
    _draw,
    about_bug,
    question_of,
)
from consensus.model.completion import ToolCall
from consensus.ports import Completion, CompletionRequest
from consensus.testing import FakeModelClient
from consensus_sim.looking_judge import citation, planned_calls, sees

MISQUOTE = 0.05  # a looking judge cites the line in its own words (an assumption)
CHARS_PER_TOKEN = 4
EXPLANATION = "Explanation given:\n"
INLINE = "What the repository holds that bears on it"  # verify.j2's inline evidence
_FIRST_READ = re.compile(
    r"\n\nWhat the repository holds that bears on it \(read by consensus for you\):\n.*?"
    r"(?=\n\nWhat static analyzers report|\n</data-)",
    re.S,
)


def blind_question(prompt: str) -> str:
    """The question as a judge that is shown no code is asked it (verify.j2 without the
    product's first read): the one draw of a claim, looking or not."""
    return _FIRST_READ.sub("", prompt, count=1)


@dataclass
class Counts:
    """What one verifier client answered: rounds, tool calls, estimated tokens, and how
    many verdicts were given having read the deciding line."""

    tool_calls: int = 0
    verify_tokens: int = 0  # of the inspector's and the votes' conversations
    same_tokens: int = 0  # of "same problem?"
    looked: int = 0
    blind: int = 0
    misquoted: int = 0


@dataclass
class LookingVerifier:
    """Today's `Verifier` with the tools: see the module docstring. `effect` 0 with tools
    offered gives today's verdicts; without tools it is today's verifier."""

    pr: SimPR
    params: SimParams
    repo: Repo
    effect: float
    looked: Judge = LOOKED  # the looking rates at the stated effect
    counts: Counts = field(default_factory=Counts)

    def __post_init__(self) -> None:
        self.today = Verifier(self.pr, self.params)

    def answer(self, request: CompletionRequest) -> Completion:
        prompt = question_of(request)
        if "describe the same defect?" in prompt or "Location: " not in prompt:
            return self._spent(request, self.today.answer(request), same=True)
        results = [m.content for m in request.messages if m.role == "tool"]
        plan = planned_calls(prompt, _claim_words(prompt))
        if request.tools and request.tool_choice != "none" and not results and plan:
            calls = tuple(
                ToolCall(id=f"call_{n}", name=name, arguments=json.dumps(arguments))
                for n, (name, arguments) in enumerate(plan)
            )
            self.counts.tool_calls += len(calls)
            return self._spent(request, "", calls)
        (path, line, end), real, problem = self.today.claim(prompt)
        about = about_bug(self.pr.bugs, path, line, end) if real else problem
        truth = self.repo.truth.get(about) if about is not None else None
        decisive = truth.decisive if truth is not None else None
        read = "\n".join([*results, prompt.partition(INLINE)[2]])
        seen = sees(decisive, read)
        judge: Judge | None = None
        if seen:
            blind = self.params.judges.judge(self.today.family(request))
            judge = looking(blind, self.effect, self.looked)
        verdict = self.today.verdict(request, blind_question(prompt), judge)
        evidence = []
        if seen and decisive is not None and verdict != "uncertain":
            misquoted = _draw(self.params.seed, "misquote", request.model, prompt) < MISQUOTE
            self.counts.misquoted += misquoted
            evidence = [citation(decisive, read, misquoted)]
        self.counts.looked += seen
        self.counts.blind += not seen
        reason = "Read the code that decides it." if seen else "Judged from the change."
        text = json.dumps({"verdict": verdict, "reason": reason, "evidence": evidence})
        return self._spent(request, text)

    def _spent(
        self,
        request: CompletionRequest,
        text: str,
        calls: tuple[ToolCall, ...] = (),
        same: bool = False,
    ) -> Completion:
        sent = sum(len(m.content) for m in request.messages)
        sent += sum(len(json.dumps(t.parameters)) + len(t.description) for t in request.tools)
        said = len(text) + sum(len(c.arguments) + len(c.name) for c in calls)
        tokens_in, tokens_out = sent // CHARS_PER_TOKEN, said // CHARS_PER_TOKEN
        if same:
            self.counts.same_tokens += tokens_in + tokens_out
        else:
            self.counts.verify_tokens += tokens_in + tokens_out
        return Completion(text=text, tokens_in=tokens_in, tokens_out=tokens_out, tool_calls=calls)

    def client(self) -> FakeModelClient:
        return FakeModelClient(by_request=self.answer, tokens_in=0, tokens_out=0, cost_usd=0.0)


def _claim_words(prompt: str) -> str:
    """The claim's title and explanation: where the judge finds the names to look up."""
    title = next((line[7:] for line in prompt.splitlines() if line.startswith("Title: ")), "")
    body = prompt.partition(EXPLANATION)[2].partition("\n\n")[0]
    return f"{title} {body}"
