"""The Actions log: the one writer of a step's lines, safe for the runner.

A GitHub Actions runner reads every line a step prints and acts on two forms of
workflow command (its `ActionCommand` parser):

- `::name k=v,k=v::data`: a line that starts with `::` once leading whitespace is trimmed
  (`::error`, `::warning`, `::notice`, `::add-mask::`, `::stop-commands::`, `::group::`,
  `::endgroup::`, `::debug::`, the deprecated `::set-output`, `::save-state`…);
- the legacy `##[name k=v;]data`, found anywhere in a line.

Text consensus did not write (PR titles, paths, finding titles, provider errors, comment
bodies) must never become one. So, during `consensus action`:

- `ActionLog.__call__` writes every log line as `consensus: <text>`, the text escaped as
  GitHub escapes workflow command data (`%` → `%25`, `\\r` → `%0D`, `\\n` → `%0A`) and `##[`
  broken (`##%5B`): one line out per call, never starting with `::`;
- `ActionLog.verbatim` shows a block of foreign text as it is, between
  `::stop-commands::<random token>` and `::<token>::`, so the runner ignores it;
- `ActionLog.warning` and `ActionLog.mask` write our own commands (a warning annotation,
  `::add-mask::`), their data and properties escaped: the only commands a run emits;
- `ActionLog.guard` puts a filter on `sys.stdout` and `sys.stderr` (and Python's warnings)
  for the rest: a line written by anything else (a library's logger, rich, click) that
  the runner would act on comes out neutralised, prefixed with `consensus: (escaped) `.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, TextIO

from consensus.action.log_guard import filtering
from consensus.model.urls import scrub_urls

PREFIX = "consensus: "
ESCAPED = "(escaped) "  # marks a foreign line the runner would have acted on
# A masked value shorter than this would hide common words all over the log.
MIN_MASK_LENGTH = 6
LINE_ENDS = re.compile(r"\r\n|\n|\r")  # each ends a line for the runner


def escape_data(text: str) -> str:
    """Text as workflow command data: `%`, CR and LF escaped, so it stays on one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Text as a workflow command property value: data escaping plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def runner_acts_on(line: str) -> bool:
    """Whether a runner would try this line as a workflow command: it starts with `::`
    after leading whitespace, or holds the legacy `##[` form anywhere."""
    return line.lstrip().startswith("::") or "##[" in line


def neutral(text: str) -> str:
    """Foreign text made inert for the runner, on one line: data-escaped, `##[` broken."""
    return escape_data(text).replace("##[", "##%5B")


def inert_line(line: str) -> str:
    """The line as it is, or marked `(escaped)` and neutralised if the runner would act on it."""
    return ESCAPED + neutral(line) if runner_acts_on(line) else line


def inert(text: str) -> str:
    """`text` with each line the runner would act on marked `(escaped)` and neutralised: for
    what the command line prints in a step of the user's own (`run: consensus review`), where
    no ActionLog guards the streams but the runner still reads them for workflow commands."""
    return "\n".join(inert_line(line) for line in text.split("\n"))


class ActionLog:
    """Where `consensus action` writes: log lines to stderr, our commands to stdout.

    Callable as the `Log` port. Built once by the Action face; `guard()` holds for the run.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out: TextIO = out if out is not None else sys.stdout
        self._err: TextIO = err if err is not None else sys.stderr
        self._masked: set[str] = set()

    def __call__(self, line: str) -> None:
        self._write(self._err, PREFIX + neutral(scrub_urls(line)))

    def warning(self, message: str, *, title: str = "consensus") -> None:
        """Our warning annotation on the run."""
        self._command("warning", neutral(message), title=title)

    def mask(self, values: Iterable[str]) -> int:
        """`::add-mask::` for each value (each line of a multi-line one); how many new."""
        added = 0
        for value in values:
            for part in value.splitlines():
                part = part.strip()
                if len(part) < MIN_MASK_LENGTH or part in self._masked:
                    continue
                self._masked.add(part)
                self._write(self._out, f"::add-mask::{escape_data(part)}")
                added += 1
        return added

    def verbatim(self, title: str, text: str) -> None:
        """A block of foreign text shown as it is: command processing is stopped around it
        with a token nobody could have put in the text."""
        token = secrets.token_hex(16)
        while token in text:  # pragma: no cover - 128 random bits
            token = secrets.token_hex(16)
        self(title)
        self._write(self._out, f"::stop-commands::{token}")
        for line in text.splitlines():
            self._write(self._out, line)
        self._write(self._out, f"::{token}::")

    @contextmanager
    def guard(self) -> Iterator[None]:
        """While the run lasts, every other writer's lines pass through a filter."""
        with filtering(self._out, self._err, _foreign_line, LINE_ENDS), warnings.catch_warnings():
            warnings.showwarning = self._show_warning
            yield

    def _show_warning(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: IO[str] | None = None,
        line: str | None = None,
    ) -> None:
        self(f"warning: {category.__name__}: {message} ({os.path.basename(filename)}:{lineno})")

    def _command(self, name: str, data: str, **properties: str) -> None:
        props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
        self._write(self._out, f"::{name}{' ' + props if props else ''}::{data}")

    @staticmethod
    def _write(stream: TextIO, line: str) -> None:
        stream.write(line + "\n")
        stream.flush()


def _foreign_line(line: str) -> str:
    """Another writer's line, neutralised and marked ours if the runner would act on it."""
    return PREFIX + inert_line(line) if runner_acts_on(line) else line
