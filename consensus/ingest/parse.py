"""Ingest: a unified diff (bytes or text) → reviewable ChangedFiles and SkippedFiles.

Parsing is delegated to `unidiff`; this module decodes the input defensively, turns
unidiff's objects into the frozen stage types, and decides which files have nothing a
model could comment on (deleted, binary, mode-only, empty, submodule).
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterator
from typing import Literal

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk as UnidiffHunk
from unidiff.patch import PatchedFile, PatchSet

from consensus.errors import DiffError
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, DiffLine, Hunk, SkippedFile

DEV_NULL = "/dev/null"
SUBMODULE_MODE = "160000"

_FIX = "pass unmodified output of `git diff` (or a GitHub .diff), e.g. git diff main...HEAD"
_STRUCTURE_LINE = re.compile(r"^(?:diff --git |--- |\+\+\+ |@@ -)", re.MULTILINE)
_GIT_HEADER = re.compile(r"^diff --git ", re.MULTILINE)
# git's prefixes: a/ b/, the mnemonic c/ i/ o/ w/, and 1/ 2/ of --no-index (as unidiff).
_PREFIX = re.compile(r"^[abciow12]/")
_KINDS: dict[str, Literal["+", "-", " "]] = {"+": "+", "-": "-", " ": " "}
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def parse_diff(raw: bytes | str) -> tuple[list[ChangedFile], list[SkippedFile]]:
    """Parse a unified diff into files to review and files skipped with a reason.

    Deleted, binary, submodule, mode-only and empty new files are skipped: there is no
    new-side line to comment on. Renames (with or without content changes) are kept with
    `old_path` set. An empty input gives two empty lists; anything that is not a diff
    raises DiffError.
    """
    text = _decode(raw)
    if not text.strip():
        return [], []
    patch = _parse_patchset(text)
    if not patch:
        raise DiffError(
            "the input is not a unified diff: no 'diff --git' or '---'/'+++' file header found",
            fix=_FIX,
        )
    changed: list[ChangedFile] = []
    skipped: list[SkippedFile] = []
    for patched in patch:
        result = _convert(patched)
        if isinstance(result, SkippedFile):
            skipped.append(result)
        else:
            changed.append(result)
    return changed, skipped


def _decode(raw: bytes | str) -> str:
    if isinstance(raw, bytes):
        # Windows PowerShell's `git diff > x.diff` writes UTF-16 with a BOM.
        if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            text = raw.decode("utf-16", errors="replace")
        else:
            text = raw.decode("utf-8", errors="replace")
    else:
        text = raw
    text = text.removeprefix("\ufeff")
    first = _STRUCTURE_LINE.search(text)
    # A diff saved with CRLF everywhere (autocrlf, Windows clipboard) breaks unidiff's
    # header regexes; when the headers themselves end in CRLF, every line does.
    end = text.find("\n", first.start()) if first is not None else -1
    if end > 0 and text[end - 1] == "\r":
        text = text.replace("\r\n", "\n")
    return text


class _CountedLines:
    """Iterates over lines (split on \\n only) and remembers how many were read."""

    def __init__(self, text: str) -> None:
        self._text = text
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        for line in io.StringIO(self._text):
            self.count += 1
            yield line


def _parse_patchset(text: str) -> PatchSet:
    try:
        return _unidiff(text)
    except DiffError:
        # Junk before the first file header (mail headers, a log) may confuse unidiff;
        # the diff proper starts at the first `diff --git`.
        start = _GIT_HEADER.search(text)
        if start is None or start.start() == 0:
            raise
        return _unidiff(text[start.start() :], skipped_lines=text.count("\n", 0, start.start()))


def _unidiff(text: str, *, skipped_lines: int = 0) -> PatchSet:
    lines = _CountedLines(text)
    try:
        return PatchSet(lines)
    except (UnidiffParseError, ValueError) as exc:
        # unidiff quotes the offending line after a colon; that line could hold a secret,
        # and this message ends up in CI logs, so only the line number is given.
        problem = str(exc).split(":", 1)[0].strip()
        line = skipped_lines + lines.count
        raise DiffError(f"malformed diff at line {line}: {problem}", fix=_FIX) from exc


def _convert(patched: PatchedFile) -> ChangedFile | SkippedFile:
    old_path, new_path = _paths(patched)
    path = new_path or old_path or "(unnamed)"
    if patched.is_removed_file:
        return SkippedFile(path=old_path or path, reason="deleted")
    if patched.is_binary_file:
        return SkippedFile(path=path, reason="binary")
    if SUBMODULE_MODE in (patched.source_mode, patched.target_mode):
        return SkippedFile(path=path, reason="submodule")
    renamed = old_path is not None and new_path is not None and old_path != new_path
    hunks = tuple(_hunk(hunk) for hunk in patched)
    if not hunks and not renamed:
        if patched.source_mode and patched.target_mode != patched.source_mode:
            return SkippedFile(path=path, reason="mode change only")
        reason = "empty file" if patched.is_added_file else "no content changes"
        return SkippedFile(path=path, reason=reason)
    if patched.is_added_file:
        status = FileStatus.ADDED
    elif renamed:
        status = FileStatus.RENAMED
    else:
        status = FileStatus.MODIFIED
    lines = [line for hunk in hunks for line in hunk.lines]
    return ChangedFile(
        path=path,
        old_path=old_path if status is FileStatus.RENAMED else None,
        status=status,
        hunks=hunks,
        added=sum(line.kind == "+" for line in lines),
        removed=sum(line.kind == "-" for line in lines),
    )


def _paths(patched: PatchedFile) -> tuple[str | None, str | None]:
    """(old, new) paths without a/ b/ prefixes or git's quoting; None for /dev/null."""
    old: str | None = None
    new: str | None = None
    if patched.source_file and patched.source_file != DEV_NULL:
        old = _PREFIX.sub("", _unquote(patched.source_file))
    if patched.target_file and patched.target_file != DEV_NULL:
        new = _PREFIX.sub("", _unquote(patched.target_file))
    # `rename from/to` carry the exact names, even ones that contain " b/".
    for info in patched.patch_info or ():
        if info.startswith("rename from "):
            old = _unquote(info[len("rename from ") :].rstrip("\n"))
        elif info.startswith("rename to "):
            new = _unquote(info[len("rename to ") :].rstrip("\n"))
    return old, new


def _unquote(name: str) -> str:
    """Undo git's C-style quoting ("a/t\\303\\251st.py" → a/tést.py)."""
    name = name.strip()
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            octal = body[i + 1 : i + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8) & 0xFF)
                i += 4
                continue
            out.append(_C_ESCAPES.get(body[i + 1], ord("\\")))
            i += 2 if body[i + 1] in _C_ESCAPES else 1
            continue
        out.extend(char.encode("utf-8", errors="replace"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _hunk(hunk: UnidiffHunk) -> Hunk:
    lines: list[DiffLine] = []
    for line in hunk:
        kind = _KINDS.get(line.line_type)
        if kind is None:
            continue  # "\\ No newline at end of file" and unidiff's trailing blank lines
        lines.append(
            DiffLine(
                kind=kind,
                text=line.value.removesuffix("\n").removesuffix("\r"),
                old_line=line.source_line_no if kind != "+" else None,
                new_line=line.target_line_no if kind != "-" else None,
            )
        )
    return Hunk(
        old_start=hunk.source_start,
        old_length=hunk.source_length,
        new_start=hunk.target_start,
        new_length=hunk.target_length,
        section=hunk.section_header.strip(),
        lines=tuple(lines),
    )
