"""Where the head version of a file is read from, for the code around a finding (an edge).

`WorkingTree` reads files as they are on disk (a review without --head); `GitRevision`
reads them from a commit (`git show REV:path`). Both refuse paths that leave the
repository: the path comes from a model's finding, which is untrusted.
"""

from __future__ import annotations

from pathlib import Path

from consensus.adapters.git import git
from consensus.errors import DiffError

MAX_FILE_BYTES = 2_000_000


class WorkingTree:
    def __init__(self, root: Path) -> None:
        self._root = root.resolve()

    def read(self, path: str) -> str | None:
        target = (self._root / path).resolve()
        if not target.is_relative_to(self._root) or not target.is_file():
            return None
        if target.stat().st_size > MAX_FILE_BYTES:
            return None
        return target.read_bytes().decode("utf-8", errors="replace")


class GitRevision:
    def __init__(self, root: Path, revision: str) -> None:
        self._root = root
        self._revision = revision

    def read(self, path: str) -> str | None:
        if path.startswith(("/", "-")) or ".." in Path(path).parts:
            return None
        try:
            data = git(self._root, ["show", f"{self._revision}:{path}"])
        except DiffError:
            return None
        return None if len(data) > MAX_FILE_BYTES else data.decode("utf-8", errors="replace")
