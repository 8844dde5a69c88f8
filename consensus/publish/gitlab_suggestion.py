"""Suggestions as GitLab applies them: ```` ```suggestion:-N+M ```` fences. Pure.

GitLab places a diff note on one line (a multi-line note on the last line of its range)
and a suggestion replaces lines counted from that line: `-N` lines above it and `+M`
below. A comment over `start`..`end` sits on `end`, so its suggestion is
`suggestion:-(end - start)+0`; a one-line comment's is `suggestion:-0+0`, which GitLab
reads as a plain ```` ```suggestion ````. The text is written as it is (GitLab does not
render Markdown inside the fence either), the fence longer than any backtick run in it.

The same rule rewrites a body rendered with GitHub's fence (publish/suggestion.py): our
own fence opens on a line of its own, ```` ```suggestion ````, and a suggestion fence in
untrusted text never survives as one (render/untrusted.py shows it as plain text). A
suggestion one line of which starts with `/` and a letter is shown as plain code instead:
GitLab would run that line as a quick action, so every note escapes it, and the
suggestion could not be applied as written.
"""

from __future__ import annotations

import re

from consensus.model.findings import Suggestion

_BACKTICKS = re.compile(r"`+")
_OUR_FENCE = re.compile(r"(`{3,})suggestion")
# A line GitLab runs as a quick action with the poster's permissions (`/merge`): the
# adapter escapes it in every note it posts, so a suggestion holding one would not apply
# the code the model wrote (adapters/gitlab_quick_actions.py).
_QUICK_ACTION = re.compile(r"^/[A-Za-z]")


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
    """A comment body with GitHub's suggestion fences (ours) turned into GitLab's; a
    suggestion with a line GitLab would run as a quick action becomes plain code."""
    lines = body.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        opened = _OUR_FENCE.fullmatch(lines[index])
        if opened is None:
            out.append(lines[index])
            index += 1
            continue
        fence = opened.group(1)
        close = next((n for n in range(index + 1, len(lines)) if lines[n] == fence), len(lines))
        content = lines[index + 1 : close]
        runs = any(_QUICK_ACTION.match(line) for line in content)
        out += [fence + ("text" if runs else gitlab_fence(start, end)), *content]
        out += lines[close : close + 1]
        index = close + 1
    return "\n".join(out)
