"""The benchmark's judge: does a posted finding describe one of the PR's known defects?

One call per (finding, pull request), listing every golden comment of that PR; the answer
comes first ("match" or "no_match"), then which golden it matches, then why. The prompt is
ours (review/prompts/bench/), rendered with StrictUndefined; findings, goldens and code are
marked as data behind a nonce. The reply is validated like every model reply: a reply that
cannot be used gets one repair turn quoting the problem, then becomes a failed judgement
(counted as no match, and listed). Temperature 0; every call goes through the journaled
client the app hands in, so a re-scored bench asks nothing again. A clean pull request
(no golden) is not asked about: a finding there can match nothing, and its GoldenMatch
says so without a call.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, ValidationError, field_validator

from consensus.bench.suite import SuitePR
from consensus.ingest.view import render_file
from consensus.model.base import Frozen
from consensus.model.diff import ReviewDiff
from consensus.model.findings import FindingStatement
from consensus.model.reply import ModelReply
from consensus.model.report import ReportFinding
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.review.prompt import template
from consensus.review.reply import ReplyError, extract_json
from consensus.settings.config import ProviderSettings

MAX_REPLY_TOKENS = 400


class BenchFinding(FindingStatement):
    """A finding as the judge sees it: where, how severe, and what it says."""

    @classmethod
    def of(cls, finding: ReportFinding) -> BenchFinding:
        return cls(
            path=finding.path,
            line=finding.line,
            end_line=max(finding.end_line, finding.line),
            severity=finding.severity,
            category=finding.category,
            title=finding.title,
            body=finding.body,
        )

    @property
    def key(self) -> str:
        """Stable across runs and variants: the same words at the same place."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


class JudgeReply(ModelReply):
    verdict: Literal["match", "no_match"]
    golden: int | None = None  # 1-based, as the prompt numbers them
    reason: str = Field(default="", max_length=4_000)

    @field_validator("verdict", mode="before")
    @classmethod
    def _word(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().lower().replace(" ", "_").replace("-", "_")
        return value


class GoldenMatch(Frozen):
    """Which golden comment of its PR one finding matches, as the judge answered (or, on a
    clean PR, none, without asking). `matched` None: the judge failed."""

    pr: str
    finding: BenchFinding
    matched: bool | None
    golden: int | None = None  # 0-based index into the PR's goldens
    golden_comment: str = ""
    reason: str = ""
    judge: str

    @property
    def hit(self) -> bool:
        return self.matched is True and self.golden is not None


def parse_judgement(text: str, goldens: int) -> JudgeReply:
    """A valid reply, or ReplyError saying (to the model) what is wrong with it."""
    try:
        reply = JudgeReply.model_validate(extract_json(text))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReplyError(f"{where}: {first['msg']}" if where else first["msg"]) from None
    if reply.verdict == "match" and (reply.golden is None or not 1 <= reply.golden <= goldens):
        raise ReplyError(f'with "match", "golden" must be a number from 1 to {goldens}')
    return reply


def nearby_hunks(diff: ReviewDiff | None, finding: BenchFinding) -> str:
    """The hunks of the finding's file that hold its lines ("" outside the diff)."""
    changed = diff.file(finding.path) if diff is not None else None
    if changed is None:
        return ""
    chosen = [
        n
        for n, h in enumerate(changed.hunks)
        if h.new_start <= finding.end_line and finding.line < h.new_start + max(h.new_length, 1)
    ]
    return render_file(changed, chosen or None)


def judge_request(
    finding: BenchFinding, pr: SuitePR, judge: ProviderSettings, hunk: str
) -> CompletionRequest:
    """The question for one finding of one PR, every golden listed."""
    nonce = hashlib.sha256(f"{pr.key}\0{finding.key}".encode()).hexdigest()[:12]
    user = template("bench/judge.j2").render(
        nonce=nonce, title=pr.title, goldens=pr.goldens, finding=finding, hunk=hunk
    )
    return CompletionRequest(
        model=judge.model,
        messages=(
            Message(role="system", content=template("bench/judge_system.j2").render(nonce=nonce)),
            Message(role="user", content=user),
        ),
        response_schema=JudgeReply.model_json_schema(),
        schema_name="judgement",
        api_base=judge.api_base,
        api_key_env=judge.api_key_env,
        timeout_s=judge.timeout_s,
        temperature=0.0,
        max_tokens=MAX_REPLY_TOKENS,
    )


def _repair(request: CompletionRequest, said: str, problem: str) -> CompletionRequest:
    turn = (
        Message(role="assistant", content=said),
        Message(role="user", content=template("bench/repair.j2").render(problem=problem)),
    )
    return CompletionRequest.model_validate(
        {**request.model_dump(), "messages": [*request.messages, *turn]}
    )


async def judge_finding(
    finding: BenchFinding,
    pr: SuitePR,
    *,
    judge: ProviderSettings,
    client: ModelClient,
    hunk: str,
) -> GoldenMatch:
    """Ask the judge, with one repair turn; a failure is a GoldenMatch with matched None."""
    request = judge_request(finding, pr, judge, hunk)
    failed = ""
    for _ in range(2):
        try:
            completion = await client.complete(request)
        except ModelCallError as exc:
            failed = f"the judge's call failed ({exc.kind.value}): {exc.message}"
            break
        try:
            reply = parse_judgement(completion.text, len(pr.goldens))
        except ReplyError as exc:
            failed = f"the judge's reply could not be used: {exc.problem}"
            request = _repair(request, completion.text, exc.problem)
            continue
        index = reply.golden - 1 if reply.verdict == "match" and reply.golden else None
        return GoldenMatch(
            pr=pr.key,
            finding=finding,
            matched=reply.verdict == "match",
            golden=index,
            golden_comment=pr.goldens[index].comment if index is not None else "",
            reason=reply.reason,
            judge=judge.model,
        )
    return GoldenMatch(pr=pr.key, finding=finding, matched=None, reason=failed, judge=judge.model)


CLEAN_PR = "the suite lists no defect on this pull request: every finding on it is a false positive"


def clean_pr_match(finding: BenchFinding, pr: SuitePR) -> GoldenMatch:
    """A finding on a clean PR: no golden to match, no judge asked."""
    return GoldenMatch(pr=pr.key, finding=finding, matched=False, reason=CLEAN_PR, judge="")


async def judge_all(
    asked: Sequence[tuple[BenchFinding, str]],
    pr: SuitePR,
    *,
    judge: ProviderSettings,
    client: ModelClient,
    concurrency: int,
) -> list[GoldenMatch]:
    """Every (finding, hunk) of one PR judged, in the order given."""
    if not pr.goldens:
        return [clean_pr_match(finding, pr) for finding, _ in asked]
    slots = asyncio.Semaphore(max(1, concurrency))

    async def one(finding: BenchFinding, hunk: str) -> GoldenMatch:
        async with slots:
            return await judge_finding(finding, pr, judge=judge, client=client, hunk=hunk)

    return list(await asyncio.gather(*(one(f, h) for f, h in asked)))
