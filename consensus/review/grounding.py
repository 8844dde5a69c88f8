"""GROUND: is a claim held to its place? Clusters → the same clusters, the ungrounded named.

The audit (review/audit.py) keeps a finding whose evidence occurs anywhere in its file's
diff and anchors it on a commentable line, moving it when it must. That is enough to
refuse invented code, not to hold a claim to the place it is about. A model's finding is
*ungrounded* when

- the line it named (`Finding.reported_line`, before the audit moved it) is not within
  GROUNDING_DISTANCE lines of a head-side line of a hunk of its file: "line 88 is not on
  the change"; or
- its `evidence` (3+ non-space characters), whitespace-normalised, is not in the head
  file within GROUNDING_DISTANCE lines of the lines it named: "evidence not found near
  line 88". The head file is the head tree's text when the run has the trees (the
  snapshot the verification tools read, redacted as the prompt is), else the diff's head
  side. A finding without evidence is not ungrounded here: decide/score.py sends one
  that not every family reported to the judges.

A cluster is ungrounded when none of its models' reports is grounded (one that holds is
enough: the others paraphrased it); the reason is that of its first model member. The
scan's and the analyzers' findings are facts of the diff, never ungrounded. Score reads
`Cluster.ungrounded`: such a cluster is not posted on consensus alone.

Pure: the head files come in as lines (`head_lines` reads them at the edge).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from consensus.decide.quotes import QuotedRun, needles
from consensus.inspect.paths import readable
from consensus.inspect.snapshot import Snapshot
from consensus.model.base import FindingSource
from consensus.model.diff import ChangedFile, ReviewDiff
from consensus.model.findings import Cluster, Finding
from consensus.review.audit import SNAP_DISTANCE

GROUNDING_DISTANCE = SNAP_DISTANCE  # lines: as far as the audit snaps a line onto the diff


def not_on_change(line: int) -> str:
    return f"line {line} is not on the change"


def evidence_not_near(line: int) -> str:
    return f"evidence not found near line {line}"


@dataclass(frozen=True)
class _HeadFile:
    """One file's head side: the lines of its hunks, and the text its evidence is sought in."""

    on_change: frozenset[int]
    text: QuotedRun

    @classmethod
    def of(cls, changed: ChangedFile, head: Sequence[str] | None) -> _HeadFile:
        diff_side = {
            d.new_line: d.text
            for hunk in changed.hunks
            for d in hunk.lines
            if d.new_line is not None
        }
        lines: Iterable[tuple[int, str]] = (
            enumerate(head, start=1) if head is not None else sorted(diff_side.items())
        )
        return cls(frozenset(diff_side), QuotedRun.of(lines))

    def near_change(self, line: int) -> bool:
        return any(
            n in self.on_change
            for n in range(line - GROUNDING_DISTANCE, line + GROUNDING_DISTANCE + 1)
        )

    def quoted_near(self, quoted: Sequence[str], line: int, end_line: int) -> bool:
        low, high = line - GROUNDING_DISTANCE, end_line + GROUNDING_DISTANCE
        return any(
            first <= high and last >= low
            for needle in quoted
            for first, last in self.text.find(needle)
        )


def ungrounded(finding: Finding, head: _HeadFile) -> str | None:
    """Why one model's finding does not hold at the lines it named, or None."""
    line = finding.reported_line or finding.line
    end_line = max(finding.reported_end_line or finding.end_line, line)
    if not head.near_change(line):
        return not_on_change(line)
    quoted = needles(finding.evidence)
    if quoted and not head.quoted_near(quoted, line, end_line):
        return evidence_not_near(line)
    return None


def ground(
    clusters: Sequence[Cluster], diff: ReviewDiff, heads: Mapping[str, Sequence[str]]
) -> list[Cluster]:
    """The clusters in order, each ungrounded one with its reason (`heads`: the head
    file's lines by path, where the run could read them; the diff's head side otherwise)."""
    files: dict[str, _HeadFile] = {}
    out = []
    for cluster in clusters:
        models = [m for m in cluster.members if m.source is FindingSource.MODEL]
        changed = diff.file(cluster.path)
        if not models or changed is None or cluster.from_scan or cluster.analyzer_families:
            out.append(cluster)
            continue
        if cluster.path not in files:
            files[cluster.path] = _HeadFile.of(changed, heads.get(cluster.path))
        reasons = [ungrounded(m, files[cluster.path]) for m in models]
        reason = None if None in reasons else reasons[0]
        out.append(cluster if reason is None else cluster.model_copy(update={"ungrounded": reason}))
    return out


def head_lines(snapshot: Snapshot | None, paths: Iterable[str]) -> dict[str, list[str]]:
    """The head tree's lines of each of `paths` it holds as text, redacted as the prompt
    is; none without the trees (the diff's head side stands in)."""
    if snapshot is None:
        return {}
    wanted = sorted(set(paths))
    snapshot.prefetch(wanted, "head")
    heads = {}
    for path in wanted:
        name = readable(snapshot, path)
        lines = snapshot.lines(name, "head") if name is not None else None
        if lines is not None:
            heads[path] = lines
    return heads
