"""Untrusted model replies → validated ReviewReply / VerdictReply (model/reply.py).

A reply may wrap its JSON in Markdown fences, surround it with prose, open with a
`<think>` block, or give the findings as a bare list: all accepted. Anything else
raises `ReplyError`, whose `problem` is quoted verbatim in the one repair turn.

Rule for review replies: findings are validated one by one. Invalid findings are
returned beside the valid ones as `(index, problem)` so the caller records them as
dropped ("schema: …"); one bad finding does not sink nine good ones. The whole reply
is refused only when its shape is wrong (not an object, no `findings` list) or when
findings were given and none of them is valid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from consensus.model.reply import ReplyFinding, ReviewReply, SameProblemReply, VerdictReply

MAX_REPLY_CHARS = 1_000_000
MAX_DEPTH = 64
MAX_LISTED_ERRORS = 5
MAX_CANDIDATES = 1_000  # objects tried in prose: bounds the work a reply of `{}{}{}…` causes
_ECHO_CHARS = 60
_EXPECTED_KEYS = ("findings", "verdict")

_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*[\w+.-]*[ \t]*\r?\n(.*?)```", re.DOTALL)
# Where a JSON reply may start inside prose: `{"`, `{}` or `[{`. A bare `{` or `[`
# is too common in prose (`{x}`, Markdown links) to be worth trying.
_PLAUSIBLE_START = re.compile(r"\{\s*[\"}]|\[\s*\{")
_STRUCTURAL = re.compile(r"[\"{}\[\]]")


class ReplyError(Exception):
    """A reply that cannot be used; `problem` is short and written for the model."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class ParsedReview:
    """The valid findings of a reply, and `(index, problem)` for each invalid one."""

    reply: ReviewReply
    invalid: tuple[tuple[int, str], ...] = ()


def repair_prompt(problem: str) -> str:
    """The user message of the one repair turn."""
    return (
        f"Your reply was not valid: {problem.rstrip(' .')}. Reply again with only the JSON object."
    )


def parse_review(text: str) -> ParsedReview:
    """Parse a review reply; see the module docstring for when it raises."""
    data = extract_json(text)
    if not isinstance(data, dict) or "findings" not in data:
        raise ReplyError(
            'the JSON object has no "findings" list (use {"findings": []} if nothing is wrong)'
        )
    raw = data["findings"]
    if not isinstance(raw, list):
        raise ReplyError(f'"findings" must be a list, not {_json_type(raw)}')
    valid: list[ReplyFinding] = []
    invalid: list[tuple[int, list[str]]] = []
    for index, item in enumerate(raw):
        try:
            valid.append(ReplyFinding.model_validate(item))
        except ValidationError as error:
            invalid.append((index, _errors(error, ("findings", index))))
    if raw and not valid:
        raise ReplyError(_join([line for _, lines in invalid for line in lines]))
    return ParsedReview(
        reply=ReviewReply(findings=valid),
        invalid=tuple((index, _join(lines)) for index, lines in invalid),
    )


def parse_verdict(text: str) -> VerdictReply:
    """Parse a verification reply (inspector or voter)."""
    try:  # extract_json only returns objects: a scalar reply already raised
        return VerdictReply.model_validate(extract_json(text))
    except ValidationError as error:
        raise ReplyError(_join(_errors(error, ()))) from None


def parse_same_problem(text: str) -> SameProblemReply:
    """Parse an answer to "same problem?"."""
    try:
        return SameProblemReply.model_validate(extract_json(text))
    except ValidationError as error:
        raise ReplyError(_join(_errors(error, ()))) from None


def extract_json(text: str) -> object:
    """The JSON value a reply carries; a bare list becomes {"findings": [...]}.

    Tried in order: the whole reply, the contents of each Markdown fence, then every
    balanced `{...}` / `[{...}]` found by a string-aware scanner. A value holding
    "findings" or "verdict" wins over any other JSON the reply happens to quote.
    """
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyError(
            f"the reply is {len(text):,} characters long, over the limit of "
            f"{MAX_REPLY_CHARS:,}; report fewer findings with shorter bodies"
        )
    body = _strip_reasoning(text).strip()
    if not body:
        raise ReplyError("the reply is empty")
    whole = _loads(body)
    if isinstance(whole, str):  # double-encoded: a JSON string holding the JSON
        whole = _loads(whole.strip())
    if isinstance(whole, (dict, list)):
        return _wrap(whole)
    fallback: object = None
    first_error: str | None = None
    for candidate in _candidates(body):
        if isinstance(candidate, _Invalid):
            first_error = first_error or candidate.problem
        elif _expected(candidate):
            return _wrap(candidate)
        elif fallback is None:
            fallback = candidate
    if fallback is not None:
        return _wrap(fallback)
    if first_error is not None:
        raise ReplyError(first_error)
    raise ReplyError("the reply contains no JSON object")


# --------------------------------------------------------------------------- extraction


@dataclass(frozen=True)
class _Invalid:
    problem: str


