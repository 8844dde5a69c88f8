"""A pull request's two trees read from the host's archives of its commits (the `TreeReader`
port), where no checkout holds the commits (GitLab's template checks nothing out; GitHub's
default checkout holds one commit).

Each side is one request (`fetch`: an adapter's `archive`, GitLab's archive or GitHub's
tarball, at most `MAX_ARCHIVE_BYTES`), made when that side is first asked for (the journal
lists the head's as the run starts; the base's waits for a judge), then read in memory:
nothing is extracted to disk, so no member's path or link can reach outside. The archive's
one top folder (GitLab's `<project>-<sha>-<sha>/`, GitHub's `<owner>-<name>-<sha>/`) is
left off every path. A file over `MAX_FILE_BYTES` is left out,
as the git trees leave it (adapters/git_tree.py); an archive over `MAX_TREE_BYTES`
uncompressed or `MAX_MEMBERS` entries, or one that is not a tar.gz, reads as an empty tree,
and the log says why: the judges then vote on what their question shows.
"""

from __future__ import annotations

import io
import tarfile
import zlib
from collections.abc import Callable, Sequence

from consensus.adapters.sources import MAX_FILE_BYTES
from consensus.ports import Side

MAX_ARCHIVE_BYTES = 64_000_000  # compressed: what an adapter downloads of one side
MAX_TREE_BYTES = 256_000_000
MAX_MEMBERS = 100_000


class ArchiveTrees:
    """The base and head trees of a pull request, from `fetch(sha)` (a tar.gz, or None)."""

    def __init__(
        self,
        fetch: Callable[[str], bytes | None],
        base: str,
        head: str,
        *,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self._fetch = fetch
        self._commits: dict[Side, str] = {"base": base, "head": head}
        self._log = log
        self._files: dict[Side, dict[str, bytes]] = {}
        self._links: dict[Side, dict[str, str]] = {}

    def paths(self, side: Side) -> tuple[str, ...]:
        self._load(side)
        return tuple(sorted({*self._files[side], *self._links[side]}))

    def link_target(self, path: str, side: Side) -> str | None:
        self._load(side)
        return self._links[side].get(path)

    def read(self, paths: Sequence[str], side: Side) -> dict[str, bytes]:
        self._load(side)
        files = self._files[side]
        return {path: files[path] for path in paths if path in files}

    def _load(self, side: Side) -> None:
        if side in self._files:
            return
        sha = self._commits[side]
        files, links, problem = unpack(self._fetch(sha))
        if problem:
            self._log(f"warning: the {side} tree ({sha[:12]}) is not read: {problem}")
        self._files[side], self._links[side] = files, links


def unpack(packed: bytes | None) -> tuple[dict[str, bytes], dict[str, str], str | None]:
    """A tar.gz's files and symlinks by path (its top folder left off), and the problem
    that left it unread, if one did."""
    if packed is None:
        return {}, {}, "the host has no archive of it, or it is over the size read"
    try:
        raw = _gunzip(packed)
    except (zlib.error, EOFError, ValueError) as exc:
        return {}, {}, f"not a tar.gz archive ({exc})"
    if raw is None:
        return {}, {}, f"over {MAX_TREE_BYTES:,} bytes unpacked"
    files: dict[str, bytes] = {}
    links: dict[str, str] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_MEMBERS:
                    return {}, {}, f"over {MAX_MEMBERS:,} entries"
                path = _inside(member.name)
                if path is None:
                    continue
                if member.issym():
                    links[path] = member.linkname
                elif member.isfile() and member.size <= MAX_FILE_BYTES:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        files[path] = handle.read()
    except tarfile.TarError as exc:
        return {}, {}, f"not a tar archive ({exc})"
    return files, links, None


def _gunzip(packed: bytes) -> bytes | None:
    """The archive unpacked, None past MAX_TREE_BYTES (never more than that in memory)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = inflate.decompress(packed, MAX_TREE_BYTES + 1)
    if len(out) > MAX_TREE_BYTES or inflate.unconsumed_tail:
        return None
    if not inflate.eof:
        raise EOFError("the archive ends before its end")
    return out


def _inside(name: str) -> str | None:
    """A member's path under the archive's top folder; None for the folder itself, or a
    path that would leave the tree."""
    parts = name.replace("\\", "/").split("/")
    inner = [part for part in parts[1:] if part not in ("", ".")]
    if not inner or ".." in inner or name.startswith("/"):
        return None
    return "/".join(inner)
