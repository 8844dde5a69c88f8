"""The repository's own guidelines as review context: AGENTS.md, CLAUDE.md,
.github/copilot-instructions.md, CONTRIBUTING.md, .consensus/instructions.md (config
`context.guidelines`), and `path_instructions` for files of a kind.

The files are read by the caller from the BASE branch, never the PR head (a PR cannot
rewrite its reviewers' instructions, as with the config); here they are redacted like the
diff and capped at `context.max_chars` in total, in the configured order: a file that does
not fit whole is cut at a line boundary, the ones after it are left out, and each cut or
omission is a note in the report. They go after the diff in the prompt, so every call for
one chunk shares the cached prefix. Pure, given the reader.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from consensus.ingest.pathfilter import PathRules
from consensus.ingest.redact import redact_text
from consensus.model.base import Frozen
from consensus.settings.scope import ContextSettings

Reader = Callable[[str], "str | None"]  # path → its text at the base commit, None if absent


class GuidelineFile(Frozen):
    path: str
    text: str  # redacted, and cut when `cut`
    chars: int  # the whole file's length, before redaction and cutting
    cut: bool = False
    redacted: int = 0  # secrets replaced


class Guidelines(Frozen):
    """The guideline files given to reviewers, and what the report says about them."""

    files: tuple[GuidelineFile, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PromptContext:
    """What every review call adds after the diff: guidelines, path instructions, language."""

    language: str = "en"
    guidelines: Guidelines = field(default_factory=Guidelines)
    path_instructions: Mapping[str, str] = field(default_factory=dict)


def collect_guidelines(
    read: Reader, context: ContextSettings, redact_patterns: Sequence[str] = ()
) -> Guidelines:
    """Read, redact and cap the configured guideline files, in their configured order."""
    if context.max_chars == 0:
        return Guidelines()
    room = context.max_chars
    files: list[GuidelineFile] = []
    notes: list[str] = []
    for path in dict.fromkeys(context.guidelines):
        raw = read(path)
        if raw is None or not raw.strip():
            continue
        if room == 0:
            notes.append(
                f"guidelines: {path} ({len(raw)} characters) was left out: "
                f"context.max_chars ({context.max_chars}) was used up by the files before it"
            )
            continue
        text, kinds = redact_text(raw, redact_patterns)
        cut = len(text) > room
        if cut:
            text = _cut(text, room)
            notes.append(
                f"guidelines: {path} was cut to {len(text)} of {len(raw)} characters "
                f"(context.max_chars is {context.max_chars})"
            )
        if kinds:
            notes.append(f"guidelines: {len(kinds)} secret(s) redacted in {path}")
        room = 0 if cut else room - len(text)
        files.append(
            GuidelineFile(path=path, text=text, chars=len(raw), cut=cut, redacted=len(kinds))
        )
    return Guidelines(files=tuple(files), notes=tuple(notes))


def describe_guidelines(guidelines: Guidelines, context: ContextSettings) -> list[str]:
    """One line per configured file: what reviewers are given of it, or why nothing."""
    if context.max_chars == 0:
        return ["none: context.max_chars is 0"]
    used = {file.path: file for file in guidelines.files}
    lines = []
    for path in dict.fromkeys(context.guidelines):
        file = used.get(path)
        if file is None:
            left_out = any(note.startswith(f"guidelines: {path} (") for note in guidelines.notes)
            lines.append(f"{path}: {'left out (over max_chars)' if left_out else 'not found'}")
            continue
        size = (
            f"{len(file.text)} of {file.chars} characters"
            if file.cut
            else f"{file.chars} characters"
        )
        redacted = f", {file.redacted} secret(s) redacted" if file.redacted else ""
        lines.append(f"{path}: {size}{' (cut)' if file.cut else ''}{redacted}")
    return lines


def _cut(text: str, room: int) -> str:
    """At most `room` characters, ending at a line break when there is one to end at."""
    head = text[:room]
    newline = head.rfind("\n")
    return head[: newline + 1] if newline > 0 else head


def path_instructions_for(
    paths: Sequence[str], instructions: Mapping[str, str]
) -> list[tuple[str, list[str], str]]:
    """(pattern, matching paths, instructions) for each pattern that matches a path here."""
    found = []
    for pattern, text in instructions.items():
        rules = PathRules([pattern])
        matching = [path for path in paths if rules.matches(path)]
        if matching:
            found.append((pattern, matching, text.strip()))
    return found