def _strip_reasoning(text: str) -> str:
    """Drop a leading `<think>…</think>` block, or reasoning whose opening tag is missing."""
    tags = list(_THINK_TAG.finditer(text))
    if not tags:
        return text
    first_close = next((tag for tag in tags if tag.group(1)), None)
    if first_close is None:
        return text  # reasoning never closed: leave it, the scanner may still find JSON
    starts_with_think = not tags[0].group(1) and not text[: tags[0].start()].strip()
    # Some gateways strip the opening tag: then the reasoning is all text before `</think>`,
    # unless that tag sits inside the JSON reply itself (a finding about `</think>`).
    if starts_with_think or not _inside_json(text, first_close.start()):
        return text[first_close.end() :]
    return text


def _inside_json(text: str, position: int) -> bool:
    """Whether `position` lies inside (or after an unclosed) bracketed JSON value."""
    scanned = 0
    while (start := _PLAUSIBLE_START.search(text, scanned, position)) is not None:
        end = _balanced_end(text, start.start())
        if end is None or end > position:
            return True
        scanned = end
    return False


def _candidates(body: str) -> Iterator[object]:
    """JSON values in fences, then in the prose; `_Invalid` for balanced non-JSON."""
    for fence in _FENCE.finditer(body):
        value = _loads(fence.group(1).strip())
        if isinstance(value, (dict, list)):
            yield value
    position = 0
    for _ in range(MAX_CANDIDATES):
        start = _PLAUSIBLE_START.search(body, position)
        if start is None:
            return
        end = _balanced_end(body, start.start())
        if end is None:
            raise ReplyError(
                f"the JSON is truncated at character {len(body)}: it stops before its "
                "closing brackets; reply with a shorter, complete JSON object"
            )
        span = body[start.start() : end]
        try:
            yield json.loads(span)
        except ValueError as error:  # JSONDecodeError, or an integer of 4,300+ digits
            yield _Invalid(f"the JSON is invalid: {_clip(str(error), 160)}")
        except RecursionError:
            raise _too_deep() from None
        position = end  # never re-enter a broken object: its inner parts are not the reply


def _balanced_end(text: str, start: int) -> int | None:
    """End (exclusive) of the bracketed value at `start`; None if the text ends first."""
    depth = 0
    position = start
    while (match := _STRUCTURAL.search(text, position)) is not None:
        char = match.group()
        position = match.end()
        if char == '"':
            closing = _string_end(text, position)
            if closing is None:
                return None
            position = closing
        elif char in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep()
        else:
            depth -= 1
            if depth == 0:
                return position
    return None


def _string_end(text: str, position: int) -> int | None:
    """Index after the closing quote of a JSON string whose body starts at `position`."""
    while (quote := text.find('"', position)) != -1:
        backslashes = 0
        while quote - backslashes - 1 >= position and text[quote - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        position = quote + 1
    return None


def _loads(text: str) -> object:
    """Parsed JSON, or None when `text` is not JSON; refuses excessive nesting."""
    try:
        value: object = json.loads(text)
    except ValueError:  # JSONDecodeError, or an integer of 4,300+ digits
        return None
    except RecursionError:
        raise _too_deep() from None
    if _depth(value) > MAX_DEPTH:
        raise _too_deep()
    return value


def _depth(value: object) -> int:
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Sequence[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _too_deep() -> ReplyError:
    return ReplyError(f"the JSON is nested deeper than {MAX_DEPTH} levels")


def _expected(value: object) -> bool:
    return isinstance(value, dict) and any(key in value for key in _EXPECTED_KEYS)


def _wrap(value: object) -> object:
    return {"findings": value} if isinstance(value, list) else value


# --------------------------------------------------------------------------- validation


def _errors(error: ValidationError, prefix: tuple[str | int, ...]) -> list[str]:
    """One `path: message (got …)` per error, echoing at most a clipped scalar."""
    lines: list[str] = []
    for detail in error.errors(include_url=False):
        path = _path((*prefix, *detail["loc"])) or "reply"
        line = f"{path}: {detail['msg']}"
        if detail["type"] != "missing":
            line += f" (got {_echo(detail.get('input'))})"
        lines.append(line)
    return lines


def _join(items: Sequence[str]) -> str:
    """The first MAX_LISTED_ERRORS problems, and how many more there are."""
    shown = "; ".join(items[:MAX_LISTED_ERRORS])
    hidden = len(items) - MAX_LISTED_ERRORS
    return f"{shown}; and {hidden} more" if hidden > 0 else shown


def _path(location: Sequence[str | int]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _echo(value: object) -> str:
    if isinstance(value, (dict, list)):
        return _json_type(value)
    return _clip(json.dumps(value, ensure_ascii=False, default=str), _ECHO_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_JSON_TYPES = ((dict, "an object"), (list, "an array"), (str, "a string"), (bool, "a boolean"))


def _json_type(value: object) -> str:
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, (int, float)) else "null"
