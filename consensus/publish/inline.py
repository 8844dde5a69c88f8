"""What one inline comment says: severity and title, the model's text (sanitised, capped),
the committable suggestion when one applies, what the judges that looked read and cited
(collapsed), how the finding was established (who reported it, who verified it) and its
fingerprint marker. Pure; the summary shows the
same text for findings it keeps (publish/summary.py)."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.decide.evidence import judged_by
from consensus.model.base import Status
from consensus.model.findings import Suggestion
from consensus.model.host import CodeAt
from consensus.model.report import ReportFinding
from consensus.publish.looked import judges_read
from consensus.publish.suggestion import suggestion_block
from consensus.publish.thread import fingerprint_marker
from consensus.render.text import reporting_families
from consensus.render.untrusted import code, escape_line, escape_markdown_text

MAX_BODY_CHARS = 12_000  # model text in one inline comment


def inline_body(
    finding: ReportFinding,
    links: Sequence[str] = (),
    suggestion: Suggestion | None = None,
    workflow: str = "",
    note: str = "",
    code_at: CodeAt | None = None,
) -> str:
    """severity · title, the body, the suggested change (when given: see publish.suggestion),
    then one small line: the id, and how many families reported it and what the judges
    said; the fingerprint. A saved workflow's finding names the workflow beside its id;
    `code_at`: where the PR's code is on the host, for the lines the judges cited."""
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
        offered = f"Suggested change ({code(suggestion.provider)}):"
        lines += [offered, "", suggestion_block(suggestion), ""]
    named = f"consensus {workflow} {finding.id}" if workflow else finding.id
    if note:  # ours (publish/learnings.py), never model text
        lines += [f"*{note}*", ""]
    lines += judges_read(finding, code_at)
    lines += [
        f"<sub>{named} · {established(finding)}</sub>",
        fingerprint_marker(finding.fingerprint),
    ]
    return "\n".join(lines)


def established(finding: ReportFinding) -> str:
    """How a finding was established, in the fewest words: how many families reported it
    and which, then what the judges said, by family, e.g. "verified · reported by 1 of 4
    families (openai) · confirmed by anthropic and google, refuted by qwen"."""
    families = f"{finding.votes.for_} of {finding.votes.of} families"
    names = reporters(finding)
    reported = f"reported by {families}" + (f" ({', '.join(names)})" if names else "")
    if finding.found_by_scan:
        also = f" · also {reported}" if names else ""
        return f"found by consensus's own scan of the diff{also}"
    record = finding.verification
    said = judged_by(record.votes) if record is not None else ""
    verified = ["verified"] if finding.status is Status.VERIFIED else []
    corroborated = [escape_line(finding.also_reported)] if finding.also_reported else []
    return " · ".join([*verified, reported, *corroborated, *([escape_line(said)] if said else [])])


def reporters(finding: ReportFinding) -> list[str]:
    """The families that reported it (its providers, for a record that names no family)."""
    families = reporting_families(finding)
    if families:
        return [escape_line(family) for family in families]
    return [code(p) for p in finding.model_providers]
