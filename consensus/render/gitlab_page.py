"""What a merge request shows after a consensus run, as GitLab would render it: the summary
note in the Overview, and each inline comment as a thread on the Changes tab, under the
diff lines it is about (its line or its range, as its `position` placed it), resolved or
open. GitLab has no review object: there is no review to show.

Pure: the posted texts in, one self-contained HTML page out, rendered as comments are
(render/github_page.py's Markdown and diff lines; GitLab's `suggestion:-N+M` fences show
as the code they would apply), behind the same Content-Security-Policy: no script, no
outside resource.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from consensus.render.github_page import (
    STYLE,
    InlineNote,
    comment_markdown,
    diff_line_html,
    hunk_shown,
    note_lines,
    page_head,
)

GITLAB_STYLE = """
.thread.resolved>header::after{content:' · resolved';color:#217645}
h1 span{color:#737278;font-weight:normal}
"""


@dataclass(frozen=True)
class Thread:
    """One diff discussion: its first note as an inline note, and whether it is resolved."""

    note: InlineNote
    resolved: bool = False


@dataclass(frozen=True)
class MergeRequestPage:
    """What the merge request holds after the run."""

    project: str  # group/project
    iid: int
    title: str
    author: str  # who posted the summary and the threads
    threads: tuple[Thread, ...]
    summary: str
    notice: str  # e.g. that the providers and GitLab were simulated


def render_merge_request_page(page: MergeRequestPage) -> str:
    """The page, as one string."""
    md = comment_markdown()
    text = html.escape
    parts = [
        *page_head(f"{page.project}!{page.iid}: {page.title}", STYLE + GITLAB_STYLE, page.notice),
        f"<h1>{text(page.title)} <span>!{page.iid}</span></h1>",
        f"<p>{text(page.project)} · Overview</p>",
        "<section class='comment summary'>",
        f"<header><b>{text(page.author)}</b> commented</header>",
        f"<div class='body'>{md.render(page.summary)}</div></section>",
        f"<h2>Changes · {len(page.threads)} thread{'s' if len(page.threads) != 1 else ''}</h2>",
    ]
    for thread in page.threads:
        note = thread.note
        state = "resolved" if thread.resolved else "open"
        shown = "".join(diff_line_html(line) for line in hunk_shown(note))
        parts += [
            f"<section class='comment inline thread {state}'>",
            f"<header><b>{text(note.path)}</b> {note_lines(note)} · {text(page.author)} "
            "started a thread</header>",
            f"<pre class='hunk'>{shown}</pre>",
            f"<div class='body'>{md.render(note.body)}</div></section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)
