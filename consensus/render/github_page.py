"""What a pull request shows after a consensus run, as GitHub would render it: the review
with its inline comments (each under the diff lines it is about) and the summary comment.

Pure: the posted texts in, one self-contained HTML page out. Comment bodies are Markdown
that consensus wrote (model text in them already went through render/untrusted.py); they are
rendered as GitHub renders comments (CommonMark, tables, strikethrough, the HTML GitHub
allows such as <details>), and the page's Content-Security-Policy forbids scripts and
outside resources, as the run report's does.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

STYLE = """
body{font:14px/1.5 -apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328;
max-width:1000px;margin:24px auto;padding:0 16px}
.notice{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:8px 12px}
.comment{border:1px solid #d0d7de;border-radius:6px;margin:16px 0}
.comment>header{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:8px 12px}
.comment>.body{padding:8px 16px}
pre.hunk{margin:0;background:#f6f8fa;padding:8px 12px;overflow:auto;font-size:12px;
border-bottom:1px solid #d0d7de}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:4px 8px}
code{background:#eff1f3;padding:1px 4px;border-radius:4px}
"""


@dataclass(frozen=True)
class InlineNote:
    """One inline review comment as posted: where, the diff lines above it, what it says."""

    path: str
    line: int
    diff_hunk: str
    body: str


@dataclass(frozen=True)
class PullPage:
    """What the pull request holds after the run."""

    repository: str
    number: int
    title: str
    author: str  # who posted the review and the summary
    review_state: str  # COMMENTED, CHANGES_REQUESTED …
    review_body: str
    inline: tuple[InlineNote, ...]
    summary: str
    notice: str  # e.g. that the providers and GitHub were simulated


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def render_pull_page(page: PullPage) -> str:
    """The page, as one string."""
    md = _markdown()
    text = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        f"<title>{text(page.repository)}#{page.number}: {text(page.title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<p class='notice'>{text(page.notice)}</p>",
        f"<h1>{text(page.title)} <span>#{page.number}</span></h1>",
        f"<p>{text(page.repository)}</p>",
        "<section class='comment review'>",
        f"<header><b>{text(page.author)}</b> reviewed: {text(page.review_state)}</header>",
        f"<div class='body'>{md.render(page.review_body)}</div></section>",
    ]
    for note in page.inline:
        parts += [
            "<section class='comment inline'>",
            f"<header><b>{text(note.path)}</b> line {note.line}</header>",
            f"<pre class='hunk'>{text(note.diff_hunk)}</pre>",
            f"<div class='body'>{md.render(note.body)}</div></section>",
        ]
    parts += [
        "<section class='comment summary'>",
        f"<header><b>{text(page.author)}</b> commented</header>",
        f"<div class='body'>{md.render(page.summary)}</div></section>",
        "</body></html>",
    ]
    return "\n".join(parts)


def inline_notes(comments: Sequence[InlineNote]) -> tuple[InlineNote, ...]:
    """In file and line order, as the Files changed tab shows them."""
    return tuple(sorted(comments, key=lambda note: (note.path, note.line)))
