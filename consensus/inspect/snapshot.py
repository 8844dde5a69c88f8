"""The pull request's trees as the tools see them: each file read once, decoded, redacted.

Every line a tool shows, searches or quotes comes from here, so it is redacted as the
prompt is (`redactor`: ingest/redact.py's line-preserving replacement, with the
repository's `redact:` patterns): a search cannot match what redaction hides, and a
citation is checked against the text the judge was shown. Lines are numbered as git
numbers them (`split_lines`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from consensus.ingest.pathfilter import PathRules
from consensus.ingest.redact import redact_text
from consensus.ports import Side, TreeReader

Redactor = Callable[[str], str]  # a file's text → the same lines, secrets replaced
BINARY_PROBE = 8_000  # bytes looked at for a NUL, as git decides a file is binary


def redactor(patterns: Sequence[str] = ()) -> Redactor:
    """The prompt's redaction: the built-in rules and the repository's `redact:` patterns."""
    extra = tuple(patterns)
    return lambda text: redact_text(text, extra)[0] if text else text


def split_lines(text: str) -> list[str]:
    """The lines of a file as git numbers them: split at "\\n" only (not at a form feed,
    a vertical tab, a lone CR or U+2028, as `str.splitlines` does), a CR before the "\\n"
    dropped, and no empty line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


class RedactedTrees:
    """A TreeReader whose text files come back with secrets replaced, as the prompt's are,
    and whose binary files come back as a bare NUL (no tool shows one): nothing the run
    journal keeps of the trees ever holds a secret (as ingest/redact.RedactedSource for the
    head's files). Grounding reads every head file a finding is on through it, and the
    judges' tools whatever they ask for."""

    def __init__(self, inner: TreeReader, patterns: Sequence[str]) -> None:
        self._inner = inner
        self._patterns = tuple(patterns)

    def paths(self, side: Side) -> tuple[str, ...]:
        return self._inner.paths(side)

    def link_target(self, path: str, side: Side) -> str | None:
        return self._inner.link_target(path, side)

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        return {path: self._redacted(blob) for path, blob in self._inner.read(paths, side).items()}

    def _redacted(self, blob: bytes) -> bytes:
        if b"\0" in blob[:BINARY_PROBE]:
            return b"\0"
        text = blob.decode("utf-8", errors="replace")  # as the snapshot decodes it
        return redact_text(text, self._patterns)[0].encode("utf-8")


@dataclass(frozen=True)
class PathPolicy:
    """What the configuration lets a tool read: `paths` and `exclude`, as ingest reads
    them (ingest/pathfilter.py)."""

    include: tuple[str, ...] = ("**",)
    exclude: tuple[str, ...] = ()

    @functools.cached_property
    def includes(self) -> PathRules:
        include = self.include or ("**",)
        if all(pattern.startswith("!") for pattern in include):
            include = ("**", *include)  # as ingest reads a `paths` of exceptions only
        return PathRules(include)

    @functools.cached_property
    def excludes(self) -> PathRules:
        return PathRules(self.exclude)


class Snapshot:
    """The trees behind `TreeReader`, with what was read of them kept for the claim's
    conversation (a file is read and redacted once, however many tools ask)."""

    def __init__(
        self, trees: TreeReader, redact: Redactor, policy: PathPolicy | None = None
    ) -> None:
        self.trees = trees
        self.policy = policy or PathPolicy()
        self._redact = redact
        self._paths: dict[Side, tuple[str, ...]] = {}
        self._listed: dict[Side, frozenset[str]] = {}
        self._blobs: dict[tuple[Side, str], bytes | None] = {}
        self._lines: dict[tuple[Side, str], list[str] | None] = {}
        self._texts: dict[tuple[Side, str], str] = {}

    def paths(self, side: Side) -> tuple[str, ...]:
        """Every file and symlink at `side`, sorted."""
        if side not in self._paths:
            self._paths[side] = self.trees.paths(side)
            self._listed[side] = frozenset(self._paths[side])
        return self._paths[side]

    def exists(self, path: str, side: Side) -> bool:
        self.paths(side)
        return path in self._listed[side]

    def lines(self, path: str, side: Side) -> list[str] | None:
        """The redacted lines of a text file; None when it is not there, too large or
        binary. The caller has confined `path` (inspect/paths.py)."""
        key = (side, path)
        if key not in self._lines:
            self.prefetch([path], side)
            self._lines[key] = self._decoded(key, self._blobs[key])
        return self._lines[key]

    def prefetch(self, paths: Iterable[str], side: Side) -> None:
        """Read the files among `paths` not read yet, in one pass over the trees (they
        are decoded and redacted when first shown)."""
        wanted = [p for p in dict.fromkeys(paths) if (side, p) not in self._blobs]
        if not wanted:
            return
        blobs = self.trees.read(wanted, side)
        for path in wanted:
            self._blobs[(side, path)] = blobs.get(path)

    def text(self, path: str, side: Side) -> str | None:
        """The redacted lines joined by "\\n" (what a parser or a search reads)."""
        lines = self.lines(path, side)
        return None if lines is None else self._texts[(side, path)]

    def may_mention(self, path: str, side: Side, word: str) -> bool:
        """False when the file cannot hold `word` once redacted: its bytes as committed do
        not hold it (redaction only takes text away, and a name is never a placeholder).
        Spares redacting every file of the tree to look a name up."""
        key = (side, path)
        if key not in self._blobs:
            self.prefetch([path], side)
        blob = self._blobs[key]
        return blob is not None and word.encode("utf-8") in blob

    def _decoded(self, key: tuple[Side, str], blob: bytes | None) -> list[str] | None:
        if blob is None or b"\0" in blob[:BINARY_PROBE]:
            return None
        lines = split_lines(self._redact(blob.decode("utf-8", errors="replace")))
        self._texts[key] = "\n".join(lines)
        return lines
