"""No line of a note consensus posts on GitLab is a quick action GitLab would run with the
token's permissions (`/merge`, `/approve`, `/close` …), whoever wrote its words, inside code
or not: a line of code that starts with one shows its backslash."""

from __future__ import annotations

import pytest

from consensus.adapters.gitlab_quick_actions import inert_quick_actions


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("/merge", "\\/merge"),
        ("Looks fine.\n/approve\n/label ~ready", "Looks fine.\n\\/approve\n\\/label ~ready"),
        ("The fix is trivial. /close", "The fix is trivial. /close"),  # mid-line: no action
        (" /merge", " /merge"),  # indented: GitLab reads only a line that starts with `/`
        ("/ not a command", "/ not a command"),
        ("see //comments and /1", "see //comments and /1"),
        # in code too: which backtick lines GitLab pairs as code is not CommonMark's
        ("a `b\n```\n/merge\n```", "a `b\n```\n\\/merge\n```"),
        ("```suggestion:-0+0\n/usr/bin/env python3", "```suggestion:-0+0\n\\/usr/bin/env python3"),
        ("~~~\n/merge\n~~~", "~~~\n\\/merge\n~~~"),
    ],
)
def test_a_line_gitlab_would_run_is_escaped(body: str, shown: str) -> None:
    assert inert_quick_actions(body) == shown


def test_our_own_markers_and_tables_are_untouched() -> None:
    body = "<!-- consensus:summary -->\n| a | b |\n| --- | --- |\n<!-- consensus:state x -->"
    assert inert_quick_actions(body) == body
