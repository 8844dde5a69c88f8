"""Where saved review workflows live in the summary comment: one section each, between
two hidden markers that name the workflow. Pure text in, text out.

A workflow's run replaces its own section (and the state line) and leaves the rest of the
page as it was; the default review's run renders its page anew and carries every
workflow's section over unchanged. Markers are matched as whole lines only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from consensus.model.host import HostWords
from consensus.publish.state import PublishState, encode_state, state_line_present
from consensus.publish.state_section import command_section
from consensus.publish.thread import SUMMARY_MARKER

_START = re.compile(r"^<!-- consensus:workflow=([a-z0-9][a-z0-9-]{0,39}) -->$")
FOOTER_PREFIX = "<sub>run "  # the default review's last visible line


def start_marker(name: str) -> str:
    return f"<!-- consensus:workflow={name} -->"


def end_marker(name: str) -> str:
    return f"<!-- /consensus:workflow={name} -->"


def workflow_sections(body: str) -> dict[str, list[str]]:
    """name → the lines of its section (markers included), in page order. An opening
    marker without its closing one is not a section."""
    lines = body.replace("\r\n", "\n").split("\n")
    found: dict[str, list[str]] = {}
    index = 0
    while index < len(lines):
        match = _START.match(lines[index].strip())
        if match is not None:
            name = match.group(1)
            end = _find(lines, end_marker(name), index + 1)
            if end is not None:
                found.setdefault(name, lines[index : end + 1])
                index = end + 1
                continue
        index += 1
    return found


def put_section(
    body: str, name: str, section: Sequence[str], state: PublishState, words: HostWords
) -> str:
    """The summary comment `body` with workflow `name`'s section replaced by `section` (or
    added before the default review's footer) and the state line redone. With no summary
    yet (`body` empty), a page that holds the command section and this one section."""
    if not body.strip():
        lines = [
            SUMMARY_MARKER,
            "## consensus review",
            "",
            f"No default review has been published on this {words.short} yet.",
            "",
            *command_section(state, words),
            "",
            *section,
        ]
        return "\n".join([*lines, encode_state(state)])
    lines = body.rstrip("\n").split("\n")
    if state_line_present(body):
        lines = lines[:-1]
    start = _find(lines, start_marker(name), 0)
    end = _find(lines, end_marker(name), start + 1) if start is not None else None
    if start is not None and end is not None:
        lines = [*lines[:start], *section, *lines[end + 1 :]]
    else:
        footer = len(lines) - 1 if lines and lines[-1].startswith(FOOTER_PREFIX) else len(lines)
        lines = [*lines[:footer], *section, "", *lines[footer:]]
    return "\n".join([*lines, encode_state(state)])


def _find(lines: Sequence[str], marker: str, start: int) -> int | None:
    return next((n for n in range(start, len(lines)) if lines[n].strip() == marker), None)
