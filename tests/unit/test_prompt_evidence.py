"""Every review prompt asks for `evidence`, as required and from the head side: grounding
holds a finding to the code it quotes at its lines (review/grounding.py)."""

from __future__ import annotations

import json

import pytest

from consensus.review.prompt import review_messages, review_schema
from consensus.settings.personas import load_personas, render_persona
from tests.unit.test_prompt import DIFF_TEXT

PERSONAS = load_personas([])


@pytest.mark.parametrize("persona", sorted(PERSONAS))
def test_every_review_prompt_asks_for_evidence_quoted_from_the_head_side(persona: str) -> None:
    instructions = render_persona(PERSONAS[persona], paths=["src/app/db.py"])
    system, user = review_messages(DIFF_TEXT, instructions, ["src/app/db.py"])

    assert instructions.strip() in user.content  # this persona's prompt
    assert '"evidence" is required' in system.content
    assert "added or context lines of the diff, not removed ones" in system.content
    shape = json.loads(system.content.split("of this shape:\n", 1)[1].split("\n\n", 1)[0])
    assert shape["findings"][0]["evidence"].startswith("required: the exact code of the new")


def test_the_reply_schema_describes_evidence_as_required() -> None:
    evidence = review_schema()["$defs"]["ReplyFinding"]["properties"]["evidence"]

    assert evidence["description"].startswith("required: the exact code of the new version")
