"""Chunking: whole files where they fit, hunks of an oversized file, never truncation."""

from __future__ import annotations

from consensus.ingest.chunking import plan_chunks, render_chunk, split_large_hunks
from consensus.ingest.view import render_file
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word."""
    return len(text.split())


def changed(path: str, hunks: int, lines_per_hunk: int) -> ChangedFile:
    built = []
    for h in range(hunks):
        start = 1 + h * (lines_per_hunk + 10)
        lines = tuple(
            DiffLine(kind="+", text=f"value_{h}_{i} = compute({i})", new_line=start + i)
            for i in range(lines_per_hunk)
        )
        built.append(
            Hunk(
                old_start=start,
                old_length=0,
                new_start=start,
                new_length=lines_per_hunk,
                lines=lines,
            )
        )
    return ChangedFile(
        path=path,
        status=FileStatus.MODIFIED,
        hunks=tuple(built),
        added=hunks * lines_per_hunk,
    )


def test_small_files_share_a_chunk_in_diff_order() -> None:
    files = [changed(f"src/m{i}.py", 1, 5) for i in range(3)]
    [chunk] = plan_chunks(files, budget_tokens=10_000, count=words)
    assert chunk.paths == ("src/m0.py", "src/m1.py", "src/m2.py")
    assert all(part.whole for part in chunk.parts)


def test_files_that_do_not_fit_together_start_a_new_chunk() -> None:
    files = [changed(f"src/m{i}.py", 1, 40) for i in range(3)]
    one = words(render_file(files[0]))
    chunks = plan_chunks(files, budget_tokens=int(one * 1.5), count=words)
    assert [c.paths for c in chunks] == [("src/m0.py",), ("src/m1.py",), ("src/m2.py",)]
    assert all(c.tokens <= one * 1.5 for c in chunks)


def test_an_oversized_file_is_split_between_hunks_and_every_hunk_is_seen_once() -> None:
    big = changed("src/big.py", 6, 30)
    small = changed("src/small.py", 1, 3)
    budget = words(render_file(big, [0, 1])) + 5
    chunks = plan_chunks([small, big], budget_tokens=budget, count=words)
    big_parts = [p for c in chunks for p in c.parts if p.path == "src/big.py"]
    assert all(not p.whole for p in big_parts)
    seen = sorted(h for p in big_parts for h in p.hunks)
    assert seen == list(range(6))
    assert len(big_parts) == 3


def test_a_chunk_renders_only_its_hunks() -> None:
    big = changed("src/big.py", 4, 20)
    diff = ReviewDiff(files=(big,))
    budget = words(render_file(big, [0, 1])) + 5
    first, second = plan_chunks([big], budget_tokens=budget, count=words)
    text = render_chunk(first, diff)
    assert "value_0_0" in text and "value_1_0" in text and "value_2_0" not in text
    assert "value_2_0" in render_chunk(second, diff)


def test_a_huge_hunk_is_cut_into_consecutive_pieces_with_true_line_numbers() -> None:
    huge = changed("src/generated_like.py", 1, 700)
    diff = split_large_hunks(ReviewDiff(files=(huge,)), max_lines=300)
    hunks = diff.files[0].hunks
    assert [len(h.lines) for h in hunks] == [300, 300, 100]
    assert [h.new_start for h in hunks] == [1, 301, 601]
    for hunk in hunks:
        assert hunk.lines[0].new_line == hunk.new_start
    assert diff.files[0].commentable_lines == huge.commentable_lines


def test_files_with_small_hunks_are_left_as_they_are() -> None:
    diff = ReviewDiff(files=(changed("src/a.py", 2, 10),))
    assert split_large_hunks(diff) == diff
