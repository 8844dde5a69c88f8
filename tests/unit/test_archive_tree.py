"""A merge request's trees read from GitLab's archives of its two commits, for a job that
checks nothing out: what the judges' tools read there."""

from __future__ import annotations

import gzip
import io
import tarfile

from consensus.adapters.archive_tree import ArchiveTrees, unpack
from consensus.adapters.sources import MAX_FILE_BYTES

BASE, HEAD = "b" * 40, "h" * 40
TOP = f"shop-{HEAD}-{HEAD}"


def archive(files: dict[str, bytes], links: dict[str, str] | None = None, top: str = TOP) -> bytes:
    """A tar.gz as GitLab's /repository/archive.tar.gz answers: one top folder."""
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        folder = tarfile.TarInfo(top)
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        for path, data in files.items():
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for path, target in (links or {}).items():
            info = tarfile.TarInfo(f"{top}/{path}")
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return packed.getvalue()


def test_each_side_is_its_commits_archive_without_the_top_folder_fetched_once() -> None:
    fetched: list[str] = []
    sides = {
        BASE: archive({"shop/cart.py": b"def total(items):\n    return 0\n"}),
        HEAD: archive({"shop/cart.py": b"def total(items):\n    return 1\n", "README.md": b"# s"}),
    }

    def fetch(sha: str) -> bytes | None:
        fetched.append(sha)
        return sides[sha]

    trees = ArchiveTrees(fetch, BASE, HEAD)
    assert fetched == []  # nothing is asked before a judge looks
    assert trees.paths("head") == ("README.md", "shop/cart.py")
    assert trees.read(["shop/cart.py", "missing.py"], "head") == {
        "shop/cart.py": b"def total(items):\n    return 1\n"
    }
    assert trees.read(["shop/cart.py"], "base")["shop/cart.py"].endswith(b"return 0\n")
    trees.paths("head")
    assert fetched == [HEAD, BASE]


def test_a_symlink_is_a_link_and_its_target_is_not_read_as_a_file() -> None:
    trees = ArchiveTrees(
        lambda sha: archive({"a.py": b"x"}, {"b.py": "../../etc/passwd"}), BASE, HEAD
    )
    assert trees.paths("head") == ("a.py", "b.py")
    assert trees.link_target("b.py", "head") == "../../etc/passwd"
    assert trees.link_target("a.py", "head") is None
    assert trees.read(["b.py"], "head") == {}


def test_a_member_that_would_leave_the_tree_and_an_oversized_file_are_left_out() -> None:
    packed = archive({"../escape.py": b"x", "big.bin": b"0" * (MAX_FILE_BYTES + 1), "ok.py": b"y"})
    files, links, problem = unpack(packed)
    assert (sorted(files), links, problem) == (["ok.py"], {}, None)


def test_an_archive_that_is_not_one_reads_as_an_empty_tree_and_says_why() -> None:
    said: list[str] = []
    trees = ArchiveTrees(lambda sha: b"<html>sign in</html>", BASE, HEAD, log=said.append)
    assert trees.paths("head") == ()
    [warning] = said
    assert warning.startswith(f"warning: the head tree ({HEAD[:12]}) is not read: not a tar.gz")


def test_no_archive_from_the_host_reads_as_an_empty_tree() -> None:
    said: list[str] = []
    trees = ArchiveTrees(lambda sha: None, BASE, HEAD, log=said.append)
    assert trees.read(["a.py"], "base") == {} and trees.paths("base") == ()
    assert said and "the host has no archive of it" in said[0]


def test_a_gzip_that_is_cut_short_is_not_read() -> None:
    whole = gzip.compress(b"x" * 10_000)
    assert unpack(whole[: len(whole) // 2])[2] is not None
