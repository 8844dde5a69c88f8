"""Counting as litellm does, in 1,024-character slices, each slice tokenized once: the
prompts of one review share most of their slices (a chunk's diff under every persona)."""

from __future__ import annotations

from typing import Any

import pytest

from consensus.adapters import model_map

DIFF = "".join(f"+    total += price_of(item_{i}) * quantity  # line {i}\n" for i in range(400))
PERSONAS = ("Look for bugs.", "Look for security problems.", "Look for slow code.")


class Spy:
    """An encoding that counts words and records what it was asked to encode."""

    name = "spy_base"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, text: str, disallowed_special: Any = ()) -> list[int]:
        self.encoded.append(text)
        return [0] * len(text.split())


def test_a_count_is_the_sum_of_its_slices_counts() -> None:
    spy = Spy()
    text = DIFF + PERSONAS[0]
    pieces = [text[i : i + model_map.CHUNK_CHARS] for i in range(0, len(text), 1024)]
    assert model_map.SliceCounts().count(spy, text) == sum(len(p.split()) for p in pieces)


def test_the_diff_every_persona_is_shown_is_tokenized_once() -> None:
    spy, slices = Spy(), model_map.SliceCounts()
    counts = [slices.count(spy, DIFF + persona) for persona in PERSONAS]
    assert counts == [model_map.SliceCounts().count(Spy(), DIFF + persona) for persona in PERSONAS]
    whole_slices = len(DIFF) // model_map.CHUNK_CHARS
    # Each persona's text adds only the slice where the diff ends and its own words begin.
    assert len(spy.encoded) == whole_slices + len(PERSONAS)


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_map, "MAX_SLICES", 5)
    spy, slices = Spy(), model_map.SliceCounts()
    slices.count(spy, DIFF)
    assert len(slices) <= 5
    assert slices.count(spy, DIFF) == model_map.SliceCounts().count(Spy(), DIFF)


def test_a_hostile_diff_with_a_lone_surrogate_is_still_counted() -> None:
    assert model_map.SliceCounts().count(Spy(), "x = '\ud800' # broken") == 5


def test_counts_agree_with_tiktoken_on_a_real_encoding() -> None:
    encoding = model_map._encoding("cl100k_base")
    text = DIFF * 3
    expected = sum(
        len(encoding.encode(text[i : i + 1024], disallowed_special=()))
        for i in range(0, len(text), 1024)
    )
    slices = model_map.SliceCounts()
    assert slices.count(encoding, text) == expected
    assert slices.count(encoding, text) == expected  # and again, from memory
