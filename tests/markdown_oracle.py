"""The oracle of the hostile-text tests: what on a rendered GitHub page acts, by CommonMark.

markdown-it-py (CommonMark, GFM tables on) parses the page; what counts as live: HTML
tags and comments, links and images (but links into the repository's own pages), and in
text outside links the candidates GitHub would turn live (mentions, autolinks, e-mail
addresses, issue references), plus any invisible or reordering character the sanitiser
did not put there itself. Comparing a page with plain words against one with hostile text
shows what the hostile text added. Imports nothing of consensus, so the same checks run
against any version of it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from markdown_it import MarkdownIt
from markdown_it.token import Token

REPO_LINK = "https://github.com/acme/service/"
ZWJ = "\u200d"
_MD = MarkdownIt("commonmark").enable("table")
_TAG = re.compile(r"<!--.*?-->|<!--.*|<[A-Za-z/][^>]*>", re.S)
_MENTION = re.compile(r"(?<![A-Za-z0-9`])@[A-Za-z0-9]")
_AUTOLINK = re.compile(
    r"(?i)(?:https?://|www\.)[^\s<]*|[A-Za-z0-9._+-]+@[A-Za-z0-9_-]+\.[A-Za-z0-9]"
)
_REFERENCE = re.compile(r"(?i)#\d|GH-\d|!\d")  # !123: a merge request on GitLab
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufeff\U000e0000-\U000e007f]"
)
# Where the sanitiser puts a ZWJ itself: after @, #, !, GH-, a scheme, and in www.
_OUR_ZWJ = re.compile(rf"(?<=[@#!]){ZWJ}|(?<=-){ZWJ}(?=\d)|{ZWJ}(?=://)|(?<=www){ZWJ}(?=\.)")


def _tag(raw: str) -> str:
    """A tag by its name (ours carry ids and base64 that differ between two pages)."""
    if raw.startswith("<!--"):
        return "comment " + " ".join(raw[4:].split()[:1]).split("=")[0]
    return (
        "tag "
        + re.split(r"[\s>/]", raw.lstrip("</"), maxsplit=1)[0].lower()
        + (" close" if raw.startswith("</") else "")
    )


def live(markdown: str) -> Counter[str]:
    """Everything on the rendered page that acts, or that a reader cannot see."""
    found: Counter[str] = Counter()
    for char in _INVISIBLE.findall(_OUR_ZWJ.sub("", markdown)):
        found[f"invisible U+{ord(char):04X}"] += 1

    def walk(tokens: Iterable[Token], in_link: bool) -> None:
        for token in tokens:
            if token.type in ("html_block", "html_inline"):
                found.update(_tag(tag) for tag in _TAG.findall(token.content))
            elif token.type == "link_open":
                href = str(token.attrs.get("href", ""))
                if not href.startswith(REPO_LINK):
                    found[f"link {href}"] += 1
                in_link = True
            elif token.type == "link_close":
                in_link = False
            elif token.type == "image":
                found[f"image {token.attrs.get('src')}"] += 1
            elif token.type == "text" and not in_link:
                text = token.content
                found.update(f"mention {m}" for m in _MENTION.findall(text))
                found.update(
                    f"autolink {m}" for m in _AUTOLINK.findall(text) if not m.startswith(REPO_LINK)
                )
                found.update(f"reference {m}" for m in _REFERENCE.findall(text))
            if token.children:
                walk(token.children, in_link)

    walk(_MD.parse(markdown), False)
    return found
