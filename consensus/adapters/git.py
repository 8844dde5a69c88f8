"""The edge that runs git: the diff of a branch, or of the working tree, as GitHub shows it.

git runs as a subprocess without a shell. Everything that user configuration or the
environment could change in the output is pinned (context lines, prefixes, colour,
external diff drivers, textconv, submodule format, quoting of non-ASCII names, blank
context lines, a `diff.relative` subdirectory), so the output is the plain unified diff,
as GitHub shows it, that consensus.ingest.parse parses. The repository and its index are only read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from consensus.errors import DiffError

CONTEXT_LINES = 3  # GitHub's, whatever `diff.context` says
DIFF_OPTIONS = (
    # A latin-1 name stays in git's quoted form ("caf\351.txt") instead of raw bytes.
    "-c",
    "core.quotePath=true",
    "-c",
    "diff.suppressBlankEmpty=false",
    "diff",
    f"-U{CONTEXT_LINES}",
    "--inter-hunk-context=0",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--submodule=short",
    "--ignore-submodules=none",
    "-M",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)
# Environment variables that would change git diff's output behind the options above.
_DIFF_ENV = ("GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF")
_BATCH = 500


def git_diff(repo: Path, base: str, head: str | None) -> bytes:
    """The diff from the merge-base of `base` and `head` to `head`.

    With `head` None, the diff goes to the working tree instead: committed, staged and
    unstaged changes to tracked files, plus untracked files that are not ignored (shown
    as added), all against the merge-base of `base` and HEAD.
    """
    base_commit = _resolve(repo, base, role="base")
    head_commit = _resolve(repo, head or "HEAD", role="head")
    merge_base = _merge_base(repo, base_commit, head_commit, base, head or "HEAD")
    if head is not None:
        # `git diff BASE...HEAD` is exactly this: merge-base to HEAD, as a PR shows it.
        return git(repo, [*DIFF_OPTIONS, merge_base, head_commit, "--"])
    return _working_tree_diff(repo, merge_base)


def default_base(repo: Path) -> str:
    """The branch a pull request would target: origin's default branch, else main/master."""
    try:
        ref = git(repo, ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"])
        if ref.strip():
            return ref.decode("utf-8", errors="replace").strip()
    except DiffError as exc:
        if "not a git repository" in exc.message:
            raise
    for candidate in ("origin/main", "origin/master", "main", "master"):
        try:
            git(repo, ["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"])
        except DiffError:
            continue
        return candidate
    raise DiffError(
        "cannot tell which branch to compare with: no origin/HEAD, main or master",
        fix="pass --base REF, e.g. --base origin/develop",
    )


def read_gitattributes(repo: Path) -> str:
    """The repository's root .gitattributes, or "" when there is none."""
    try:
        return (repo / ".gitattributes").read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return ""


def toplevel(start: Path) -> Path | None:
    """The top directory of the git work tree containing `start`, or None."""
    try:
        out = git(start, ["rev-parse", "--show-toplevel"])
    except DiffError:
        return None
    text = out.decode("utf-8", errors="surrogateescape").strip()
    return Path(text) if text else None


def _working_tree_diff(repo: Path, merge_base: str) -> bytes:
    # Untracked files become visible to `git diff` as intent-to-add entries, added to a
    # copy of the index so the user's own index is never touched.
    untracked = git(repo, ["ls-files", "--others", "--exclude-standard", "-z"])
    with tempfile.TemporaryDirectory(prefix="consensus-index-") as tmp:
        index = Path(tmp) / "index"
        real_index = repo / git(repo, ["rev-parse", "--git-path", "index"]).decode().strip()
        if real_index.is_file():
            shutil.copyfile(real_index, index)
        # Literal pathspecs: an untracked "a[1].txt" must not be read as a glob.
        env = {"GIT_INDEX_FILE": str(index), "GIT_LITERAL_PATHSPECS": "1"}
        names = [name.decode("utf-8", "surrogateescape") for name in untracked.split(b"\0")]
        names = [name for name in names if name]
        for start in range(0, len(names), _BATCH):  # stay under the command-line limit
            git(repo, ["add", "--intent-to-add", "--", *names[start : start + _BATCH]], env=env)
        return git(repo, [*DIFF_OPTIONS, merge_base, "--"], env=env)


def _resolve(repo: Path, ref: str, *, role: str) -> str:
    if not ref or ref.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in ref):
        raise DiffError(
            f"'{ref}' is not a valid git ref for the {role}", fix="pass a branch, tag or commit"
        )
    try:
        # `ref` cannot start with "-" (checked above), so it cannot pass as an option.
        out = git(repo, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"])
    except DiffError as exc:
        if "not a git repository" in exc.message:
            raise
        if ref == "HEAD":
            raise DiffError(
                "HEAD does not name a commit yet", fix="commit something first"
            ) from exc
        remote_ref = ref.removeprefix("origin/")
        raise DiffError(
            f"unknown {role} ref '{ref}': git cannot find that branch, tag or commit",
            fix=f"fetch it first: git fetch origin {remote_ref} (in CI, check out with "
            "fetch-depth: 0), or check the name with: git branch -a",
        ) from exc
    return out.decode().strip()


def _merge_base(repo: Path, base: str, head: str, base_name: str, head_name: str) -> str:
    try:
        return git(repo, ["merge-base", base, head]).decode().strip()
    except DiffError as exc:
        raise DiffError(
            f"'{base_name}' and '{head_name}' have no common ancestor in this clone",
            fix="fetch the full history (git fetch --unshallow, or actions/checkout with "
            "fetch-depth: 0)",
        ) from exc


def _subcommand(args: Sequence[str]) -> str:
    """`diff` of `-c key=value diff …`."""
    for index, arg in enumerate(args):
        if arg != "-c" and (index == 0 or args[index - 1] != "-c"):
            return arg
    return ""


def _clean(environ: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in environ.items() if key not in _DIFF_ENV}


def git(
    cwd: Path,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run git; its stdout, or DiffError carrying git's message and a fix."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            # C locale: git's messages are matched below and shown to users as they are.
            env={**_clean(os.environ), **(env or {}), "LC_ALL": "C"},
            check=False,
        )
    except FileNotFoundError as exc:
        if not cwd.is_dir():
            raise DiffError(f"{cwd} is not a directory", fix="run inside a git repository") from exc
        raise DiffError("git is not installed or not on PATH", fix="install git") from exc
    if done.returncode != 0:
        name = _subcommand(args)
        message = done.stderr.decode("utf-8", errors="replace").strip() or f"git {name} failed"
        if "not a git repository" in message:
            raise DiffError(
                f"{cwd} is not inside a git repository ({message})",
                fix="run inside a git repository, or pass the diff with --diff PATH",
            )
        raise DiffError(f"git {name} failed: {message}")
    return done.stdout
