"""Findings consensus makes itself, without a model: committed credentials, text
addressed to AI reviewers, and symbolic links that point outside the repository.

Both are certain from the diff alone, so they need no vote: findings of the pseudo-provider
`consensus` go through alignment with the models' findings, and a cluster holding one is
posted (`settle`) with the models' votes counted apart and a reason that says what found
it. A credential finding names its kind and place, never its value.

One place, one finding: credentials on added lines of one file that lie within
align.LINE_WINDOW of each other (an access key id and its secret on the next line) are one
finding over their lines, and so are adjacent lines addressed to AI reviewers. Align then
puts each scan finding in exactly one cluster, with the models' findings about it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from consensus.ingest.redact import redact_text
from consensus.model.base import SCAN_NAME, Category, FindingSource, Severity, Status
from consensus.model.diff import LinkChange, ReviewDiff
from consensus.model.findings import LINE_WINDOW, Cluster, Finding, ScoredCluster

FIXTURE_DIRS = frozenset({"test", "tests", "fixtures", "testdata"})
FIXTURE_NOTE = "a key in a test fixture: check it is not a real one"

# Phrases that address the machine reading the diff rather than a human: instructions to
# ignore, approve or stay silent, role markers of chat formats, "as an AI" framing.
_ADDRESSED_TO_AI = re.compile(
    r"(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)"
    r"\s+(?:instructions|prompts?|rules)"
    r"|\b(?:ai|llm|gpt|language[- ]model|automated|bot)\s+(?:code\s+)?review(?:er|ers|s)?\b"
    r"|\bnote\s+to\s+(?:the\s+)?(?:ai|llm|reviewers?|assistant)\b"
    r"|\b(?:approve|lgtm)\s+(?:this|the)\s+(?:pr|pull\s+request|change|diff)\b"
    r"|\bdo\s+not\s+(?:report|flag|mention)\s+(?:any\s+)?(?:issues?|problems?|findings?|this)"
    r"|\byou\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|language\s+model|chatgpt|claude)\b"
    r"|<\|im_start\|>|<\|im_end\|>|\[/?INST\]|</?(?:system|assistant)>|\bsystem\s+prompt\b",
    re.IGNORECASE,
)


def settle(scored: list[ScoredCluster]) -> list[ScoredCluster]:
    """Clusters holding a detection are posted, whoever else reported them: the votes count
    the model families only, and the reason says what found it."""
    settled = []
    for item in scored:
        if not item.cluster.from_scan:
            settled.append(item)
            continue
        families = item.cluster.model_families
        votes_of = max(item.votes_of - 1, len(families))
        also = f"; also reported by {len(families)} of {votes_of} families" if families else ""
        found_by = [m for m in item.cluster.members if m.source is FindingSource.SCAN]
        if all(m.severity is Severity.INFO for m in found_by):  # a key in a test fixture
            settled.append(
                item.model_copy(
                    update={
                        "status": Status.UNVERIFIED,
                        "needs_verification": False,
                        "reason": f"consensus's own scan: {FIXTURE_NOTE}",
                    }
                )
            )
            continue
        settled.append(
            item.model_copy(
                update={
                    "status": Status.CONSENSUS,
                    "needs_verification": False,
                    "votes_for": len(families),
                    "votes_of": votes_of,
                    "agreement": round(len(families) / votes_of, 4) if votes_of else 0.0,
                    "reason": f"found by consensus's own scan, not by a model{also}",
                }
            )
        )
    return settled


def is_detection(cluster: Cluster) -> bool:
    return cluster.from_scan


def _finding(
    path: str, lines: tuple[int, int], title: str, body: str, severity: Severity
) -> Finding:
    return Finding(
        provider=SCAN_NAME,
        family=SCAN_NAME,
        source=FindingSource.SCAN,
        persona="security",
        chunk=0,
        path=path,
        line=lines[0],
        end_line=lines[1],
        severity=severity,
        category=Category.SECURITY,
        title=title,
        body=body,
    )


def _places(lines: Sequence[int]) -> list[tuple[int, int]]:
    """Lines of one file grouped into places: runs with gaps of at most LINE_WINDOW."""
    places: list[tuple[int, int]] = []
    for line in sorted(set(lines)):
        if places and line - places[-1][1] <= LINE_WINDOW:
            places[-1] = (places[-1][0], line)
        else:
            places.append((line, line))
    return places


def _where(lines: tuple[int, int]) -> str:
    return f"Line {lines[0]}" if lines[0] == lines[1] else f"Lines {lines[0]}-{lines[1]}"


def committed_credentials(diff: ReviewDiff) -> list[Finding]:
    """One finding per place of credentials on lines the change adds (found by redaction)
    to a file of the diff: the file whose code at those lines the finding's fingerprint is
    made of (a redaction of a file not in it, one whose decisions are carried, is not this
    diff's to report)."""
    by_path: dict[str, dict[int, list[str]]] = {}
    held = {changed.path for changed in diff.files}
    for redaction in diff.redactions:
        if redaction.added and redaction.line is not None and redaction.path in held:
            kinds = by_path.setdefault(redaction.path, {}).setdefault(redaction.line, [])
            kinds.append(redaction.kind)
    found = []
    for path, kinds_at in by_path.items():
        for place in _places(list(kinds_at)):
            here = [k for n, ks in kinds_at.items() if place[0] <= n <= place[1] for k in ks]
            kinds, several = sorted(set(here)), len(here) > 1
            what = "credentials" if several else "credential"
            title = f"Committed {what} ({', '.join(kinds)}) in {path}"
            body = (
                f"{_where(place)} add what looks like {'' if several else 'a '}"
                f"{' and '.join(kinds)}{' values' if several else ''}. Redacted before any "
                "model saw the diff, but in this commit: revoke and rotate, and read "
                f"{'them' if several else 'it'} from a secret store or the environment instead."
            )
            if in_test_fixture(path):
                title = f"A key in a test fixture ({', '.join(kinds)}) in {path}"
                body = (
                    f"{_where(place)} add what looks like {' and '.join(kinds)} in a test "
                    f"fixture. Redacted before any model saw the diff. {FIXTURE_NOTE}."
                )
                found.append(_finding(path, place, title, body, Severity.INFO))
            else:
                found.append(_finding(path, place, title, body, Severity.HIGH))
    return found


def in_test_fixture(path: str) -> bool:
    """Is the file under a folder of tests or fixtures (where keys are usually fakes)?"""
    return any(part.lower() in FIXTURE_DIRS for part in PurePosixPath(path).parts[:-1])


def text_addressed_to_ai(diff: ReviewDiff) -> list[Finding]:
    """One finding per place of added lines that speak to AI reviewers (a prompt-injection
    attempt)."""
    found = []
    for changed in diff.files:
        hits = [
            line.new_line
            for hunk in changed.hunks
            for line in hunk.lines
            if line.kind == "+" and line.new_line is not None and _ADDRESSED_TO_AI.search(line.text)
        ]
        for place in _places(hits):
            where = f"{place[0]}" if place[0] == place[1] else f"{place[0]}-{place[1]}"
            title = f"Text addressed to AI reviewers in {changed.path}:{where}"
            body = (
                f"{_where(place)} added here speak to automated reviewers (asking them to "
                "ignore instructions, approve, or stay silent). consensus treats the diff as "
                "data and did not follow it; a human should check why it is there."
            )
            found.append(_finding(changed.path, place, title, body, Severity.MEDIUM))
    return found


def escapes_repository(link: LinkChange) -> bool:
    """Does the link's new target leave the repository: an absolute path (POSIX, a
    Windows drive or share), or `..` climbing above the root from the link's folder?"""
    target = link.target
    if target is None or not target.strip():
        return False
    if target.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", target):
        return True
    depth = len(PurePosixPath(link.path).parts) - 1
    for part in re.split(r"[\\/]", target):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def links_outside(diff: ReviewDiff) -> list[Finding]:
    """One finding per link the change adds or retargets to a path outside the repository:
    a checkout then reads or writes there (a build step, a web server, an agent's tools)."""
    found = []
    for link in diff.links:
        if link.target == link.old_target or not escapes_repository(link):
            continue
        target, _ = redact_text(link.target or "")
        shown = target if len(target) <= 120 else target[:119] + "…"
        title = f"Symbolic link {link.path} points outside the repository"
        body = (
            f"`{link.path}` is a symbolic link to `{shown}`, outside the repository. Tools "
            "that follow it (builds, servers, scripts, coding agents) read or write that "
            "path instead of a file of this repository. Links are not sent to the models; "
            "check why this one is needed."
        )
        found.append(_finding(link.path, (1, 1), title, body, Severity.HIGH))
    return found


def detections(diff: ReviewDiff) -> list[Finding]:
    """Findings the diff proves by itself; they are aligned with the models' findings, so a
    model that reported the same problem joins the cluster instead of a duplicate."""
    return committed_credentials(diff) + text_addressed_to_ai(diff) + links_outside(diff)
