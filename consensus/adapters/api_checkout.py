"""The checkout of a CI job that checks nothing out (GitLab's template: `GIT_STRATEGY: none`):
what app/services.py's `Checkout` reads, through the host's API instead of git."""

from __future__ import annotations

from pathlib import Path

from consensus.adapters.archive_tree import ArchiveTrees
from consensus.ingest.pull_diff import ContentsSource
from consensus.ports import ArchiveReader, Log, PullReader, SourceReader, TreeReader


class ApiCheckout:
    """No checkout at all (a GitLab job with `GIT_STRATEGY: none`): the head's files through
    the API, the two trees from the host's archives of their commits (each read when
    first asked for), and no diff from a workspace, whatever the job's directory holds."""

    def __init__(self, archives: ArchiveReader | None = None, log: Log = lambda line: None):
        self._archives, self._log = archives, log

    def head_source(self, host: PullReader, head_sha: str, workspace: Path) -> SourceReader:
        return ContentsSource(host, head_sha)

    def sections(self, workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
        return None

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        if self._archives is None:
            return None
        return ArchiveTrees(self._archives.archive, base_sha, head_sha, log=self._log)
