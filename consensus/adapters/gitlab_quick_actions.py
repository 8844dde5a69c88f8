"""GitLab's quick actions kept out of every note consensus posts. Pure.

GitLab runs the quick actions of a note created through the API as it runs a person's:
a line that starts with `/` and a command's name (`/merge`, `/approve`, `/close`,
`/label ~x`, `/assign @y`, …), outside a code block, is executed with the permissions of
the note's author and removed from the text. consensus's notes quote text it did not
write (model replies, file paths, people's words) and post as a Developer, so one such
line could approve, close or merge the merge request. `inert_quick_actions` escapes the
slash of every line that starts with one (`\\/merge`, which Markdown shows as `/merge`
and GitLab does not run), whatever the command's name:

- outside a fenced code block, always;
- inside a backtick fence, never: GitLab skips those (so a suggestion's code stays as
  written, and can be applied);
- inside a tilde fence, which GitLab's extractor does not skip: the backslash shows in
  the code, which is visible and inert rather than run.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_COMMAND = re.compile(r"^/[A-Za-z]")


def inert_quick_actions(body: str) -> str:
    """`body` with no line GitLab would run as a quick action."""
    out: list[str] = []
    fence = ""  # the open fence's marker; "" outside one
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and _closes(line, fence):
                fence = ""
            elif fence.startswith("~") and _COMMAND.match(line):
                line = "\\" + line
            out.append(line)
            continue
        if opened:
            marker = opened.group(1)
            # A backtick fence's info string holds no backtick (else it is no fence).
            if marker.startswith("~") or "`" not in line[opened.end() :]:
                fence = marker
        elif _COMMAND.match(line):
            line = "\\" + line
        out.append(line)
    return "\n".join(out)


def _closes(line: str, fence: str) -> bool:
    """Whether `line` closes the fence opened by `fence` (CommonMark: the same character,
    at least as many, nothing after them but spaces)."""
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
    )
