"""Split the diff into chunks that fit a model's context window.

Whole files where they fit; a file larger than the budget is split between hunks; a
hunk longer than `MAX_HUNK_LINES` is split into consecutive pieces at ingest time, so
that every piece fits any realistic window. Nothing is ever silently truncated: every
hunk of every reviewed file lands in exactly one chunk for every provider.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from consensus.ingest.view import render_file
from consensus.model.diff import ChangedFile, Chunk, ChunkPart, Hunk, ReviewDiff

MAX_HUNK_LINES = 300


def split_large_hunks(diff: ReviewDiff, max_lines: int = MAX_HUNK_LINES) -> ReviewDiff:
    """Cut hunks longer than `max_lines` into consecutive hunks with correct line starts."""
    files = []
    for changed in diff.files:
        if all(len(hunk.lines) <= max_lines for hunk in changed.hunks):
            files.append(changed)
            continue
        hunks: list[Hunk] = []
        for hunk in changed.hunks:
            hunks.extend(_split_hunk(hunk, max_lines))
        files.append(changed.model_copy(update={"hunks": tuple(hunks)}))
    return diff.model_copy(update={"files": tuple(files)})


def _split_hunk(hunk: Hunk, max_lines: int) -> list[Hunk]:
    if len(hunk.lines) <= max_lines:
        return [hunk]
    pieces = []
    old_next, new_next = hunk.old_start, hunk.new_start
    for start in range(0, len(hunk.lines), max_lines):
        lines = hunk.lines[start : start + max_lines]
        old_len = sum(1 for line in lines if line.kind != "+")
        new_len = sum(1 for line in lines if line.kind != "-")
        pieces.append(
            Hunk(
                old_start=old_next,
                old_length=old_len,
                new_start=new_next,
                new_length=new_len,
                section=hunk.section,
                lines=lines,
            )
        )
        old_next += old_len
        new_next += new_len
    return pieces


def plan_chunks(
    files: Sequence[ChangedFile],
    *,
    budget_tokens: int,
    count: Callable[[str], int],
) -> list[Chunk]:
    """Group files (or hunks of an oversized file) into chunks of at most `budget_tokens`.

    A single hunk that is still over budget gets a chunk of its own: the provider may
    reject it as too long, which is then reported as that provider's failure for that
    chunk — never dropped unseen.
    """
    chunks: list[Chunk] = []
    parts: list[ChunkPart] = []
    used = 0

    def close() -> None:
        nonlocal parts, used
        if parts:
            chunks.append(Chunk(index=len(chunks), parts=tuple(parts), tokens=used))
            parts, used = [], 0

    for changed in files:
        whole = count(render_file(changed))
        if whole <= budget_tokens:
            if used + whole > budget_tokens:
                close()
            parts.append(ChunkPart(path=changed.path, hunks=tuple(range(len(changed.hunks)))))
            used += whole
            continue
        # Oversized file: hunks in order, as many per chunk as fit.
        close()
        group: list[int] = []
        group_tokens = 0
        for index in range(len(changed.hunks)):
            cost = count(render_file(changed, [index]))
            if group and group_tokens + cost > budget_tokens:
                parts.append(ChunkPart(path=changed.path, hunks=tuple(group), whole=False))
                used = group_tokens
                close()
                group, group_tokens = [], 0
            group.append(index)
            group_tokens += cost
        if group:
            parts.append(ChunkPart(path=changed.path, hunks=tuple(group), whole=False))
            used = group_tokens
            close()
    close()
    return chunks


def render_chunk(chunk: Chunk, diff: ReviewDiff) -> str:
    """The diff text of a chunk, as the model sees it."""
    rendered = []
    for part in chunk.parts:
        changed = diff.file(part.path)
        if changed is None:  # a plan always comes from this diff
            raise ValueError(f"chunk names {part.path}, which is not in the diff")
        rendered.append(render_file(changed, None if part.whole else list(part.hunks)))
    return "\n".join(rendered)
