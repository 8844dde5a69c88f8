"""What the judges that looked read and cited, as an inline comment shows it: collapsed, one
line per grounded vote (the tool answers it was given, in words, and each cited line with
its code, as consensus checked it, linked to the file at the head commit on the host).
Pure; every text a model wrote passes the sanitiser."""

from __future__ import annotations

from consensus.model.findings import Vote
from consensus.model.host import CodeAt
from consensus.model.reply import Citation
from consensus.model.report import ReportFinding
from consensus.render.untrusted import code, escape_line

LOOKED_NAMED = 4  # of one judge's tool answers


def judges_read(finding: ReportFinding, code_at: CodeAt | None = None) -> list[str]:
    """The collapsed block, or nothing when no judge's vote was grounded; each cited line
    range linked to the file at the head commit (the base's, for a base-side citation) when
    `code_at` says where the code is on the host."""
    record = finding.verification
    grounded = [v for v in record.votes if v.grounded and v.verdict] if record else []
    if not grounded:
        return []
    lines = ["<details><summary>What the judges read</summary>", ""]
    lines += [_vote_line(vote, code_at) for vote in grounded]
    return [*lines, "", "</details>", ""]


def _vote_line(vote: Vote, code_at: CodeAt | None) -> str:
    looked = [code(words) for words in vote.looked[:LOOKED_NAMED]]
    if len(vote.looked) > LOOKED_NAMED:
        looked.append(f"{len(vote.looked) - LOOKED_NAMED} more")
    read = f"looked at {', '.join(looked)}; " if looked else ""
    cited = "; ".join(_cited(c, code_at) for c in vote.evidence)
    verdict = vote.verdict.value if vote.verdict else "no verdict"
    return f"- {escape_line(vote.family)} ({verdict}): {read}cited {cited}"


def _cited(citation: Citation, code_at: CodeAt | None) -> str:
    lines = f"{citation.start_line}" + (
        f"-{citation.end_line}" if citation.end_line != citation.start_line else ""
    )
    side = " (base)" if citation.side == "base" else ""
    place = code(f"{citation.path}:{lines}")
    url = (
        code_at.lines(citation.path, citation.start_line, citation.end_line, citation.side)
        if code_at is not None
        else None
    )
    linked = f"[{place}]({url})" if url else place  # our URL: the path is percent-encoded
    return f"{linked}{side} {code(citation.quote)}"
