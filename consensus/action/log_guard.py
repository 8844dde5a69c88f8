"""What the two CI faces' logs share: every other writer's lines filtered while a run
lasts, and a run whose error or crash is reported through the same log.

A runner acts on what a job prints (GitHub's workflow commands; GitLab's sections and
escape sequences). Each log says what makes a line safe for its runner (action/log.py,
action/gitlab_log.py); `filtering` puts that filter on `sys.stdout` and `sys.stderr` for
everything else that writes there: a library's logger, a traceback quoting foreign text.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol, TextIO

from consensus.errors import ConsensusError

CRASH_EXIT_CODE = 1  # what Python exits with on an uncaught exception


class GuardingLog(Protocol):
    def __call__(self, line: str) -> None: ...

    def guard(self) -> AbstractContextManager[None]: ...


def guarded(log: GuardingLog, step: Callable[[], int]) -> int:
    """`step` with every line printed guarded; its error or crash reported the same way.
    The exit code."""
    with log.guard():
        try:
            return step()
        except ConsensusError as exc:
            log(f"error: {exc}")
            return exc.exit_code
        except Exception:  # a crash's traceback quotes foreign text too: print it guarded
            traceback.print_exc()
            return CRASH_EXIT_CODE


@contextmanager
def filtering(
    out: TextIO, err: TextIO, safe: Callable[[str], str], ends: re.Pattern[str]
) -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` pass whole lines on to `out` and `err`, each as `safe`
    makes it, until the block ends (`ends`: what ends a line for the runner)."""
    before = sys.stdout, sys.stderr
    filtered_out, filtered_err = LineFilter(out, safe, ends), LineFilter(err, safe, ends)
    sys.stdout, sys.stderr = filtered_out, filtered_err
    try:
        yield
    finally:
        filtered_out.flush()
        filtered_err.flush()
        sys.stdout, sys.stderr = before


class LineFilter:
    """A text stream that passes whole lines on to `target`, each as `safe` makes it; a
    line still open is passed on when flushed."""

    def __init__(self, target: TextIO, safe: Callable[[str], str], ends: re.Pattern[str]) -> None:
        self._target = target
        self._safe = safe
        self._ends = ends
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._ends.split(self._pending)
        for line in lines:
            self._target.write(self._safe(line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._target.write(self._safe(self._pending) + "\n")
            self._pending = ""
        self._target.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:
        return getattr(self._target, "encoding", None) or "utf-8"

    def fileno(self) -> int:
        return self._target.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)
