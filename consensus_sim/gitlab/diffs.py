"""The loopback GitLab's diffs: a merge request's file diffs as GitLab's API shows them
(hunks only, no `---`/`+++` header), made from two snapshots or from a real git
repository, and the rule GitLab applies to a note's position on them.

The position rule is GitLab's: a line is named by the pair GitLab's diff shows for it
(`new_line` for an added line, `old_line` for a deleted one, both for an unchanged one);
a `line_range` names its two ends by `line_code` (the path's SHA-1 and GitLab's two
counters); a position whose line is not in the diff is refused. Written here from
GitLab's documentation, independently of the adapter's own position builder.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consensus_sim.snapshot_diff import GIT_DIFF, changed_files

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Row:
    """One line of a file's diff: added, deleted or context, with GitLab's counters."""

    kind: str
    old_pos: int
    new_pos: int
    hunk: int

    @property
    def pair(self) -> tuple[int | None, int | None]:
        """(old_line, new_line) as a position names this line."""
        old = None if self.kind == "added" else self.old_pos
        new = None if self.kind == "deleted" else self.new_pos
        return old, new

    def code(self, path: str) -> str:
        return f"{hashlib.sha1(path.encode()).hexdigest()}_{self.old_pos}_{self.new_pos}"


def rows(diff: str) -> list[Row]:
    out: list[Row] = []
    old = new = 0
    hunk = -1
    for text in diff.rstrip("\n").split("\n") if diff else []:
        if match := _HUNK.match(text):
            old, new, hunk = int(match.group(1)), int(match.group(2)), hunk + 1
        elif hunk >= 0 and text.startswith("+"):
            out.append(Row("added", old, new, hunk))
            new += 1
        elif hunk >= 0 and text.startswith("-"):
            out.append(Row("deleted", old, new, hunk))
            old += 1
        elif hunk >= 0 and not text.startswith("\\"):
            out.append(Row("context", old, new, hunk))
            old, new = old + 1, new + 1
    return out


def position_error(position: JsonObject, diffs: list[JsonObject]) -> str | None:
    """Why GitLab would refuse a note at `position` on these diffs; None when it fits."""
    if position.get("position_type") != "text":
        return 'Note {:position=>["is invalid"]} (position_type must be text)'
    new_path, old_path = position.get("new_path"), position.get("old_path")
    item = next((d for d in diffs if d["new_path"] == new_path), None)
    if item is None or (old_path and item["old_path"] != old_path):
        return 'Note {:position=>["is invalid"]} (the file is not in this diff version)'
    lines = rows(item.get("diff") or "")
    pair = (position.get("old_line"), position.get("new_line"))
    end = next((r for r in lines if r.pair == pair), None)
    if end is None:
        return 'Note {:line_code=>["can\'t be blank", "must be a valid line code"]}'
    ranged = position.get("line_range")
    if not ranged:
        return None
    path = str(new_path)
    ends = [
        next((r for r in lines if r.code(path) == _code(ranged, k)), None) for k in ("start", "end")
    ]
    if None in ends or ends[1] != end:
        return 'Note {:line_range=>["must be a valid range of lines of the diff"]}'
    start = ends[0]
    assert start is not None
    if lines.index(start) > lines.index(end):
        return 'Note {:line_range=>["start must come before end"]}'
    return None


def _code(ranged: Any, key: str) -> str:
    part = ranged.get(key) if isinstance(ranged, dict) else None
    return str((part or {}).get("line_code") or "")


def file_diffs(before: dict[str, str], after: dict[str, str]) -> list[JsonObject]:
    """The diffs of every file that differs between two snapshots (path → text)."""
    out = []
    for path, old, new, lines in changed_files(before, after):
        body = "".join(lines)
        out.append(diff_entry(path, path, body, new_file=old is None, deleted_file=new is None))
    return out


def diff_entry(
    old_path: str,
    new_path: str,
    diff: str,
    *,
    new_file: bool = False,
    deleted_file: bool = False,
    too_large: bool = False,
) -> JsonObject:
    """One file of a diff version, as GitLab's API shows it."""
    return {
        "old_path": old_path,
        "new_path": new_path,
        "a_mode": "0" if new_file else "100644",
        "b_mode": "0" if deleted_file else "100644",
        "new_file": new_file,
        "renamed_file": old_path != new_path,
        "deleted_file": deleted_file,
        "generated_file": False,
        "too_large": too_large,
        "collapsed": False,
        "diff": "" if too_large else diff,
    }


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "--literal-pathspecs", "-c", "core.quotePath=false", *args],
        cwd=repo,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8", "replace")


def snapshot(repo: Path, ref: str) -> tuple[str, dict[str, str]]:
    """(commit sha, path → text) of a commit of a real git repository."""
    sha = git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
    files = {}
    for entry in filter(None, git(repo, "ls-tree", "-r", "-z", sha).split("\0")):
        meta, name = entry.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob":
            files[name] = git(repo, "cat-file", "blob", blob)
    return sha, files


def git_diffs(repo: Path, base: str, head: str) -> list[JsonObject]:
    """The diffs GitLab shows for base...head of a real git repository (renames found)."""
    listing = [
        f for f in git(repo, "diff", "--name-status", "-z", "-M", f"{base}...{head}").split("\0")
    ]
    out = []
    index = 0
    while index < len(listing) and listing[index]:
        code = listing[index]
        width = 2 if code[0] in "RC" else 1
        names = listing[index + 1 : index + 1 + width]
        index += 1 + width
        text = git(
            repo,
            *GIT_DIFF,
            f"{base}...{head}",
            "--",
            *names,
        )
        hunks = text[text.find("\n@@") + 1 :] if "\n@@" in text else ""
        out.append(
            diff_entry(
                names[0],
                names[-1],
                hunks,
                new_file=code[0] == "A",
                deleted_file=code[0] == "D",
            )
        )
    return out
