"""URLs as consensus keeps and shows them: without the user and password a URL may carry.

`https://user:password@llm.internal/v1` is a common way to reach a gateway, and whatever
holds it (the journal, a log line, a report, an error a provider's library wrote) would
hold the password. Every URL consensus stores or prints passes through here first.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

# scheme://userinfo@ anywhere in a text: the userinfo ends at the first "@" before the host
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@\"'<>]*@")


def without_userinfo(url: str) -> str:
    """`url` without `user:password@`; anything else as it was."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def scrub_urls(text: str) -> str:
    """`text` with the userinfo of every URL in it removed (an error message, a log line)."""
    return _USERINFO.sub(r"\1", text) if "@" in text else text


def file_url(repository: str, blob: str, sha: str, path: str) -> str:
    """The web page of `path` at commit `sha` in the repository whose web page is
    `repository` (its userinfo left out), `blob` the host's segment before the commit
    ("blob" on GitHub, "-/blob" on GitLab: model/host.py); the path percent-encoded."""
    base = without_userinfo(repository).rstrip("/")
    return f"{base}/{blob}/{quote(sha, safe='')}/{quote(path, safe='/')}"
