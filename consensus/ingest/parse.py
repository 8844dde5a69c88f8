"""Ingest: a unified diff (bytes or text) → reviewable ChangedFiles and SkippedFiles.

The parser reads file headers by git's own rules (`git apply`'s): names on the
`diff --git` line may be C-quoted, and unquoted ones are split where both halves name the
same file, so a directory called `plan b` is no trouble; `rename from/to` and
`copy from/to` carry exact names, then the `---`/`+++` lines. Diffs without git headers
(`diff -u`, hg, svn) are read from their `---`/`+++` lines. Lines are split at "\\n"
only, so line numbers are git's. It decides which files have nothing a model could
comment on (deleted, binary, symlink, submodule, mode-only, empty).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from consensus.errors import DiffError
from consensus.ingest.git_names import (
    SIDE_PREFIX,
    display_name,
    field_name,
    header_names,
    tail_name,
)
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, DiffLine, Hunk, LinkChange, SkippedFile

DEV_NULL = "/dev/null"
SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"

_FIX = "pass unmodified output of `git diff` (or a GitHub .diff), e.g. git diff main...HEAD"
_STRUCTURE_LINE = re.compile(r"^(?:diff --git |--- |\+\+\+ |@@ -)", re.MULTILINE)
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_INDEX = re.compile(r"^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+(?: (\d{6}))?\s*$")


class ParsedDiff(NamedTuple):
    files: list[ChangedFile]
    skipped: list[SkippedFile]
    links: list[LinkChange]
    # What each deleted file removed (no finding can sit on it, but code moved out of it
    # is moved code where it lands: ingest/moved.py).
    deleted: list[tuple[str, tuple[Hunk, ...]]]


def parse_diff(raw: bytes | str) -> tuple[list[ChangedFile], list[SkippedFile]]:
    """Parse a unified diff into files to review and files skipped with a reason.

    Deleted, binary, symlink, submodule, mode-only and empty new files are skipped:
    there is no new-side line to comment on. Renames and copies (with or without content
    changes) are kept with `old_path` set. An empty input gives two empty lists; anything
    that is not a diff raises DiffError.
    """
    parsed = parse_diff_full(raw)
    return parsed.files, parsed.skipped


def parse_diff_full(raw: bytes | str) -> ParsedDiff:
    """`parse_diff`, plus the symbolic links the diff adds, retargets or removes."""
    text = _decode(raw)
    if not text.strip():
        return ParsedDiff([], [], [], [])
    sections = _Parser(text).parse()
    if not sections:
        raise DiffError(
            "the input is not a unified diff: no 'diff --git' or '---'/'+++' file header found",
            fix=_FIX,
        )
    result = ParsedDiff([], [], [], [])
    for section in sections:
        converted = _convert(section)
        if isinstance(converted, SkippedFile):
            result.skipped.append(converted)
            if converted.reason == "deleted":
                result.deleted.append((converted.path, tuple(section.hunks)))
        else:
            result.files.append(converted)
        if section.is_link:
            result.links.append(_link(section, converted.path))
    return result


def git_section_paths(raw: str) -> dict[str, str]:
    """path → its section of a `git diff` output, each file's path read by git's rules
    (the new path; the old one for a deletion). Sections that do not parse are left out."""
    starts = [m.start() for m in re.finditer(r"^diff --git ", raw, re.MULTILINE)]
    sections: dict[str, str] = {}
    for start, end in zip(starts, [*starts[1:], len(raw)], strict=True):
        chunk = raw[start:end].rstrip("\n")
        try:
            parsed = _Parser(chunk).parse()
        except DiffError:
            continue
        if len(parsed) == 1:
            old, new = parsed[0].paths()
            path = new or old
            if path:
                sections[path] = chunk
    return sections


# --------------------------------------------------------------------------- decoding


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
    # A diff saved with CRLF everywhere (autocrlf, Windows clipboard): when the headers
    # themselves end in CRLF, every line does.
    end = text.find("\n", first.start()) if first is not None else -1
    if end > 0 and text[end - 1] == "\r":
        text = text.replace("\r\n", "\n")
    return text


# --------------------------------------------------------------------------- names


# --------------------------------------------------------------------------- parsing


@dataclass
class _Section:
    """One file of the diff as read, before it is judged."""

    git: bool
    header: tuple[str | None, str | None] = (None, None)
    minus: str | None = None
    plus: str | None = None
    renamed: tuple[str | None, str | None] = (None, None)
    copied: tuple[str | None, str | None] = (None, None)
    old_mode: str | None = None
    new_mode: str | None = None
    new_file: bool = False
    deleted: bool = False
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def is_link(self) -> bool:
        return SYMLINK_MODE in (self.old_mode, self.new_mode)

    @property
    def is_submodule(self) -> bool:
        return SUBMODULE_MODE in (self.old_mode, self.new_mode)

    def paths(self) -> tuple[str | None, str | None]:
        """(old, new) without prefixes; None for /dev/null (added or deleted)."""
        if self.git:
            old, new = self._git_paths()
        else:
            old, new = self._plain_paths()
        old = None if old is None else display_name(old)
        new = None if new is None else display_name(new)
        return old, new

    def _git_paths(self) -> tuple[str | None, str | None]:
        def strip(name: str | None) -> str | None:
            return None if name is None or name == DEV_NULL else SIDE_PREFIX.sub("", name)

        old = self.renamed[0] or self.copied[0] or strip(self.minus) or strip(self.header[0])
        new = self.renamed[1] or self.copied[1] or strip(self.plus) or strip(self.header[1])
        if self.new_file or self.minus == DEV_NULL:
            old = None
        if self.deleted or self.plus == DEV_NULL:
            new = None
        if old is None and new is None and not (self.new_file and self.deleted):
            new = strip(self.header[1]) or strip(self.header[0])
        return old, new

    def _plain_paths(self) -> tuple[str | None, str | None]:
        old = None if self.minus in (None, DEV_NULL) else self.minus
        new = None if self.plus in (None, DEV_NULL) else self.plus
        if old is not None and new is not None:
            # `patch -p1`: drop the first component when the two sides differ only there
            # (a/ b/, old/ new/); svn's and `diff -u`'s plain names are kept as they are.
            if old.split("/", 1)[0] != new.split("/", 1)[0] and tail_name(old) == tail_name(new):
                old, new = tail_name(old) or old, tail_name(new) or new
        else:
            old = SIDE_PREFIX.sub("", old) if old and SIDE_PREFIX.match(old) else old
            new = SIDE_PREFIX.sub("", new) if new and SIDE_PREFIX.match(new) else new
        return old, new


class _Parser:
    """Reads the lines of a diff once, top to bottom, into _Sections."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.at = 0
        self.sections: list[_Section] = []

    def error(self, problem: str, line: int | None = None) -> DiffError:
        # The offending line is not quoted: it could hold a secret, and this message ends
        # up in CI logs. Its number is enough to find it.
        number = line if line is not None else self.at + 1
        return DiffError(f"malformed diff at line {number}: {problem}", fix=_FIX)

    def parse(self) -> list[_Section]:
        current: _Section | None = None
        skipping_binary = False
        while self.at < len(self.lines):
            line = self.lines[self.at]
            if line.startswith("diff --git "):
                current = _Section(git=True, header=header_names(line[len("diff --git ") :]))
                self.sections.append(current)
                skipping_binary = False
                self.at += 1
                continue
            if line.startswith(("diff --cc ", "diff --combined ")):
                raise self.error("a combined diff of a merge commit cannot be reviewed")
            if skipping_binary:
                self.at += 1
                continue
            if line.startswith("--- ") and self._next_starts("+++ "):
                if current is None or not current.git or current.hunks or current.plus:
                    current = _Section(git=False)
                    self.sections.append(current)
                current.minus = field_name(line[4:])
                current.plus = field_name(self.lines[self.at + 1][4:])
                self.at += 2
                continue
            header = _HUNK_HEADER.match(line)
            if header:
                if current is None:
                    raise self.error("hunk header before any file header")
                current.hunks.append(self._hunk(header))
                continue
            if current is not None and current.git and not current.hunks:
                skipping_binary = self._git_extended(current, line)
            self.at += 1
        return self.sections

    def _next_starts(self, prefix: str) -> bool:
        return self.at + 1 < len(self.lines) and self.lines[self.at + 1].startswith(prefix)

    @staticmethod
    def _git_extended(section: _Section, line: str) -> bool:
        """Apply one extended header line of a git section; True when binary data follows."""
        for prefix, attribute in (("rename from ", "renamed"), ("copy from ", "copied")):
            if line.startswith(prefix):
                setattr(section, attribute, (field_name(line[len(prefix) :]), None))
        for prefix, attribute in (("rename to ", "renamed"), ("copy to ", "copied")):
            if line.startswith(prefix):
                before = getattr(section, attribute)[0]
                setattr(section, attribute, (before, field_name(line[len(prefix) :])))
        if line.startswith("old mode "):
            section.old_mode = line[len("old mode ") :].strip()
        elif line.startswith("new mode "):
            section.new_mode = line[len("new mode ") :].strip()
        elif line.startswith("new file mode "):
            section.new_file, section.new_mode = True, line[len("new file mode ") :].strip()
        elif line.startswith("deleted file mode "):
            section.deleted, section.old_mode = True, line[len("deleted file mode ") :].strip()
        elif (index := _INDEX.match(line)) and index.group(1):
            section.old_mode = section.old_mode or index.group(1)
            section.new_mode = section.new_mode or index.group(1)
        elif line.startswith("Binary files ") and line.endswith(" differ"):
            section.binary = True
        elif line == "GIT binary patch":
            section.binary = True
            return True
        return False

    def _hunk(self, header: re.Match[str]) -> Hunk:
        old_start, new_start = int(header.group(1)), int(header.group(3))
        old_length = int(header.group(2)) if header.group(2) is not None else 1
        new_length = int(header.group(4)) if header.group(4) is not None else 1
        old_left, new_left = old_length, new_length
        old_no, new_no = old_start, new_start
        lines: list[DiffLine] = []
        self.at += 1
        while old_left > 0 or new_left > 0:
            if self.at >= len(self.lines):
                raise self.error("Hunk is shorter than expected", line=self.at)
            text = self.lines[self.at]
            kind = text[:1]
            if kind == "\\":
                if lines:
                    lines[-1] = lines[-1].model_copy(update={"no_newline": True})
                self.at += 1
                continue
            if kind in ("", "\r"):
                kind, text = " ", " "  # a blank context line whose space was trimmed
            if kind == " " and old_left > 0 and new_left > 0:
                lines.append(_line(" ", text, old_no, new_no))
                old_no, old_left = old_no + 1, old_left - 1
                new_no, new_left = new_no + 1, new_left - 1
            elif kind == "-" and old_left > 0:
                lines.append(_line("-", text, old_no, None))
                old_no, old_left = old_no + 1, old_left - 1
            elif kind == "+" and new_left > 0:
                lines.append(_line("+", text, None, new_no))
                new_no, new_left = new_no + 1, new_left - 1
            elif kind in (" ", "-", "+"):
                raise self.error("Hunk is longer than expected")
            elif text.startswith(("diff ", "@@")):
                raise self.error("Hunk is shorter than expected")
            else:
                raise self.error("Hunk diff line expected")
            self.at += 1
        # The last line of a side may be followed by git's "\ No newline at end of file".
        while self.at < len(self.lines) and self.lines[self.at].startswith("\\"):
            if lines:
                lines[-1] = lines[-1].model_copy(update={"no_newline": True})
            self.at += 1
        return Hunk(
            old_start=old_start,
            old_length=old_length,
            new_start=new_start,
            new_length=new_length,
            section=header.group(5).strip(),
            lines=tuple(lines),
        )


