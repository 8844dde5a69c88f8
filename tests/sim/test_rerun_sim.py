"""The re-run simulation (benchmarks/sim/rerun_world.py) on a few PRs: sampling verifiers flip
decisions when asked again, seeds halve that, and carrying the state's decisions flips
nothing and asks nothing."""

from __future__ import annotations

import dataclasses

from benchmarks.sim.quality_world import DEFAULT
from benchmarks.sim.rerun_world import CARRIED, WAYS, simulate


def test_a_carried_rerun_flips_nothing_and_asks_no_model_where_resampling_flips() -> None:
    tallies = simulate(dataclasses.replace(DEFAULT, prs=30))
    resampled, seeded = (tallies[name] for name in WAYS)
    carried = tallies[CARRIED]
    assert carried.decisions > 100
    assert (carried.flipped, carried.prs_flipped, carried.calls) == (0, 0, 0)
    assert resampled.flipped > seeded.flipped > 0  # Anthropic honours no seed: it re-samples
    assert resampled.calls > 0 and max(carried.state_chars) < 24_000
