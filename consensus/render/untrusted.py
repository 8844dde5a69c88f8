"""The one sanitiser for text consensus did not write: nothing in it may act on GitHub or GitLab.
Pure.

Untrusted is everything our own code did not write: command arguments and dismissal
reasons, PR titles and bodies, commit messages, file paths, model replies (titles, bodies,
reasons, verifier notes), provider error messages, and every field of the summary state
read back from a comment. Each piece passes through one of these functions, once, at the
moment it is put into Markdown:

- `escape_markdown_text(text)`: a block of text (a finding body); code blocks kept;
- `escape_line(text)`: the same, flattened to one line (a title, a reason in a list);
- `code(text)`: a code span (paths, model names, logins, echoed arguments);
- `person(login)`: a login that names someone without pinging them.

What it neutralises, and how, so the page reads the same words and nothing in them acts:

- raw HTML, HTML comments, `<https://…>` autolinks and `&…;` entities: `<`, `>` and `&`
  become entities, shown and never parsed;
- `@user`, `@org/team` and `owner/repo@sha` mentions: a zero-width joiner (ZWJ) after the
  `@`, so nobody is pinged;
- `#123`, `owner/repo#123` and `GH-123` references, and GitLab's `!123` (a merge
  request): a ZWJ after `#`, `GH-` or `!`, so no cross-reference lands in another issue's
  or merge request's timeline;
- images `![…](…)`: brackets escaped, never loaded;
- links, reference links and their definitions, footnotes, task boxes: brackets escaped,
  except a link whose target starts with an allowed prefix (the repository's own pages);
- bare `https://…`, `www.…` and e-mail autolinks: a ZWJ after the scheme, in `www.` or
  after the `@`, so they are not linked (allowed prefixes excepted);
- backslashes: doubled, so the text cannot un-escape what we escaped; backticks outside
  the code spans of a line: escaped, so no span pairs differently from ours;
- code fences: an unclosed one is closed (at the opener's indentation) so it cannot
  swallow the rest of the comment; `mermaid`, `geojson`, `topojson` and `stl` fences
  show as plain code, and so does a `suggestion` fence (GitHub's, GitLab's
  `suggestion:-N+M`), which a reviewer could otherwise apply to the code; a tilde
  fence that would open in one-line text is escaped;
- zero-width characters, bidi controls and other invisible format or control characters:
  U+FFFD (�), visibly, so no text hides and none is reordered (Trojan Source);
- in one-line places (titles, reasons, table cells): whitespace and newlines flattened;
  in code spans: a backtick fence longer than any run inside.

Code spans and fenced blocks of the text are kept as written (GitHub shows them
literally), after the invisible characters are replaced.

Where it is applied: slash-command answers and argument errors (publish/answers.py,
publish/slash.py), the summary comment and the step summary (publish/summary.py, and its
command section with the state read back, publish/state_section.py), inline review
comments and review bodies (publish/plan.py), the queue comment, gate review and queue
table (queue/writes.py), and the Markdown report (render/markdown.py). consensus writes no
check run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

ZWJ = "\u200d"
# GitHub's login rules, leniently (older accounts keep a double or trailing hyphen): letters,
# digits and hyphens, at most 39, and `[bot]` for an app; or a GitLab username: letters,
# digits, `_`, `-` and `.`, not ending in `.` (GitLab's project bots are `project_7_bot_…`).
# Never a slash, so never a team or a group.
LOGIN = (
    r"^(?:[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?"
    r"|[A-Za-z0-9_.][A-Za-z0-9_.-]{0,253}[A-Za-z0-9_-])$"
)
_LOGIN = re.compile(LOGIN)
# Invisible or reordering characters: C0/C1 controls (but tab and newline), soft hyphen,
# Arabic letter mark, Mongolian vowel separator, zero-width space/joiners, LRM/RLM, bidi
# embeddings, overrides and isolates, word joiner and invisible operators, BOM, interlinear
# annotations, tag characters, combining grapheme joiner, Hangul fillers.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0e\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)
REPLACEMENT = "\ufffd"
# A backtick fence's info string holds no backtick (CommonMark), else the line is inline code.
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})[ \t]*([^ \t`]*)")
_DIAGRAMS = frozenset({"mermaid", "geojson", "topojson", "stl"})
_BACKTICKS = re.compile(r"`+")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
# No word boundaries: `_GH-7_` or `_https://x_` is emphasis around a live reference or link.
_REFERENCE = re.compile(r"(?i)(#|GH-|!)(?=\d)")  # `!12`: a GitLab merge request
_URL = re.compile(r"(?i)(https?)://[^\s<>()\[\]`]*")
_SCHEME = re.compile(r"(?i)(https?)://")
_WWW = re.compile(r"(?i)www\.")
_LINK = re.compile(r"(?<![!\\])\[([^\[\]\n]{1,300})\]\((https?://[^\s()<>\"'`\\]+)\)")


def visible(text: str) -> str:
    """`text` with line endings as `\\n` and every invisible or reordering character shown
    as U+FFFD; line and paragraph separators become spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2028", " ").replace("\u2029", " ").replace("\x85", " ")
    return _INVISIBLE.sub(REPLACEMENT, text)


