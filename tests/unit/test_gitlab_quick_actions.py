"""No line of a note consensus posts on GitLab is a quick action GitLab would run with the
token's permissions (`/merge`, `/approve`, `/close` …), whoever wrote its words; code in a
backtick fence, which GitLab skips, stays exactly as written."""

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
        ("```suggestion:-0+0\n/usr/bin/env python3\n```", None),  # GitLab skips the fence
        ("````text\n```\n/merge\n```\n````", None),
        ("~~~\n/merge\n~~~", "~~~\n\\/merge\n~~~"),  # GitLab does not skip a tilde fence
        ("```\ncode\n```\n/merge", "```\ncode\n```\n\\/merge"),  # after the fence closes
        ("``` not a fence `\n/merge", "``` not a fence `\n\\/merge"),
    ],
)
def test_a_line_gitlab_would_run_is_escaped(body: str, shown: str | None) -> None:
    assert inert_quick_actions(body) == (body if shown is None else shown)


def test_an_unclosed_fence_runs_to_the_end_as_in_commonmark() -> None:
    body = "```python\nprint(1)\n/merge"
    assert inert_quick_actions(body) == body


def test_our_own_markers_and_tables_are_untouched() -> None:
    body = "<!-- consensus:summary -->\n| a | b |\n| --- | --- |\n<!-- consensus:state x -->"
    assert inert_quick_actions(body) == body
