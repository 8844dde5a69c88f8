"""Fingerprints: a stable name for one problem at one place, across runs.

A fingerprint is what an inline comment carries in its hidden marker, and what stops a
re-run from posting the same comment twice. So it must survive what
changes between runs without the problem changing:

- rewording: models never phrase a finding the same way twice, so no model text goes in
  when the code is known;
- line shifts: an edit above the problem moves it, so no line number goes in;
- re-indentation: whitespace in the code is collapsed.

It hashes the file path, the category and the whitespace-normalized code of the anchored
line(s). When the code is not known, the caller passes the finding's title instead: stable
for an unchanged title, the best that is available without the code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from consensus.model.base import Category

FINGERPRINT_HEX_CHARS = 16


def normalize_anchor(text: str) -> str:
    """Collapse every run of whitespace (indentation, CRLF, blank lines) to one space."""
    return " ".join(text.split())


def fingerprint(path: str, category: Category, anchor_text: str) -> str:
    """16 hex characters of sha256 over path, category and the normalized anchor text."""
    # NUL separators: no path/category/text split can produce another's input bytes.
    payload = "\0".join((path, category.value, normalize_anchor(anchor_text)))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:FINGERPRINT_HEX_CHARS]


def disambiguate(fingerprints: Sequence[str]) -> list[str]:
    """Make repeats unique, in order: the first keeps its value, later ones get -2, -3 …

    Two different problems on the same code and category hash alike; each still needs its
    own marker. A suffix that would itself collide with a value already in use is skipped.
    """
    taken = set(fingerprints)
    seen: dict[str, int] = {}
    result: list[str] = []
    for value in fingerprints:
        count = seen.get(value, 0) + 1
        seen[value] = count
        if count == 1:
            result.append(value)
            continue
        candidate = f"{value}-{count}"
        while candidate in taken:
            count += 1
            candidate = f"{value}-{count}"
        seen[value] = count
        taken.add(candidate)
        result.append(candidate)
    return result


def namespaced(fingerprint_: str, namespace: str) -> str:
    """The fingerprint a saved workflow's finding carries: its own namespace, so that its
    findings never match (resolve, dismiss or duplicate) the default review's, nor another
    workflow's. The default review's namespace is "" and leaves fingerprints unchanged."""
    if not namespace:
        return fingerprint_
    payload = "\0".join(("workflow", namespace, fingerprint_))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:FINGERPRINT_HEX_CHARS]
