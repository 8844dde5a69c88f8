"""GitLab's quick actions kept out of every note consensus posts. Pure.

GitLab runs the quick actions of a note created through the API as it runs a person's:
a line that starts with `/` and a command's name (`/merge`, `/approve`, `/close`,
`/label ~x`, `/assign @y`, …) is executed with the permissions of the note's author and
removed from the text. consensus's notes quote text it did not write (model replies,
file paths, people's words) and post as a Developer, so one such line could approve,
close or merge the merge request.

`inert_quick_actions` escapes the slash of every line that starts with `/` and a letter
(`\\/merge`), whatever the command's name and wherever the line is. Which lines GitLab
skips as code depends on how its extractor pairs backtick lines, which is not how
CommonMark pairs code fences (a line ending in a backtick can open or close its "code"),
so no line is trusted to be skipped: outside code, Markdown shows `\\/merge` as
`/merge`; inside code the backslash shows, which is visible and inert rather than run.
A suggestion holding such a line is not offered on GitLab for that reason
(publish/gitlab_suggestion.py): applied, it would not be the code the model wrote.
"""

from __future__ import annotations

import re

QUICK_ACTION_LINE = re.compile(r"^/[A-Za-z]", re.MULTILINE)


def inert_quick_actions(body: str) -> str:
    """`body` with no line GitLab would run as a quick action."""
    return QUICK_ACTION_LINE.sub(lambda match: "\\" + match.group(), body)
