"""One word for each idea: every output of one realistic review (the terminal, Markdown,
HTML, SARIF, the PR summary, its inline comment and review, the answers to `explain` and
`verify`) uses the glossary's words and none of the synonyms it drops."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from consensus.model.base import Category, FindingSource, Severity, Status, VerdictKind
from consensus.model.calibration import Rate
from consensus.model.findings import Verification, Vote
from consensus.model.host import GITHUB_WORDS
from consensus.model.panel import FamilyEstimate, PanelEstimate
from consensus.model.report import FindingMember, Quorum, Report, ReportFinding, Stats, Votes
from consensus.publish.answers import explain_section, verified_section
from consensus.publish.plan import Scope, plan_publish
from consensus.publish.records import finding_record
from consensus.publish.summary import render_summary
from consensus.publish.thread import PullRequestThread
from consensus.render import render
from consensus.render.html import render_html
from consensus.settings.config import PublishSettings

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
HEAD = "3f9c2a7e" * 5

# What the glossary's "not" column drops, as it would read in a sentence. The keys of
# `.consensus.yml` and the JSON report's fields keep their names, so the words are matched
# as a reader meets them: "inspector" alone, not `inspector.voters` or `"role": "inspector"`.
DROPPED = {
    "provider family": r"provider famil(y|ies)",
    "vendor": r"\bvendors?\b",
    "claim": r"\bclaims?\b",
    "inspector": r"(?<![.\"])\binspector\b(?![.\"])",
    "voter": r"(?<![.\"])\bvoters?\b(?![.\"])",
    "verifier": r"\bverifiers?\b",
    "redundancy voting": r"redundancy voting",
    "panel": r"\bpanel\b",
    "inspect": r"\binspect(ed|s)?\b",
    "in summary": r"\bin summary\b",
    "kept out of the review": r"kept out",
    "listed, not posted": r"listed, not posted",
    "only listed": r"only listed",
    "not a clean review": r"not a clean (review|bill)",
}


def vote(family: str, model: str, role: str, verdict: VerdictKind, reason: str) -> Vote:
    return Vote(model=model, family=family, role=role, verdict=verdict, reason=reason)


def member(provider: str, family: str, persona: str) -> FindingMember:
    return FindingMember(
        provider=provider,
        family=family,
        persona=persona,
        line=58,
        title="Off-by-one in page offset",
        source=FindingSource.MODEL,
    )


def finding(
    number: int, status: Status, votes: tuple[int, int], **changes: object
) -> ReportFinding:
    fields: dict[str, object] = {
        "id": f"F{number}",
        "fingerprint": f"{number:016x}",
        "path": "shop/orders.py",
        "line": 58,
        "end_line": 58,
        "severity": Severity.HIGH,
        "category": Category.BUG,
        "title": "Off-by-one in page offset",
        "body": "`offset = page * size + 1` skips the first order of every page after the first.",
        "agreement": votes[0] / votes[1],
        "votes": Votes(**{"for": votes[0], "of": votes[1]}),
        "providers": ["openai/gpt-5.1"],
        "personas": ["correctness"],
        "members": (member("openai/gpt-5.1", "openai", "correctness"),),
        "status": status,
    }
    fields.update(changes)
    return ReportFinding.model_validate(fields)


JUDGED = Verification(
    confirmed=2,
    refuted=1,
    votes=(
        vote("qwen", "ollama/qwen2.5-coder:14b", "inspector", VerdictKind.CONFIRMED,
             "page 2 starts at index 11, so order 10 is never listed."),
        vote("anthropic", "anthropic/claude-sonnet-4-5", "voter", VerdictKind.REFUTED,
             "the ORM's offset is 1-based here."),
        vote("google", "gemini/gemini-2.5-pro", "voter", VerdictKind.CONFIRMED,
             "slice(offset, offset + size) is 0-based."),
    ),
    belief=0.94,
)  # fmt: skip

REPORT = Report(
    run_id="run-2026-words",
    findings=[
        finding(1, Status.VERIFIED, (1, 4), verification=JUDGED),
        finding(2, Status.CONSENSUS, (4, 4), line=12, end_line=12, severity=Severity.CRITICAL,
                title="SQL injection: customer name in the query"),
        finding(3, Status.UNVERIFIED, (1, 4), line=90, end_line=90, severity=Severity.LOW,
                title="Magic number 50", reason="unverified: low severity, 1 of 4 families"),
        finding(4, Status.REJECTED, (1, 4), line=30, end_line=30, title="Discount applied twice",
                reason="rejected", verification=JUDGED.model_copy(update={"belief": 0.03})),
    ],
    quorum=Quorum(families_answered=4, min_providers=2, met=True),
    threshold=0.75,
    stats=Stats(cost_usd=0.0412, wall_s=38.5),
    panel=PanelEstimate(
        families=(
            FamilyEstimate(
                family="qwen",
                tpr=Rate(value=0.88, low=0.64, high=0.97, n=11),
                tnr=Rate(value=0.79, low=0.52, high=0.93, n=10),
                precision=Rate(value=0.6, low=0.31, high=0.83, n=7),
                judged=2, rejected=1, refuted_rejected=0, verified=1, confirmed_verified=1,
            ),
        ),
        claims=4,
        judged=2,
    ),
)  # fmt: skip


def outputs() -> dict[str, str]:
    """Everything a reader of this review meets, by where they meet it."""
    plan = plan_publish(
        REPORT,
        PullRequestThread(),
        PublishSettings(),
        scope=Scope(head_sha=HEAD, reviewed=("shop/orders.py",), in_diff=("shop/orders.py",)),
        hunks={"shop/orders.py": [frozenset(range(1, 100))]},
        links=(),
    )
    assert plan.review is not None and plan.review.comments
    record = finding_record(REPORT.findings[0])
    said = {fmt: render(REPORT, fmt) for fmt in ("text", "markdown", "sarif")}
    return {
        **said,
        "html": re.sub(r"<[^>]*>", " ", render_html(REPORT, (), (), None)),  # what is read
        "summary": render_summary(REPORT, plan, head_sha=HEAD, words=GITHUB_WORDS),
        "review": plan.review.body,
        "inline": "\n\n".join(c.body for c in plan.review.comments),
        "explain": explain_section(record, None, None).body,
        "verify": verified_section(record).body,
    }


OUTPUTS = outputs()


@pytest.mark.parametrize("where", sorted(OUTPUTS))
def test_no_output_uses_a_word_the_glossary_drops(where: str) -> None:
    text = OUTPUTS[where]
    found = {word: m.group(0) for word, rx in DROPPED.items() if (m := re.search(rx, text, re.I))}
    assert found == {}


@pytest.mark.parametrize("where", ["text", "markdown", "summary", "inline", "explain", "verify"])
def test_every_output_says_who_judged_a_finding_in_the_same_words(where: str) -> None:
    assert "confirmed by qwen and google, refuted by anthropic" in OUTPUTS[where]


@pytest.mark.parametrize("where", ["text", "inline"])
def test_agreement_is_counted_in_families_in_the_same_words(where: str) -> None:
    assert "reported by 1 of 4 families (openai)" in OUTPUTS[where]


def test_the_glossary_lists_each_dropped_word_beside_the_one_used() -> None:
    rows = [line for line in GLOSSARY.read_text().splitlines() if line.startswith("| **")]
    dropped = " ".join(line.rsplit("|", 2)[-2] for line in rows)
    assert [word for word in DROPPED if f'"{word}"' not in dropped] == []
