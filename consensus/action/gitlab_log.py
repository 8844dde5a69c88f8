"""The GitLab CI job log: the one writer of a job's lines, safe for GitLab's log viewer.

A GitLab runner streams a job's output as it is; GitLab renders it, acting on:

- ANSI escape sequences (ESC `[` … `m` colours, `ESC[0K` erase, cursor moves, OSC
  hyperlinks `ESC]8;;url`), and carriage returns, which rewrite the line shown;
- collapsible sections, `section_start:<unix time>:<name>[collapsed=true]\\r\\e[0K<title>`
  and `section_end:<unix time>:<name>\\r\\e[0K`, which hide or retitle what follows.

GitLab has no workflow-command channel like GitHub's `::add-mask::`; it masks only the
CI/CD variables marked masked. So, during a GitLab job:

- `GitLabLog.__call__` writes every log line as `consensus: <text>`, the text made inert:
  ESC, carriage return and every other control character shown in caret notation
  (`^[`, `^M`), a newline as `\\n`, and `section_start:` / `section_end:` broken
  (`section_start%3A`): one line out per call, no sequence of anyone else's;
- `GitLabLog.mask` adds values to our own redaction: every line written, ours and any
  other writer's while `guard()` holds, has each of them replaced with `[MASKED]`, as
  GitLab shows a masked variable (the token, the provider keys);
- `GitLabLog.verbatim` shows a block of foreign text line by line, each line inert;
- `GitLabLog.guard` filters `sys.stdout` and `sys.stderr` for the rest (a library's
  logger, a traceback quoting foreign text): each line inert and masked.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TextIO
from urllib.parse import quote

from consensus.action.log_guard import filtering

PREFIX = "consensus: "
MASKED = "[MASKED]"  # what GitLab shows for a masked variable
MIN_MASK_LENGTH = 6  # shorter values would hide common words all over the log
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
_SECTION = re.compile(r"section_(start|end):", re.IGNORECASE)
NEWLINE = re.compile("\n")  # a carriage return does not end a line: it is shown as ^M


def _caret(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)
    return "^?" if code == 0x7F else f"\\x{code:02x}"


def inert(text: str) -> str:
    """`text` on one line with nothing GitLab's log viewer would act on: controls in caret
    notation, newlines as `\\n`, section markers broken."""
    text = text.replace("\r\n", "\n").replace("\n", "\\n")
    text = _CONTROL.sub(_caret, text)
    return _SECTION.sub(lambda m: f"section_{m.group(1)}%3A", text)


class GitLabLog:
    """Where a GitLab job writes: log lines to stderr, blocks to stdout. Callable as the
    `Log` port; built once by the face; `guard()` holds for the run."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out: TextIO = out if out is not None else sys.stdout
        self._err: TextIO = err if err is not None else sys.stderr
        self._masked: list[str] = []

    def __call__(self, line: str) -> None:
        self._write(self._err, PREFIX + self.redact(inert(line)))

    def warning(self, message: str) -> None:
        self(f"warning: {message}")

    def mask(self, values: Iterable[str]) -> int:
        """Add values (each line of a multi-line one, and its URL-encoded form) to the
        redaction; how many are new."""
        added = 0
        for value in values:
            for part in value.splitlines():
                part = part.strip()
                for form in dict.fromkeys((part, quote(part, safe=""))):
                    if len(form) >= MIN_MASK_LENGTH and form not in self._masked:
                        self._masked.append(form)
                        added += form == part
        self._masked.sort(key=len, reverse=True)  # a longer value first: none left half-shown
        return added

    def redact(self, text: str) -> str:
        for value in self._masked:
            text = text.replace(value, MASKED)
        return text

    def verbatim(self, title: str, text: str) -> None:
        """A block of foreign text, each line inert and redacted."""
        self(title)
        for line in text.splitlines():
            self._write(self._out, self.redact(inert(line)))

    def guard(self) -> AbstractContextManager[None]:
        """While the run lasts, every other writer's lines are made inert and redacted."""
        return filtering(sys.stdout, sys.stderr, lambda line: self.redact(inert(line)), NEWLINE)

    @staticmethod
    def _write(stream: TextIO, line: str) -> None:
        stream.write(line + "\n")
        stream.flush()
