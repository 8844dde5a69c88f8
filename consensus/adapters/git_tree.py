"""A pull request's two trees read from git's objects (the `TreeReader` port): what the
verification tools read, never the work tree, which may hold anything.

`git ls-tree -r -z --full-tree` lists a commit's entries once per side (mode, type, object,
path; a symlink is mode 120000, its blob the target); `git cat-file --batch` reads any
number of blobs in one process. Submodules (mode 160000) are no files and are left out.
A blob over `MAX_FILE_BYTES` is left out too, as the head reader of the code around a
finding leaves it (adapters/sources.py).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from consensus.adapters.git import git
from consensus.adapters.sources import MAX_FILE_BYTES
from consensus.errors import DiffError
from consensus.ports import Side

LINK_MODE = "120000"
FILE_MODES = ("100644", "100755", LINK_MODE)


class _Entry(NamedTuple):
    mode: str
    sha: str
    size: int


class GitTrees:
    """The base and head trees of one checkout, by commit (any name git resolves)."""

    def __init__(self, repo: Path, base: str, head: str) -> None:
        self._repo = repo
        self._commits: dict[Side, str] = {"base": base, "head": head}
        self._entries: dict[Side, dict[str, _Entry]] = {}
        self._links: dict[tuple[Side, str], str] = {}

    def paths(self, side: Side) -> tuple[str, ...]:
        return tuple(sorted(self._tree(side)))

    def link_target(self, path: str, side: Side) -> str | None:
        entry = self._tree(side).get(path)
        if entry is None or entry.mode != LINK_MODE:
            return None
        key = (side, path)
        if key not in self._links:
            blob = self._blobs([entry.sha]).get(entry.sha, b"")
            self._links[key] = blob.decode("utf-8", errors="surrogateescape")
        return self._links[key]

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        tree = self._tree(side)
        wanted = {
            path: entry
            for path in paths
            if (entry := tree.get(path)) is not None
            and entry.mode != LINK_MODE
            and entry.size <= MAX_FILE_BYTES
        }
        blobs = self._blobs(sorted({entry.sha for entry in wanted.values()}))
        return {path: blobs[entry.sha] for path, entry in wanted.items() if entry.sha in blobs}

    def _tree(self, side: Side) -> dict[str, _Entry]:
        if side not in self._entries:
            self._entries[side] = _list_tree(self._repo, self._commits[side])
        return self._entries[side]

    def _blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        if not shas:
            return {}
        out = _run_batch(self._repo, shas)
        return _parse_batch(out)


def _list_tree(repo: Path, commit: str) -> dict[str, _Entry]:
    if not commit or commit.startswith("-"):
        raise DiffError(f"'{commit}' is not a commit to read a tree from")
    listing = git(repo, ["ls-tree", "-r", "-z", "--long", "--full-tree", f"{commit}^{{commit}}"])
    entries: dict[str, _Entry] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        if kind != "blob" or mode not in FILE_MODES:
            continue  # a submodule's commit, or an unknown mode
        path = raw_path.decode("utf-8", errors="surrogateescape")
        entries[path] = _Entry(mode, sha, int(size) if size.isdigit() else 0)
    return entries


def _run_batch(repo: Path, shas: Sequence[str]) -> bytes:
    done = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=repo,
        input="".join(f"{sha}\n" for sha in shas).encode("ascii"),
        capture_output=True,
        env={**os.environ, "LC_ALL": "C"},  # git() takes no stdin; --batch reads it
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip()
        raise DiffError(f"git cat-file failed: {message or 'no message'}")
    return done.stdout


def _parse_batch(out: bytes) -> dict[str, bytes]:
    """`<sha> blob <size>\\n<bytes>\\n` per object; `<sha> missing\\n` for none."""
    blobs: dict[str, bytes] = {}
    position = 0
    while position < len(out):
        end = out.index(b"\n", position)
        header = out[position:end].decode("ascii").split()
        position = end + 1
        if len(header) != 3:
            continue  # `<sha> missing`
        sha, _, size = header
        blobs[sha] = out[position : position + int(size)]
        position += int(size) + 1
    return blobs
