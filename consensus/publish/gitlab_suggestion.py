"""Suggestions as GitLab applies them: ```` ```suggestion:-N+M ```` fences. Pure.

GitLab places a diff note on one line (a multi-line note on the last line of its range)
and a suggestion replaces lines counted from that line: `-N` lines above it and `+M`
below. A comment over `start`..`end` sits on `end`, so its suggestion is
`suggestion:-(end - start)+0`; a one-line comment's is `suggestion:-0+0`, which GitLab
reads as a plain ```` ```suggestion ````. The text is written as it is (GitLab does not
render Markdown inside the fence either), the fence longer than any backtick run in it.

The same rule rewrites a body rendered with GitHub's fence (publish/suggestion.py): our
own fence opens on a line of its own, ```` ```suggestion ````, and a suggestion fence in
untrusted text never survives as one (render/untrusted.py shows it as plain text).
"""

from __future__ import annotations

import re

from consensus.model.findings import Suggestion

_BACKTICKS = re.compile(r"`+")
_OUR_FENCE = re.compile(r"^(`{3,})suggestion$", re.MULTILINE)


def gitlab_fence(start: int, end: int) -> str:
    """The info string of a suggestion for a comment over `start`..`end`."""
    return f"suggestion:-{max(0, end - start)}+0"


def gitlab_suggestion_block(suggestion: Suggestion, *, start: int, end: int) -> str:
    """The fenced block for a comment over `start`..`end`; empty text deletes the lines."""
    longest = max((len(run) for run in _BACKTICKS.findall(suggestion.text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = f"{suggestion.text}\n" if suggestion.text else ""
    return f"{fence}{gitlab_fence(start, end)}\n{body}{fence}"


def with_gitlab_fences(body: str, *, start: int, end: int) -> str:
    """A comment body with GitHub's suggestion fences (ours) turned into GitLab's."""
    return _OUR_FENCE.sub(lambda m: f"{m.group(1)}{gitlab_fence(start, end)}", body)