def escape_markdown_text(text: str, *, allowed_links: Sequence[str] = ()) -> str:
    """Untrusted text made inert in a GitHub comment; code blocks and spans kept as written.

    Links survive only when they start with one of `allowed_links` (the repository's own
    GitHub pages); any other URL is defanged.

    Fenced code is kept raw only while it surely is code, and every fence is closed by a
    line of ours at the opener's indentation: where the text closes it (a closing run at
    any indentation), where a non-blank line is indented less than the opener (a list item
    ending under it), and at the end. So CommonMark, whatever container it sees the fence
    in, closes it where we do; the worst a misjudged block suffers is escaping that shows,
    never HTML that renders. Outside fences and the code spans of a line, every backtick
    is escaped, so no span or fence can pair differently from ours.
    """
    out: list[str] = []
    closer: re.Pattern[str] | None = None
    marker, depth = "", 0
    for line in visible(text).split("\n"):
        if closer is not None:
            # Ours, at the opener's indentation, closes it in any container CommonMark sees.
            if closer.match(line):
                out.append(" " * depth + marker)
                closer = None
                continue
            if not line.strip() or _indent(line) >= depth:
                out.append(line)
                continue
            out.append(" " * depth + marker)
            closer = None
        if opening := _FENCE_OPEN.match(line):
            depth, marker = len(opening.group(1)), opening.group(2)
            closer = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
            info = opening.group(3).lower()
            # Shown as code: never drawn, and never a suggestion a reviewer could apply.
            if info in _DIAGRAMS or info.startswith("suggestion"):
                line = opening.group(1) + marker + "text"
            out.append(line)
        else:
            out.append(_escape_line(line, allowed_links))
    if closer is not None:  # close it, or the rest of the comment would render as code
        out.append(" " * depth + marker)
    return "\n".join(out)


def escape_line(text: str, *, allowed_links: Sequence[str] = ()) -> str:
    """Untrusted text as one line of inert Markdown (whitespace, newlines included, flattened);
    it never opens a block of its own, wherever the line is put."""
    return _escape_line(" ".join(visible(text).split()), allowed_links)


def code(text: str) -> str:
    """`text` as one inline code span, whatever backticks it holds, invisible characters shown."""
    text = " ".join(visible(text).split())
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def is_login(text: str) -> bool:
    return _LOGIN.match(text) is not None


def person(login: str) -> str:
    """A login that reads as `@login` and pings no one (a code span if it is no login)."""
    return f"@{ZWJ}{login}" if is_login(login) else code(login)


def mention(login: str) -> str:
    """A live `@login`, for the one who asked; anything that is not a login is not pinged."""
    return f"@{login}" if is_login(login) else code(login)


# --------------------------------------------------------------------------- one line


def _escape_line(line: str, allowed: Sequence[str]) -> str:
    """Escape one line outside its code spans; a code span is kept exactly as written."""
    out: list[str] = []
    pos = 0
    while (opening := _BACKTICKS.search(line, pos)) is not None:
        run = opening.group()
        closing = next(
            (m for m in _BACKTICKS.finditer(line, opening.end()) if m.group() == run), None
        )
        if closing is None:  # unmatched backticks are literal text
            out.append(_escape_plain(line[pos : opening.end()], allowed))
            pos = opening.end()
            continue
        out.append(_escape_plain(line[pos : opening.start()], allowed))
        out.append(line[opening.start() : closing.end()])
        pos = closing.end()
    out.append(_escape_plain(line[pos:], allowed))
    escaped = "".join(out)
    body = escaped.lstrip(" \t")
    if body.startswith("~~~"):  # a tilde fence that CommonMark might open in a list item
        return escaped[: len(escaped) - len(body)] + "\\" + body
    return escaped


def _escape_plain(text: str, allowed: Sequence[str]) -> str:
    """Text outside code: a link to an allowed prefix kept, everything else inert."""
    if not allowed:
        return _inert(text, allowed)
    out: list[str] = []
    pos = 0
    for match in _LINK.finditer(text):
        target = match.group(2)
        if not any(target.lower().startswith(p.lower()) for p in allowed):
            continue
        label = _inert(match.group(1), allowed)
        out += [_inert(text[pos : match.start()], allowed), f"[{label}]({_entities(target)})"]
        pos = match.end()
    out.append(_inert(text[pos:], allowed))
    return "".join(out)


def _entities(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _inert(text: str, allowed: Sequence[str]) -> str:
    text = _entities(text.replace("\\", "\\\\"))
    text = text.replace("[", "\\[").replace("]", "\\]").replace("`", "\\`")
    text = _MENTION.sub("@" + ZWJ, text)
    text = _REFERENCE.sub(lambda m: m.group(1) + ZWJ, text)
    return _defang_links(text, allowed)


def _defang_links(text: str, allowed: Sequence[str]) -> str:
    """URLs to anywhere but `allowed` prefixes stop being links: a zero-width joiner after
    the scheme (or in `www.`) keeps them readable and unclickable, GitHub's autolinker too."""
    out: list[str] = []
    pos = 0
    for match in _URL.finditer(text):
        out.append(_WWW.sub("www" + ZWJ + ".", text[pos : match.start()]))
        url = match.group()
        prefix = next((p for p in allowed if url.lower().startswith(p.lower())), "")
        # Every other scheme in it too: "https://https://evil" must not link from the second.
        rest = _SCHEME.sub(lambda m: m.group(1) + ZWJ + "://", url[len(prefix) :])
        out.append(url[: len(prefix)] + _WWW.sub("www" + ZWJ + ".", rest))
        pos = match.end()
    out.append(_WWW.sub("www" + ZWJ + ".", text[pos:]))
    return "".join(out)


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
