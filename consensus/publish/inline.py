"""What one inline comment says: severity and title, the model's text (sanitised, capped),
the committable suggestion when one applies, how the finding was established (who
reported it, who verified it) and its fingerprint marker. Pure; the summary shows the
same text for findings it keeps (publish/summary.py)."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.decide.evidence import evidence_words
from consensus.model.base import Status
from consensus.model.findings import Suggestion
from consensus.model.report import ReportFinding
from consensus.publish.suggestion import suggestion_block
from consensus.publish.thread import fingerprint_marker
from consensus.render.untrusted import code, escape_line, escape_markdown_text

MAX_BODY_CHARS = 12_000  # model text in one inline comment


def inline_body(
    finding: ReportFinding,
    links: Sequence[str] = (),
    suggestion: Suggestion | None = None,
    workflow: str = "",
    note: str = "",
) -> str:
    """severity · title, the body, the suggested change (when given: see publish.suggestion),
    who agreed (and how verification went), the fingerprint. A saved workflow's finding
    names the workflow beside its id."""
    title = escape_line(finding.title, allowed_links=links)
    text = finding.body.strip()
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS] + "\n\n… (cut; the full text is in the JSON report)"
    lines = [
        f"**{finding.severity.value}** · **{title}**",
        "",
        escape_markdown_text(text, allowed_links=links),
        "",
    ]
    if suggestion is not None:
        lines += [
            f"Suggested change, as {code(suggestion.provider)} wrote it:",
            "",
            suggestion_block(suggestion),
            "",
        ]
    named = f"consensus {workflow} {finding.id}" if workflow else finding.id
    if note:  # ours (publish/learnings.py), never model text
        lines += [f"*{note}*", ""]
    lines += [
        f"<sub>{established(finding)} · {finding.category.value} · {named}</sub>",
        fingerprint_marker(finding.fingerprint),
    ]
    return "\n".join(lines)


def established(finding: ReportFinding) -> str:
    """How a finding was established, in one readable line: who reported it, and who
    judged it, by family, e.g. "Verified · reported by 1 of 4 families (`openai/gamma`) ·
    confirmed by anthropic and google, refuted by qwen · 0.93". Agreement counts
    families, so "reported by" does too."""
    names = finding.model_providers
    families = f"{finding.votes.for_} of {finding.votes.of} families"
    if names:
        families += f" ({', '.join(code(p) for p in names)})"
    if finding.found_by_scan:
        also = f" · also reported by {families}" if names else ""
        return f"Found by consensus's own scan of the diff{also}"
    record = finding.verification
    votes = record.votes if record is not None else ()
    words = evidence_words(f"reported by {families}", votes, record.belief if record else None)
    if finding.status is Status.VERIFIED:
        return f"Verified · {words}"
    return words[0].upper() + words[1:]
