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
from consensus.review.guidelines import GuidelineFile

PROMPTS_DIR = Path(__file__).parent / "prompts"
MAX_FINDINGS = 25

# Every review prompt asks for it: a claim is held to the code it quotes, at its lines
# (review/grounding.py); one quoting nothing is not posted on votes alone (decide/score.py).
EVIDENCE_ASKED = (
    "required: the exact code of the new version at line..end_line, copied from the diff "
    "(its head side: added or context lines) without line numbers or +/- markers"
)

# The shape shown to models in the prompt: model/reply.py's contract, compact and readable.
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
            "evidence": EVIDENCE_ASKED,
            "suggestion": "optional: replacement text for lines line..end_line",
            "confidence": 0.0,
        }
    ]
}


# Names models know best for common tags; any other BCP 47 tag is passed as it is.
LANGUAGE_NAMES = {
    "ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
    "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew", "hi": "Hindi",
    "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean",
    "nl": "Dutch", "no": "Norwegian", "pl": "Polish", "pt": "Portuguese",
    "pt-br": "Brazilian Portuguese", "pt-pt": "European Portuguese", "ro": "Romanian",
    "ru": "Russian", "sv": "Swedish", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian",
    "vi": "Vietnamese", "zh": "Chinese", "zh-cn": "Simplified Chinese",
    "zh-tw": "Traditional Chinese",
}  # fmt: skip


@cache
def prompts_digest() -> str:
    """A digest of every prompt template: what a model is asked changes with it, so decisions
    carried between runs (publish/carry.py) are only carried under the same prompts."""
    digest = hashlib.sha256()
    for path in sorted(PROMPTS_DIR.glob("*.j2")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def language_note(tag: str, fields: str) -> str:
    """The instruction to write `fields` in the language `tag`; none for English, the default.

    Only prose changes language: JSON keys, enum values, paths and quoted code stay as they
    are, so ids, fingerprints and the report's keys do not depend on the language."""
    if tag.lower() == "en" or tag.lower().startswith("en-"):
        return ""
    name = LANGUAGE_NAMES.get(tag.lower()) or LANGUAGE_NAMES.get(tag.lower().split("-")[0])
    language = f"{name} ({tag})" if name else f"the language with the BCP 47 tag {tag}"
    return (
        f"Write {fields} in {language}. Everything else stays exactly as specified: the JSON "
        'keys, the "verdict", "severity" and "category" values, file paths, and code quoted '
        "from the diff as it appears there."
    )


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


@cache  # built for every verification call otherwise: pydantic takes about 1 ms
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
    language: str = "en",
    guidelines: Sequence[GuidelineFile] = (),
    path_instructions: Sequence[tuple[str, list[str], str]] = (),
) -> tuple[Message, ...]:
    """System + user messages for one (chunk, persona) review call. After the diff: a saved
    workflow's `extra_instructions` (part of the prefix a provider may cache), the
    repository's guidelines, the `path_instructions` that match this chunk's files, the
    persona, and the `language` (BCP 47) to write titles and bodies in."""
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
        guidelines=list(guidelines),
        path_instructions=list(path_instructions),
        language_note=language_note(language, 'the "title" and "body" of every finding'),
    )
    # The prefix a provider may cache: the diff, and a saved workflow's instructions (the
    # same for every call of the run); the guidelines follow, outside it.
    shared_end = f"</review-{nonce}>" if extra_instructions.strip() else f"</diff-{nonce}>"
    prefix_end = user.index(shared_end) + len(shared_end)
    return (
        Message(role="system", content=system),
        Message(role="user", content=user, cache_prefix=user[:prefix_end]),
    )
