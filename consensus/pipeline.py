"""The review pipeline, in order: plan → fan out → align → score → report.

Takes plain data and ports; returns a Report. The CLI (and later the Action) builds the
inputs at the edge: the diff, the settings, the personas, a ModelClient, a TokenCounter.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Protocol

from consensus.align import align
from consensus.chunking import plan_chunks, render_chunk
from consensus.config import ProviderSettings, Settings
from consensus.fanout import CallResult, FanoutObserver, ReviewCall, fan_out, unreachable
from consensus.models import Chunk, ModelReview, Report, ReviewDiff
from consensus.personas import Persona, render_persona
from consensus.ports import CompletionRequest, ModelClient, TokenCounter
from consensus.prompt import review_messages, review_schema
from consensus.report import build_report
from consensus.score import score


class ReviewObserver(FanoutObserver, Protocol):
    """Fan-out events plus the pipeline's own: phases and the number of planned calls."""

    def phase(self, name: str, detail: str = "") -> None: ...

    def planned(self, total: int) -> None: ...


OUTPUT_RESERVE_TOKENS = 4_096  # room left for the model's answer
PROMPT_RESERVE_TOKENS = 3_000  # system prompt, persona and schema around the diff
WINDOW_SHARE = 0.8  # use at most this share of a window: tokenizers disagree a little


def context_budget(provider: ProviderSettings, counter: TokenCounter, default: int) -> int:
    """Tokens of diff one call to `provider` may carry."""
    window = provider.context_window or counter.context_window(provider.model) or default
    return max(1_000, int(window * WINDOW_SHARE) - OUTPUT_RESERVE_TOKENS - PROMPT_RESERVE_TOKENS)


def plan_calls(
    diff: ReviewDiff,
    *,
    providers: Sequence[ProviderSettings],
    personas: Sequence[Persona],
    counter: TokenCounter,
    default_window: int,
) -> list[ReviewCall]:
    """Every (provider, chunk, persona) call, in the order they should be made.

    Chunk-major, then persona, then provider: each provider sees one chunk's personas in a
    row (same prefix, cache hits), all providers progress together (a budget that runs out
    leaves whole chunks unreviewed by everyone rather than one provider silent), and the
    global concurrency is shared across providers from the first call.
    """
    calls = []
    for provider in providers:
        chunks = plan_chunks(
            diff.files,
            budget_tokens=context_budget(provider, counter, default_window),
            count=partial(counter.count, provider.model),
        )
        for chunk in chunks:
            diff_text = render_chunk(chunk, diff)
            for persona in personas:
                calls.append(_call(provider, persona, chunk, diff_text))
    rank = {p.model: n for n, p in enumerate(providers)}
    order = {p.id: n for n, p in enumerate(personas)}
    return sorted(calls, key=lambda c: (c.chunk.index, order[c.persona], rank[c.provider.model]))


def _call(provider: ProviderSettings, persona: Persona, chunk: Chunk, diff_text: str) -> ReviewCall:
    messages = review_messages(diff_text, render_persona(persona, paths=chunk.paths), chunk.paths)
    request = CompletionRequest(
        model=provider.model,
        messages=messages,
        response_schema=review_schema(),
        schema_name="review",
        api_base=provider.api_base,
        api_key_env=provider.api_key_env,
        timeout_s=provider.timeout_s,
        temperature=0.0,
    )
    return ReviewCall(provider=provider, persona=persona.id, chunk=chunk, request=request)


def coverage(results: Sequence[CallResult]) -> dict[str, frozenset[str]]:
    """path → families that returned a valid review of a chunk holding that path."""
    seen: dict[str, set[str]] = defaultdict(set)
    for result in results:
        if isinstance(result, ModelReview):
            for path in result.paths:
                seen[path].add(result.family)
    return {path: frozenset(families) for path, families in seen.items()}


def anchor_reader(diff: ReviewDiff) -> Callable[[str, int, int], str]:
    """(path, line, end_line) → the new-side code there, for fingerprints."""
    index: dict[str, dict[int, str]] = {}
    for changed in diff.files:
        index[changed.path] = {
            line.new_line: line.text
            for hunk in changed.hunks
            for line in hunk.lines
            if line.new_line is not None
        }

    def read(path: str, line: int, end_line: int) -> str:
        lines = index.get(path, {})
        return "\n".join(lines[n] for n in range(line, end_line + 1) if n in lines)

    return read


def run_id_for(diff: ReviewDiff, settings: Settings, providers: Sequence[ProviderSettings]) -> str:
    """Derived from content: the same diff and configuration give the same run id."""
    digest = hashlib.sha256()
    digest.update(diff.model_dump_json().encode())
    digest.update(settings.model_dump_json().encode())
    digest.update(json.dumps([p.model_dump(mode="json") for p in providers]).encode())
    return digest.hexdigest()[:12]


async def review(
    diff: ReviewDiff,
    *,
    settings: Settings,
    providers: Sequence[ProviderSettings],
    personas: Sequence[Persona],
    client: ModelClient,
    counter: TokenCounter,
    clock: Callable[[], float],
    observer: ReviewObserver | None = None,
    verify: bool = True,
    unavailable: Mapping[str, str] | None = None,
) -> Report:
    """Review `diff`; providers named in `unavailable` (model → why) abstain uncalled."""
    started = clock()
    calls = plan_calls(
        diff,
        providers=providers,
        personas=personas,
        counter=counter,
        default_window=settings.default_context_window,
    )
    skipped = unavailable or {}
    to_call = [c for c in calls if c.provider.model not in skipped]
    if observer is not None:
        chunks = max((c.chunk.index + 1 for c in calls), default=0)
        observer.phase(
            "fan-out",
            f"{len(to_call)} calls: {len(providers) - len(skipped)} providers × "
            f"{len(personas)} personas × {'up to ' if chunks > 1 else ''}{chunks} "
            f"chunk{'s' if chunks > 1 else ''} of {len(diff.files)} files",
        )
        observer.planned(len(to_call))
    results = await fan_out(
        to_call,
        client,
        diff,
        concurrency=settings.concurrency,
        budget=settings.budget,
        observer=observer,
    )
    results += [
        unreachable(c, skipped[c.provider.model]) for c in calls if c.provider.model in skipped
    ]
    if observer is not None:
        observer.phase("align and score")
    findings = [f for r in results if isinstance(r, ModelReview) for f in r.findings]
    clusters = align(findings, anchor_text=anchor_reader(diff))
    scored = score(
        clusters,
        coverage(results),
        threshold=settings.threshold,
        verify_min_severity=settings.verify_min_severity,
    )
    report = build_report(
        run_id=run_id_for(diff, settings, providers),
        diff=diff,
        scored=scored,
        results=results,
        models=[(p.model, p.voter) for p in providers],
        threshold=settings.threshold,
        min_providers=settings.min_providers,
        wall_s=clock() - started,
        notes=_notes(results),
    )
    return report.model_copy(update={"verification": "skipped" if not verify else "not_available"})


def _notes(results: Sequence[CallResult]) -> list[str]:
    repaired = sum(1 for r in results if isinstance(r, ModelReview) and r.repaired)
    if not repaired:
        return []
    replies = "reply was" if repaired == 1 else "replies were"
    return [f"{repaired} {replies} invalid at first and accepted after one repair turn"]
