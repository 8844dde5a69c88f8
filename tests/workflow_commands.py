"""What a GitHub Actions runner acts on in a step's output, written from GitHub's
documentation of workflow commands ("Workflow commands for GitHub Actions") and the
runner's command parser, to check what consensus prints.

- The runner reads the output line by line; LF, CR and CRLF each end a line.
- `::name k1=v1,k2=v2::data` is a command when the line starts with `::` once leading
  whitespace is trimmed, and a second `::` closes the name and properties. Names are
  case-insensitive; data is unescaped (`%25` → `%`, `%0D` → CR, `%0A` → LF), properties
  also `%3A` → `:` and `%2C` → `,`. Examples: `::error file=app.js,line=1::Missing
  semicolon`, `::warning::…`, `::notice::…`, `::debug::…`, `::group::title`,
  `::endgroup::`, `::add-mask::value`, `::stop-commands::token`, and the deprecated
  `::set-output name=x::v`, `::save-state name=x::v`, `::set-env`, `::add-path`.
- `::stop-commands::TOKEN` stops processing: no line is a command until the line
  `::TOKEN::`, which resumes it.
- The legacy form `##[name k=v;]data` is found anywhere in a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Command:
    name: str  # lower-cased
    data: str
    line: int  # 1-based line of the output
    properties: dict[str, str] = field(default_factory=dict)
    legacy: bool = False


def _unescape(text: str, *, property_value: bool = False) -> str:
    if property_value:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _modern(line: str, number: int) -> Command | None:
    trimmed = line.lstrip()
    if not trimmed.startswith("::"):
        return None
    end = trimmed.find("::", 2)
    if end < 0:
        return None
    info = trimmed[2:end]
    name, _, raw_properties = info.partition(" ")
    if not name:
        return None
    properties = {}
    for pair in filter(None, raw_properties.split(",")):
        key, sep, value = pair.partition("=")
        if sep:
            properties[key] = _unescape(value, property_value=True)
    return Command(name.lower(), _unescape(trimmed[end + 2 :]), number, properties)


def _legacy(line: str, number: int) -> Command | None:
    start = line.find("##[")
    if start < 0:
        return None
    close = line.find("]", start)
    if close < 0:
        return None
    name, _, raw_properties = line[start + 3 : close].partition(" ")
    properties = {}
    for pair in filter(None, raw_properties.split(";")):
        key, sep, value = pair.partition("=")
        if sep:
            properties[key] = _unescape(value)
    return Command(name.lower(), _unescape(line[close + 1 :]), number, properties, legacy=True)


def commands(output: str) -> list[Command]:
    """Every line of `output` the runner would take as a workflow command, in order
    (`stop-commands` and the line that resumes processing included)."""
    found: list[Command] = []
    stopped: str | None = None
    for number, line in enumerate(LINE_END.split(output), 1):
        if stopped is not None:
            if line.strip() == f"::{stopped}::":
                found.append(Command("resume-commands", stopped, number))
                stopped = None
            continue
        command = _modern(line, number) or _legacy(line, number)
        if command is None:
            continue
        found.append(command)
        if command.name == "stop-commands" and command.data:
            stopped = command.data
    return found
