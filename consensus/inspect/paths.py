"""What a tool may read: a path a model asked for, confined to the checkout's trees.

A model's path is untrusted. Refused, with a `ToolRefusal` the model reads as the tool's
answer: an empty path, an absolute one (`/etc/passwd`, `C:\\x`, `~/x`), any `..` segment
(even one that would stay inside: nothing needs it), a backslash, a control character,
a path inside `.git/` at any depth, a path the configuration does not review (`paths`,
`exclude`: ingest/pathfilter.py's rules), and a symlink whose target leaves the tree or
reaches one of those. A symlink inside the tree is followed (at most `MAX_LINK_HOPS`
links) and the file it names is read; its target is checked like any other path.
"""

from __future__ import annotations

import posixpath

from consensus.inspect.snapshot import PathPolicy, Snapshot
from consensus.ports import Side

MAX_PATH_CHARS = 1_000
MAX_LINK_HOPS = 8


class ToolRefusal(Exception):
    """A call the tool refuses: its message is what the model is told."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def confine(snapshot: Snapshot, path: str, side: Side = "head") -> str:
    """The tree's own name for `path` (normalised, a symlink followed), or ToolRefusal."""
    name = normalised(path)
    refuse_by_name(snapshot.policy, name, asked=path)
    for _ in range(MAX_LINK_HOPS):
        target = snapshot.trees.link_target(name, side)
        if target is None:
            return name
        name = _followed(name, target, asked=path)
        refuse_by_name(snapshot.policy, name, asked=path)
    raise ToolRefusal(f"refused {path!r}: more than {MAX_LINK_HOPS} symlinks in a row")


def readable(snapshot: Snapshot, path: str, side: Side = "head") -> str | None:
    """`confine` without the refusal: the name to read, or None (for tools that walk the
    tree and leave out what they may not show)."""
    try:
        return confine(snapshot, path, side)
    except ToolRefusal:
        return None


def normalised(path: str) -> str:
    """`path` as the tree lists it (`./a//b` → `a/b`), or ToolRefusal for a path that is
    empty, absolute, too long, holds control characters or a `..` segment."""
    if not isinstance(path, str) or not path.strip():
        raise ToolRefusal("refused: the path is empty; give a path relative to the repository")
    if len(path) > MAX_PATH_CHARS:
        raise ToolRefusal(f"refused: the path is over {MAX_PATH_CHARS} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in path):
        raise ToolRefusal(f"refused {path!r}: the path holds control characters")
    if path.startswith(("/", "\\", "~")) or (len(path) > 1 and path[1] == ":"):
        raise ToolRefusal(
            f"refused {path!r}: absolute paths are not read; give a path relative to the "
            "repository, e.g. src/app.py"
        )
    if "\\" in path:
        raise ToolRefusal(f"refused {path!r}: write paths with '/', not '\\'")
    segments = [s for s in path.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ToolRefusal(f"refused {path!r}: '..' is not allowed; name the file from the root")
    if not segments:
        raise ToolRefusal(f"refused {path!r}: that is the repository's root, not a file")
    return "/".join(segments)


def refuse_by_name(policy: PathPolicy, name: str, *, asked: str) -> None:
    """ToolRefusal for a name inside `.git/` or one the configuration does not review."""
    if any(segment.lower() == ".git" for segment in name.split("/")):
        raise ToolRefusal(f"refused {asked!r}: git's own files (.git/) are not read")
    if not policy.includes.matches(name):
        raise ToolRefusal(f"refused {asked!r}: the configuration's `paths` does not select it")
    if policy.exclude and policy.excludes.matches(name):
        raise ToolRefusal(f"refused {asked!r}: the configuration's `exclude` excludes it")


def _followed(link: str, target: str, *, asked: str) -> str:
    """The tree path a symlink at `link` names, or ToolRefusal when it leaves the tree."""
    if not target or target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        raise ToolRefusal(f"refused {asked!r}: it is a symlink to {target!r}, outside the tree")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    if joined == ".." or joined.startswith("../") or joined in (".", ""):
        raise ToolRefusal(f"refused {asked!r}: it is a symlink to {target!r}, outside the tree")
    return joined
