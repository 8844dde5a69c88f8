"""Review prompts: the diff first, the persona after it.

Every call for one chunk starts with the same system message and the same diff block, so
providers' prompt caches reuse that prefix across personas; only the tail differs. The
diff sits between markers carrying a nonce derived from the diff itself, which text inside
the diff cannot know in advance and so cannot forge.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from consensus.model.base import Category, Severity
from consensus.model.reply import ReviewReply, VerdictReply
from consensus.ports import Message

PROMPTS_DIR = Path(__file__).parent / "prompts"
MAX_FINDINGS = 25

# The shape shown to models in the prompt: the §4 contract, compact and readable.
_EXAMPLE = {
    "findings": [
        {
            "path": "src/app/db.py",
            "line": 42,
            "end_line": 44,
            "severity": "|".join(s.value for s in Severity),
            "category": "|".join(c.value for c in Category),
            "title": "one line, under 100 characters",
            "body": "why it is a problem and how to fix it (Markdown)",
            "evidence": "optional: the exact code from the diff that shows the problem",
            "confidence": 0.0,
        }
    ]
}


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(PROMPTS_DIR),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )


def template(name: str) -> Template:
    return _environment().get_template(name)


@cache
def review_schema() -> dict[str, Any]:
    """JSON schema of the review reply, generated from the pydantic model."""
    return ReviewReply.model_json_schema()


def verdict_schema() -> dict[str, Any]:
    """JSON schema of a verifier's verdict, generated from the pydantic model."""
    return VerdictReply.model_json_schema()


def diff_nonce(diff_text: str) -> str:
    return hashlib.sha256(diff_text.encode("utf-8", "replace")).hexdigest()[:12]


def review_messages(
    diff_text: str,
    persona_instructions: str,
    paths: Sequence[str],
    *,
    extra_instructions: str = "",
    extra_title: str = "",
) -> tuple[Message, ...]:
    """System + user messages for one (chunk, persona) review call.

    `extra_instructions` (a saved workflow's body, written by the repository's maintainers)
    go right after the diff: the same for every persona of the run, so they belong to the
    prefix a provider may cache.
    """
    nonce = diff_nonce(diff_text)
    system = template("system.j2").render(nonce=nonce, schema=json.dumps(_EXAMPLE, indent=1))
    user = template("review.j2").render(
        nonce=nonce,
        diff=diff_text,
        persona_instructions=persona_instructions.strip(),
        extra_instructions=extra_instructions.strip(),
        extra_title=extra_title,
        paths=list(paths),
        max_findings=MAX_FINDINGS,
    )
    shared_end = f"</review-{nonce}>" if extra_instructions.strip() else f"</diff-{nonce}>"
    prefix_end = user.index(shared_end) + len(shared_end)
    return (
        Message(role="system", content=system),
        Message(role="user", content=user, cache_prefix=user[:prefix_end]),
    )
