"""What is already on the PR: our summary, our inline comments, and the state they carry."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from consensus.model.base import Frozen
from consensus.ports import HostComment
from consensus.publish.state import (
    PublishState,
    decode_state,
    state_line_present,
)

_FP_LINE = re.compile(r"^<!-- consensus:fp=([0-9a-f]{8,64}(?:-\d{1,4})?) -->$")
SUMMARY_MARKER = "<!-- consensus:summary -->"


def fingerprint_marker(fingerprint: str) -> str:
    return f"<!-- consensus:fp={fingerprint} -->"


def review_marker(head_sha: str) -> str:
    return f"<!-- consensus:review head={head_sha} -->"


class PullRequestThread(Frozen):
    """What earlier runs left on the PR: the summary comment, its state, inline markers."""

    summary_id: int | None = None
    summary_body: str = ""
    state: PublishState = PublishState()
    inline_fingerprints: frozenset[str] = frozenset()
    state_problem: str = ""  # why a state block on the summary was ignored


def _ours(comment: HostComment, trusted: Collection[str]) -> bool:
    return comment.author_is_bot or comment.author in trusted


def duplicates(
    issue_comments: Sequence[HostComment],
    review_comments: Sequence[HostComment],
    *,
    trusted_authors: Collection[str] = (),
) -> tuple[list[int], list[int]]:
    """(review comment ids, summary ids) that repeat an older one of ours: what two runs on
    one PR at once both posted. Every run computes the same answer (the oldest survives)."""
    by_print: dict[str, list[int]] = {}
    for comment in review_comments:
        if _ours(comment, trusted_authors):
            match = _FP_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
            if match:
                by_print.setdefault(match.group(1), []).append(comment.id)
    inline = [extra for ids in by_print.values() for extra in sorted(ids)[1:]]
    summaries = sorted(
        c.id
        for c in issue_comments
        if _ours(c, trusted_authors) and c.body.split("\n", 1)[0].strip() == SUMMARY_MARKER
    )
    return sorted(inline), summaries[1:]


def read_thread(
    issue_comments: Sequence[HostComment],
    review_comments: Sequence[HostComment],
    *,
    trusted_authors: Collection[str] = (),
) -> PullRequestThread:
    """Find our summary (first line is the marker) and our inline fingerprints (last line)."""
    summaries = [
        c
        for c in issue_comments
        if _ours(c, trusted_authors) and c.body.split("\n", 1)[0].strip() == SUMMARY_MARKER
    ]
    summary = summaries[0] if summaries else None  # the oldest: the one users have seen
    fingerprints = set()
    for comment in review_comments:
        if _ours(comment, trusted_authors):
            match = _FP_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
            if match:
                fingerprints.add(match.group(1))
    state = decode_state(summary.body) if summary else None
    problem = ""
    if summary is not None and state is None and state_line_present(summary.body):
        problem = (
            f"the state block of summary comment {summary.id} is unreadable or was altered: "
            "ignored (findings, dismissals and pause start afresh)"
        )
    return PullRequestThread(
        summary_id=summary.id if summary else None,
        summary_body=summary.body if summary else "",
        state=state or PublishState(),
        inline_fingerprints=frozenset(fingerprints),
        state_problem=problem,
    )