def _line(kind: Literal["+", "-", " "], text: str, old: int | None, new: int | None) -> DiffLine:
    return DiffLine(
        kind=kind,
        text=text[1:].removesuffix("\r"),
        old_line=old,
        new_line=new,
    )


# --------------------------------------------------------------------------- judging


def _convert(section: _Section) -> ChangedFile | SkippedFile:
    old_path, new_path = section.paths()
    path = new_path or old_path or "(unnamed)"
    if old_path is not None and new_path is None:
        return SkippedFile(path=old_path, reason="deleted")
    if section.binary:
        return SkippedFile(path=path, reason="binary")
    if section.is_submodule:
        return SkippedFile(path=path, reason="submodule")
    if section.is_link:
        return SkippedFile(path=path, reason="symlink")
    moved = section.git and old_path is not None and new_path is not None and old_path != new_path
    hunks = tuple(section.hunks)
    if not hunks and not moved:
        if section.old_mode and section.new_mode and section.old_mode != section.new_mode:
            return SkippedFile(path=path, reason="mode change only")
        reason = "empty file" if section.new_file or old_path is None else "no content changes"
        return SkippedFile(path=path, reason=reason)
    if old_path is None:
        status = FileStatus.ADDED
    elif moved:
        status = FileStatus.COPIED if section.copied[1] is not None else FileStatus.RENAMED
    else:
        status = FileStatus.MODIFIED
    lines = [line for hunk in hunks for line in hunk.lines]
    return ChangedFile(
        path=path,
        old_path=old_path if moved else None,
        status=status,
        hunks=hunks,
        added=sum(line.kind == "+" for line in lines),
        removed=sum(line.kind == "-" for line in lines),
    )


def _link(section: _Section, path: str) -> LinkChange:
    """The link's targets, read from its one-line hunk on each side."""
    lines = [line for hunk in section.hunks for line in hunk.lines]
    old = next((line.text for line in lines if line.kind in "- "), None)
    new = next((line.text for line in lines if line.kind in "+ "), None)
    if section.old_mode != SYMLINK_MODE:
        old = None  # a file turned into a link: the old text was no target
    if section.new_mode != SYMLINK_MODE or (section.deleted and not section.new_file):
        new = None
    return LinkChange(path=path, target=new, old_target=old)
