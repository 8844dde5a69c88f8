"""A pull request's two trees in memory (the `TreeReader` port), for the verification tools.

Each side is a dict of path → text; a `Link` value is a symlink with its target, as git
keeps one (mode 120000, the target its blob).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consensus.ports import Side


@dataclass(frozen=True)
class Link:
    """A symlink entry: `target` as written, relative to the link's folder or absolute."""

    target: str


Entries = Mapping[str, "str | bytes | Link"]


@dataclass(frozen=True)
class FakeTrees:
    """`head` and `base` entries; `base` defaults to the same as `head`. `reads` counts
    the calls to `read`, to show a tool reads each file once."""

    head: Entries
    base: Entries | None = None
    reads: list[tuple[Side, tuple[str, ...]]] = field(default_factory=list)

    def _side(self, side: Side) -> Entries:
        return self.head if side == "head" or self.base is None else self.base

    def paths(self, side: Side) -> tuple[str, ...]:
        return tuple(sorted(self._side(side)))

    def link_target(self, path: str, side: Side) -> str | None:
        entry = self._side(side).get(path)
        return entry.target if isinstance(entry, Link) else None

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        self.reads.append((side, tuple(paths)))
        entries = self._side(side)
        found: dict[str, bytes] = {}
        for path in paths:
            entry = entries.get(path)
            if isinstance(entry, str):
                found[path] = entry.encode("utf-8")
            elif isinstance(entry, bytes):
                found[path] = entry
        return found
