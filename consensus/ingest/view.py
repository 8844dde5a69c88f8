"""How a changed file is shown to models: hunks with new-side line numbers.

    ## File: src/app/db.py (modified)
    @@ -40,6 +40,8 @@ def get_user
    40   context line
    41 + added line
       - removed line

git's "\\ No newline at end of file" follows the line it is about, as in git.
The number column is the new-side line a finding must cite; removed lines have none,
so a model cannot anchor a comment on a line that no longer exists. The column is as
wide as the largest number in the file, so every chunk of a file lines up the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, Hunk

NO_NEWLINE = "\\ No newline at end of file"


def render_file(file: ChangedFile, hunk_indexes: Sequence[int] | None = None) -> str:
    """The file's header and the chosen hunks (all by default), one diff line per line."""
    width = len(str(max((_last_new_line(h) for h in file.hunks), default=1)))
    indexes = range(len(file.hunks)) if hunk_indexes is None else hunk_indexes
    parts = [f"## File: {file.path} ({describe_status(file)})"]
    for index in indexes:
        parts.append(render_hunk(file.hunks[index], width))
    if not file.hunks:
        parts.append("(no content changes)")
    return "\n".join(parts) + "\n"


def _last_new_line(hunk: Hunk) -> int:
    """The hunk's largest new-side line number (lines ascend within a hunk), else 1."""
    return next((ln.new_line for ln in reversed(hunk.lines) if ln.new_line is not None), 1)


def describe_status(file: ChangedFile) -> str:
    if file.status is FileStatus.RENAMED:
        return f"renamed from {file.old_path}" if file.old_path else "renamed"
    if file.status is FileStatus.COPIED:
        return f"copied from {file.old_path}" if file.old_path else "copied"
    if file.status is FileStatus.ADDED:
        return "new file"
    return str(file.status.value)


def render_hunk(hunk: Hunk, width: int) -> str:
    header = f"@@ -{hunk.old_start},{hunk.old_length} +{hunk.new_start},{hunk.new_length} @@"
    rows = [f"{header} {hunk.section}" if hunk.section else header]
    blank = " " * width
    for line in hunk.lines:
        number = blank if line.new_line is None else str(line.new_line).rjust(width)
        # Text is kept byte for byte (trailing spaces can be the change); only the
        # padding of an empty line is trimmed.
        rows.append(
            f"{number} {line.kind} {line.text}" if line.text else f"{number} {line.kind}".rstrip()
        )
        if line.no_newline:  # else a change of the final newline shows two equal lines
            rows.append(f"{blank} {NO_NEWLINE}")
    return "\n".join(rows)
