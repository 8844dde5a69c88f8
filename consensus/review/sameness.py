"""SAME PROBLEM?: the open questions of alignment, put to a verifier.

Align settles most pairs of findings from who reported them, where and in what words
(consensus.align). What the words cannot decide (one finding names no known kind of defect,
or two findings name different kinds in alike words) align returns as open questions; when
verification runs, each is asked once, before alignment is redone with the answers:

- first-to-ahead-by-k, like the verification of findings: two judges are asked together,
  then one more at a time until the answer that agrees with what the words say (the
  question's `default`) leads by AHEAD_BY (2), or the other one leads by AHEAD_BY + 1:
  the words are evidence too, and overturning them takes more. At most MAX_ANSWERS
  answers; then the majority. One wrong answer neither splits one problem into two
  comments nor joins two;
- judges rotate over the panel's providers of families that reported neither side, in
  panel order, then the others: no model judges its own wording while another can. With
  one provider, the same model is asked again (its own request each time);
- the question shows both sides' titles and explanations and the hunk they are on, marked
  as data, never who reported them; temperature 0, and a seed derived from the question
  and the judge, so a run on the same code asks it the same way (where seeds are honoured);
- the answer is `same` or `different`; a failed call, a budget refusal or a reply that is
  still malformed after RESAMPLES more tries counts as no answer. No answers at all, or a
  tie when the cap is reached or the judges stop answering, leave the question to the text.

Every call goes through the run's guarded, journaled client, so it is counted in the
budget, recorded, and served again by a replay; the requests depend on the findings only,
so the questions and their order are the same every time.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

from consensus.decide.align import SameProblemQuestion
from consensus.ingest.view import render_file
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Finding
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.review.ledger import Ledger
from consensus.review.prompt import template
from consensus.review.reply import ReplyError, parse_same_problem
from consensus.settings.config import ProviderSettings

RESAMPLES = 1
AHEAD_BY = 2  # answers asked until the words' side leads by this many, the other by one more …
MAX_ANSWERS = 5  # … or this many were given; then the majority, and a tie is no answer
MAX_SHOWN = 3  # findings shown per side (distinct titles, canonical order)


def settled(question: SameProblemQuestion, said: Sequence[bool]) -> bool | None:
    """The answer once one side leads by enough (True: one problem), else None: AHEAD_BY
    for the side the words take (`question.default`), AHEAD_BY + 1 for the other."""
    lead = 2 * sum(said) - len(said)  # "same" answers minus "different" ones
    if lead >= AHEAD_BY + (not question.default):
        return True
    if -lead >= AHEAD_BY + question.default:
        return False
    return None


def judges_for(
    question: SameProblemQuestion, panel: Sequence[ProviderSettings]
) -> list[ProviderSettings]:
    """The judges in the order they are asked: providers of families that reported neither
    side first, in panel order, then the others."""
    reporters = {f.family for f in (*question.first, *question.second)}
    return [p for p in panel if p.voting_family not in reporters] + [
        p for p in panel if p.voting_family in reporters
    ]


def _shown(side: Sequence[Finding]) -> list[Finding]:
    seen: set[str] = set()
    shown = []
    for finding in side:
        if finding.title not in seen:
            seen.add(finding.title)
            shown.append(finding)
    return shown[:MAX_SHOWN]


def _lines(side: Sequence[Finding]) -> str:
    start = min(f.line for f in side)
    end = max(max(f.line, f.end_line) for f in side)
    return f"{start}-{end}"


def _hunk(diff: ReviewDiff, path: str, lines: Sequence[int]) -> str:
    changed = diff.file(path)
    if changed is None:
        return "(the file is not in the diff)"
    chosen = [
        n
        for n, h in enumerate(changed.hunks)
        if any(h.new_start <= line < h.new_start + max(h.new_length, 1) for line in lines)
    ]
    return render_file(changed, chosen or None)


def _seed(model: str, prompt: str) -> int:
    digest = hashlib.sha256(f"{model}\0{prompt}".encode("utf-8", "replace")).digest()
    return int.from_bytes(digest[:4], "big") >> 1  # under 2**31: every API takes it


def request_for(
    question: SameProblemQuestion, judge: ProviderSettings, diff: ReviewDiff, *, turn: int
) -> CompletionRequest:
    """The question as one judge is asked it; each `turn` is its own request, so a journal
    keeps every answer even when one model is asked twice."""
    first, second = question.first, question.second
    path = first[0].path
    hunk = _hunk(diff, path, [f.line for f in (*first, *second)])
    nonce = hashlib.sha256(hunk.encode("utf-8", "replace")).hexdigest()[:12]
    user = template("same.j2").render(
        nonce=nonce,
        path=path,
        first=_shown(first),
        second=_shown(second),
        first_lines=_lines(first),
        second_lines=_lines(second),
        hunk=hunk,
        turn=turn,
    )
    system = template("same_system.j2").render(nonce=nonce)
    return CompletionRequest(
        model=judge.model,
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        api_base=judge.api_base,
        api_key_env=judge.api_key_env,
        timeout_s=judge.timeout_s,
        temperature=0.0,
        max_tokens=300,
        seed=_seed(judge.model, user),
    )


async def ask_same_problem(
    questions: Sequence[SameProblemQuestion],
    *,
    diff: ReviewDiff,
    panel: Sequence[ProviderSettings],
    client: ModelClient,
    ledger: Ledger,
    concurrency: int,
) -> dict[SameProblemQuestion, bool]:
    """Each question's answer (True: one problem), for those that got one."""
    if not panel or not questions:
        return {}
    slots = asyncio.Semaphore(concurrency)

    async def one(judge: ProviderSettings, request: CompletionRequest) -> bool | None:
        for attempt in range(RESAMPLES + 1):
            asked = request if not attempt else _again(request, attempt)
            async with slots:
                try:
                    completion = await client.complete(asked)
                except ModelCallError:
                    return None
            ledger.note_verification(judge.model, completion.usage)
            try:
                return parse_same_problem(completion.text).verdict == "same"
            except ReplyError:
                continue
        return None

    async def ask(question: SameProblemQuestion) -> bool | None:
        judges = judges_for(question, panel)
        said: list[bool] = []
        turn = 0
        while turn < MAX_ANSWERS and settled(question, said) is None:
            width = AHEAD_BY if not turn else 1  # the first two together, then one by one
            asked = [judges[(turn + n) % len(judges)] for n in range(width)]
            got = await asyncio.gather(
                *(one(j, request_for(question, j, diff, turn=turn + n + 1))
                  for n, j in enumerate(asked))
            )  # fmt: skip
            turn += width
            said += [a for a in got if a is not None]
            if not any(a is not None for a in got):
                break  # the judges are failing: leave it to what was said so far
        answer = settled(question, said)
        if answer is None and said and 2 * sum(said) != len(said):
            answer = 2 * sum(said) > len(said)  # stopped short of a lead: the majority
        return answer

    answers = await asyncio.gather(*(ask(q) for q in questions))
    return {q: same for q, same in zip(questions, answers, strict=True) if same is not None}


def _again(request: CompletionRequest, attempt: int) -> CompletionRequest:
    """The same question asked again: its own request, so a journal keeps both answers."""
    last = request.messages[-1]
    again = last.model_copy(update={"content": f"{last.content}\n(Asked again: {attempt}.)"})
    return request.model_copy(update={"messages": (*request.messages[:-1], again)})
