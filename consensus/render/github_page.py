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
pre.hunk{margin:0;background:#f6f8fa;padding:0;overflow:auto;font-size:12px;
border-bottom:1px solid #d0d7de}pre.hunk span{display:block;padding:0 12px}
pre.hunk .add{background:#dafbe1}pre.hunk .del{background:#ffebe9}
pre.hunk .at{background:#ddf4ff;color:#57606a}
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
    start_line: int | None = None  # a comment on a range: its first line


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


CONTEXT_LINES = 4  # GitHub shows a line comment under the last four lines of its hunk


def comment_markdown() -> MarkdownIt:
    """A comment's Markdown as GitHub (and GitLab) render it: CommonMark, tables,
    strikethrough, the HTML they allow, a comment's line breaks as breaks (unlike a
    Markdown file)."""
    return MarkdownIt("commonmark", {"html": True, "breaks": True}).enable(
        ["table", "strikethrough"]
    )


def hunk_shown(note: InlineNote) -> list[str]:
    """The lines GitHub shows above a comment: the commented range, or the last four lines
    of the hunk up to a single commented line (its `@@` header only when the hunk is that
    short)."""
    lines = note.diff_hunk.split("\n")
    body = lines[1:] if lines and lines[0].startswith("@@") else lines
    wanted = CONTEXT_LINES
    if note.start_line is not None and note.start_line < note.line:
        wanted = max(wanted, note.line - note.start_line + 1)
    return lines if len(body) <= wanted else body[-wanted:]


def diff_line_html(line: str) -> str:
    """One line of a diff hunk, coloured by its kind (added, deleted, header, context)."""
    kind = {"+": "add", "-": "del", "@": "at"}.get(line[:1], "ctx")
    return f"<span class='{kind}'>{html.escape(line) or ' '}</span>"


def page_head(title: str, style: str, notice: str) -> list[str]:
    """A host's page up to its notice: one document, behind the Content-Security-Policy."""
    return [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        f"<title>{html.escape(title)}</title>",
        f"<style>{style}</style></head><body>",
        f"<p class='notice'>{html.escape(notice)}</p>",
    ]


def render_pull_page(page: PullPage) -> str:
    """The page, as one string."""
    md = comment_markdown()
    text = html.escape
    parts = [
        *page_head(f"{page.repository}#{page.number}: {page.title}", STYLE, page.notice),
        f"<h1>{text(page.title)} <span>#{page.number}</span></h1>",
        f"<p>{text(page.repository)}</p>",
        "<section class='comment review'>",
        f"<header><b>{text(page.author)}</b> reviewed: {text(page.review_state)}</header>",
        f"<div class='body'>{md.render(page.review_body)}</div></section>",
    ]
    for note in page.inline:
        parts += [
            "<section class='comment inline'>",
            f"<header><b>{text(note.path)}</b> {note_lines(note)}</header>",
            f"<pre class='hunk'>{''.join(diff_line_html(line) for line in hunk_shown(note))}</pre>",
            f"<div class='body'>{md.render(note.body)}</div></section>",
        ]
    parts += [
        "<section class='comment summary'>",
        f"<header><b>{text(page.author)}</b> commented</header>",
        f"<div class='body'>{md.render(page.summary)}</div></section>",
        "</body></html>",
    ]
    return "\n".join(parts)


def note_lines(note: InlineNote) -> str:
    """Where an inline note stands: its line, or its range."""
    if note.start_line is not None and note.start_line < note.line:
        return f"lines {note.start_line} to {note.line}"
    return f"line {note.line}"


def inline_notes(comments: Sequence[InlineNote]) -> tuple[InlineNote, ...]:
    """In file and line order, as the Files changed tab shows them."""
    return tuple(sorted(comments, key=lambda note: (note.path, note.line)))
