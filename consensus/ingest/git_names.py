"""File names as git writes them in a diff: C-quoted when unusual, split by git's own rules."""

from __future__ import annotations

import re

# git's prefixes: a/ b/, the mnemonic c/ i/ o/ w/, and 1/ 2/ of --no-index.
SIDE_PREFIX = re.compile(r"^[abciow12]/")


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


_C_QUOTES = {value: key for key, value in _C_ESCAPES.items()}


def quote_path(name: str) -> str:
    """A name as git writes it in a header: C-quoted when it holds a quote, a backslash,
    a control character or a leading/trailing space; as it is otherwise."""
    if not any(c in name for c in '"\\') and name == name.strip() and name.isprintable():
        return name
    out = []
    for byte in name.encode("utf-8", errors="surrogateescape"):
        if byte in _C_QUOTES:
            out.append("\\" + _C_QUOTES[byte])
        elif byte < 0x20 or byte == 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte) if byte < 0x80 else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_string(text: str, start: int) -> tuple[str, int] | None:
    """The C-quoted string opening at text[start] ('"'), unquoted, and the index after
    its closing quote; None when it does not close. Bytes that are not UTF-8 are kept as
    surrogates (surrogateescape), so the exact name can be written back."""
    out = bytearray()
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return out.decode("utf-8", errors="surrogateescape"), i + 1
        if char == "\\" and i + 1 < len(text):
            octal = text[i + 1 : i + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8) & 0xFF)
                i += 4
                continue
            if text[i + 1] not in _C_ESCAPES:
                return None
            out.append(_C_ESCAPES[text[i + 1]])
            i += 2
            continue
        out.extend(char.encode("utf-8", errors="replace"))
        i += 1
    return None


def field_name(value: str) -> str | None:
    """The name of a `---`/`+++` (or rename/copy) line: C-quoted, or up to a tab (which
    starts a timestamp in `diff -u` and ends a name with a space in git)."""
    if value.startswith('"'):
        quoted = c_string(value, 0)
        if quoted is not None:
            return quoted[0]
    name = value.split("\t", 1)[0]
    return name or None


def header_names(rest: str) -> tuple[str | None, str | None]:
    """The two names of a `diff --git` line, as git apply reads them: quoted names are
    exact; unquoted ones are split where both halves name the same file past their first
    component (None, None when no split does, e.g. an unquoted rename)."""
    if rest.startswith('"'):
        first = c_string(rest, 0)
        if first is None or first[1] >= len(rest) or rest[first[1]] != " ":
            return None, None
        second = rest[first[1] + 1 :]
        if second.startswith('"'):
            quoted = c_string(second, 0)
            return first[0], quoted[0] if quoted else None
        return first[0], second
    if rest.endswith('"'):
        for i in range(1, len(rest)):
            if rest[i] == '"' and rest[i - 1] == " ":
                quoted = c_string(rest, i)
                if quoted is not None and quoted[1] == len(rest):
                    return rest[: i - 1], quoted[0]
    for i, char in enumerate(rest):
        if char != " ":
            continue
        left, right = rest[:i], rest[i + 1 :]
        if left and (left == right or (tail_name(left) and tail_name(left) == tail_name(right))):
            return left, right
    return None, None


def tail_name(name: str) -> str:
    return name.split("/", 1)[1] if "/" in name else ""


def display_name(name: str) -> str:
    """A name for the report: UTF-8 as it is; other bytes in git's quoted form, which is
    what `git diff` shows for it (a latin-1 name must not turn into U+FFFD)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return quote_path(name)
    return name
