"""Ingest: raw diff → ReviewDiff, composing parse → select → redact, and the added lines
that were only moved (ingest/moved.py). Pure, no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.ingest.linguist import parse_attributes
from consensus.ingest.moved import moved_blocks
from consensus.ingest.parse import parse_diff_full
from consensus.ingest.pathfilter import select_files
from consensus.ingest.redact import redact_files
from consensus.model.diff import ReviewDiff, SkippedFile


def ingest(
    raw: bytes | str,
    *,
    include: Sequence[str] = ("**",),
    exclude: Sequence[str] = (),
    redact_patterns: Sequence[str] = (),
    gitattributes: str = "",
) -> ReviewDiff:
    """Parse the diff, keep the files to review, and redact secrets in what is kept.

    `skipped` lists files the parser set aside (deleted, binary, symlink…) before those
    the path filter did (not in paths, excluded, lockfile…). Only kept files are scanned
    for secrets: nothing else reaches a provider.
    """
    parsed = parse_diff_full(raw)
    kept, filtered = select_files(
        parsed.files,
        include=include,
        exclude=exclude,
        attributes=parse_attributes(gitattributes),
    )
    # A pure rename has no line a finding could be anchored to: nothing to review.
    moved = [
        SkippedFile(path=f.path, reason="renamed without changes") for f in kept if not f.hunks
    ]
    files, redactions = redact_files([f for f in kept if f.hunks], redact_patterns)
    kept_paths = {f.path for f in files}
    return ReviewDiff(
        files=tuple(files),
        skipped=(*parsed.skipped, *filtered, *moved),
        redactions=tuple(redactions),
        links=tuple(parsed.links),
        moved=tuple(m for m in moved_blocks(parsed.files, parsed.deleted) if m.path in kept_paths),
    )
