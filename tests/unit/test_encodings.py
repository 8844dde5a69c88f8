"""An encoding built from its cached copy counts as tiktoken's own; a bad copy is rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest

from consensus.adapters import encodings, model_map

TEXT = "def total(items):\n    return sum(i.price * i.qty for i in items)  # naïve: no tax ✓\n"


@pytest.fixture(autouse=True)
def litellm_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken reads its rank files from litellm's folder, as the counter sets it up."""
    folder = model_map.litellm_folder()
    assert folder is not None
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder / "litellm_core_utils" / "tokenizers"))


def copies(cache: Path) -> list[Path]:
    return sorted(p for p in cache.iterdir() if p.name.startswith("cl100k_base-tiktoken-"))


def test_the_first_build_leaves_a_copy_and_the_next_counts_the_same_from_it(
    tmp_path: Path,
) -> None:
    built = encodings.load_encoding("cl100k_base", tmp_path)
    [copy] = copies(tmp_path)
    again = encodings.load_encoding("cl100k_base", tmp_path)
    assert again is not built
    assert again.encode(TEXT) == built.encode(TEXT)
    assert again.encode("<|endoftext|>", allowed_special="all") == [100257]
    assert copies(tmp_path) == [copy]


def test_a_damaged_copy_is_ignored_and_written_again(tmp_path: Path) -> None:
    encodings.load_encoding("cl100k_base", tmp_path)
    [copy] = copies(tmp_path)
    copy.write_bytes(b"\x00not marshal data")
    rebuilt = encodings.load_encoding("cl100k_base", tmp_path)
    assert len(rebuilt.encode(TEXT)) > 0
    assert encodings._read(copy) is not None  # written again, whole


def test_a_copy_of_the_wrong_shape_is_not_used(tmp_path: Path) -> None:
    import marshal

    import tiktoken

    name = f"cl100k_base-tiktoken-{tiktoken.__version__}-{encodings.FORMAT}"
    (tmp_path / name).write_bytes(marshal.dumps({"pat_str": 1, "mergeable_ranks": []}))
    assert encodings._read(tmp_path / name) is None
    assert len(encodings.load_encoding("cl100k_base", tmp_path).encode(TEXT)) > 0


def test_without_a_cache_folder_nothing_is_written(tmp_path: Path) -> None:
    encoding = encodings.load_encoding("cl100k_base", None)
    assert len(encoding.encode(TEXT)) > 0
    assert list(tmp_path.iterdir()) == []
