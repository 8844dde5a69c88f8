"""Findings consensus makes itself, without a model: committed credentials, text
addressed to AI reviewers, and symbolic links that point outside the repository.

Both are certain from the diff alone, so they need no vote: findings of the pseudo-provider
`consensus` go through alignment with the models' findings, and a cluster holding one is
posted (`settle`) with the models' votes counted apart and a reason that says what found
it. A credential finding names its kind and place, never its value.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from consensus.ingest.redact import redact_text
from consensus.model.base import Category, Severity, Status
from consensus.model.diff import LinkChange, ReviewDiff
from consensus.model.findings import Cluster, Finding, ScoredCluster

PROVIDER = "consensus"

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
        found_by = [m for m in item.cluster.members if m.provider == PROVIDER]
        if not found_by:
            settled.append(item)
            continue
        families = item.cluster.families - {PROVIDER}
        votes_of = max(item.votes_of - 1, len(families))
        also = f"; also reported by {len(families)} of {votes_of} families" if families else ""
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
    return any(member.provider == PROVIDER for member in cluster.members)


def _finding(path: str, line: int, title: str, body: str, severity: Severity) -> Finding:
    return Finding(
        provider=PROVIDER,
        family=PROVIDER,
        persona="security",
        chunk=0,
        path=path,
        line=line,
        end_line=line,
        severity=severity,
        category=Category.SECURITY,
        title=title,
        body=body,
    )


def committed_credentials(diff: ReviewDiff) -> list[Finding]:
    """One finding per credential on a line the change adds (found by redaction)."""
    found = []
    for redaction in diff.redactions:
        if not redaction.added or redaction.line is None:
            continue
        title = f"Committed credential ({redaction.kind}) in {redaction.path}"
        body = (
            f"Line {redaction.line} adds what looks like a {redaction.kind}. It was redacted "
            "before any model saw the diff, but it is in this commit: revoke and rotate it, "
            "and read it from a secret store or the environment instead."
        )
        found.append(_finding(redaction.path, redaction.line, title, body, Severity.HIGH))
    return found


def text_addressed_to_ai(diff: ReviewDiff) -> list[Finding]:
    """One finding per added line that speaks to AI reviewers (a prompt-injection attempt)."""
    found = []
    for changed in diff.files:
        for hunk in changed.hunks:
            for line in hunk.lines:
                if line.kind != "+" or line.new_line is None:
                    continue
                if not _ADDRESSED_TO_AI.search(line.text):
                    continue
                title = f"Text addressed to AI reviewers in {changed.path}:{line.new_line}"
                body = (
                    "This added line speaks to automated reviewers (asking them to ignore "
                    "instructions, approve, or stay silent). consensus treats the diff as data "
                    "and did not follow it; a human should check why it is there."
                )
                found.append(_finding(changed.path, line.new_line, title, body, Severity.MEDIUM))
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
        found.append(_finding(link.path, 1, title, body, Severity.HIGH))
    return found


def detections(diff: ReviewDiff) -> list[Finding]:
    """Findings the diff proves by itself; they are aligned with the models' findings, so a
    model that reported the same problem joins the cluster instead of a duplicate."""
    return committed_credentials(diff) + text_addressed_to_ai(diff) + links_outside(diff)
