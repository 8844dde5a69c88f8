"""Render docs/suggestion.png: the inline comment consensus posts for a finding with a
committable suggestion, laid out as GitHub shows a review comment with a suggested change.

The comment body is the real one (`consensus.publish.plan.inline_body`); its prose goes
through a CommonMark renderer, and its ```suggestion block is drawn as GitHub draws one: the
commented head lines in red, the suggestion in green, the commit button. Needs chromium.

    python docs/suggestion_screenshot.py
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from consensus.model.base import Category, Severity, Status  # noqa: E402
from consensus.model.findings import Suggestion  # noqa: E402
from consensus.model.report import FindingMember, ReportFinding, Votes  # noqa: E402
from consensus.publish.plan import inline_body  # noqa: E402

HEAD = [
    '    query = f"SELECT * FROM users WHERE id = {user_id}"',
    "    cur.execute(query)",
]
FIX = '    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))'
PROVIDERS = {  # provider: its family
    "openai/gpt-5.1": "openai",
    "anthropic/claude-sonnet-4-5": "anthropic",
    "gemini/gemini-2.5-pro": "google",
    "ollama/qwen2.5-coder:14b": "qwen",
}


def body() -> str:
    offer = Suggestion(line=6, end_line=7, text=FIX, provider="anthropic/claude-sonnet-4-5")
    finding = ReportFinding(
        id="F1",
        fingerprint="3f1c9a0b5d2e7a44",
        path="src/app/db.py",
        line=6,
        end_line=7,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title="SQL injection: user_id is formatted into the query",
        body="`user_id` comes from the request and is put into the SQL text with an "
        "f-string, so `1 OR 1=1` reads every user. Pass it as a parameter.",
        agreement=1.0,
        votes=Votes(**{"for": 4, "of": 4}),
        providers=list(PROVIDERS),
        personas=["security"],
        members=tuple(
            FindingMember(provider=p, family=f, persona="security", line=6, title="SQL injection")
            for p, f in PROVIDERS.items()
        ),
        status=Status.CONSENSUS,
        suggestion=offer,
    )
    return inline_body(finding, (), offer)


def suggestion_box(text: str) -> str:
    rows = [f'<tr class="del"><td>-</td><td>{html.escape(line)}</td></tr>' for line in HEAD]
    rows += [
        f'<tr class="add"><td>+</td><td>{html.escape(line)}</td></tr>'
        for line in text.rstrip("\n").split("\n")
    ]
    return (
        '<div class="sugg"><div class="sugg-head">Suggested change</div>'
        f'<table>{"".join(rows)}</table><div class="sugg-foot">'
        '<button class="primary">Commit suggestion</button>'
        "<button>Add suggestion to batch</button></div></div>"
    )


def page(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"html": True})
    parts = []
    for token in md.parse(markdown):
        if token.type == "fence" and token.info == "suggestion":
            parts.append(("box", token.content))
    rendered = md.render(markdown)
    start = rendered.index('<pre><code class="language-suggestion">')
    end = rendered.index("</code></pre>", start) + len("</code></pre>")
    rendered = rendered[:start] + suggestion_box(parts[0][1]) + rendered[end:]
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font: 14px -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; background: #fff; margin: 0; padding: 16px; width: 820px; }}
.file {{ border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; }}
.file-head {{ background: #f6f8fa; padding: 8px 12px; border-bottom: 1px solid #d1d9e0;
             font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }}
.code td {{ font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; padding: 0 8px;
           white-space: pre; }}
.code .n {{ color: #59636e; text-align: right; width: 32px; }}
.code .hl {{ background: #fff8c5; }}
.comment {{ margin: 8px 12px 12px 48px; border: 1px solid #d1d9e0; border-radius: 6px; }}
.who {{ background: #f6f8fa; padding: 8px 12px; border-bottom: 1px solid #d1d9e0; }}
.who b {{ margin-right: 4px; }} .bot {{ border: 1px solid #d1d9e0; border-radius: 2em;
       padding: 0 6px; font-size: 12px; color: #59636e; }}
.text {{ padding: 4px 16px 12px; }}
code {{ font: 85% ui-monospace, SFMono-Regular, Menlo, monospace; background: #eff1f3;
        padding: .2em .4em; border-radius: 6px; }}
sub {{ color: #59636e; }}
.sugg {{ border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; margin: 8px 0; }}
.sugg-head {{ background: #f6f8fa; padding: 6px 12px; border-bottom: 1px solid #d1d9e0;
             font-size: 12px; color: #59636e; }}
.sugg table {{ width: 100%; border-collapse: collapse; }}
.sugg td {{ font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre;
           padding: 1px 8px; }}
.sugg td:first-child {{ width: 12px; color: #59636e; }}
.del {{ background: #ffebe9; }} .add {{ background: #dafbe1; }}
.sugg-foot {{ padding: 8px 12px; border-top: 1px solid #d1d9e0; background: #f6f8fa;
             text-align: right; }}
button {{ font-size: 12px; padding: 3px 12px; border: 1px solid #d1d9e0; border-radius: 6px;
          background: #f6f8fa; margin-left: 6px; }}
button.primary {{ background: #1f883d; color: #fff; border-color: #1a7f37; }}
</style></head><body><div class="file"><div class="file-head">src/app/db.py</div>
<table class="code">
<tr><td class="n">5</td><td>    cur = conn.cursor()</td></tr>
<tr><td class="n">6</td><td class="hl">{html.escape(HEAD[0])}</td></tr>
<tr><td class="n">7</td><td class="hl">{html.escape(HEAD[1])}</td></tr>
</table>
<div class="comment"><div class="who"><b>github-actions</b><span class="bot">bot</span>
commented on lines +6 to +7</div><div class="text">{rendered}</div></div></div>
</body></html>"""


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("chromium is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "comment.html"
        source.write_text(page(body()), encoding="utf-8")
        target = ROOT / "docs" / "suggestion.png"
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=852,490",
                f"--screenshot={target}",
                source.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
