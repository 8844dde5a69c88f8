"""A family asked again about a claim it has judged: what its next answer is worth.

A model asked twice mostly repeats itself (LLM errors are correlated), so a family's later
answers about a claim are not new judges. Each is modelled as its first answer again with
probability ρ, the family's *repeat rate*, else as a fresh answer, drawn as its first one
was, from its verdict rates on real and on false claims:

    P(v_k | v_1, truth) = ρ·[v_k = v_1] + (1 − ρ)·P(v_k | truth)

A later answer's log-likelihood ratio follows:

- one that *differs* from the first can only be fresh: it weighs what a first verdict of
  that family weighs (a family that repeats itself with ρ = 0.8 rarely flips; when it does,
  the claim's truth is in doubt, and the flip says so in full);
- one that *agrees* weighs log((ρ + (1 − ρ)·P(v | real)) / (ρ + (1 − ρ)·P(v | false))):
  nothing when ρ = 1 (a family that always repeats itself says nothing new), a first
  verdict's worth when ρ = 0 (one that never does is a new judge each time).

ρ is estimated with the family's other rates (decide/panel_rates.py): an answer that
agrees is a copy or a fresh answer that happened to agree, in the proportions above; one
that differs is fresh. The fresh share of each answer counts toward the family's verdict
rates too: a fresh answer is one more draw of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Shares = Sequence[float]  # a family's confirmed, refuted, uncertain shares on one class


def repeat_weight(real: Shares, false: Shares, repeat: float, first: int, said: int) -> float:
    """The log-likelihood ratio of answer `said` from a family whose first answer about the
    claim was `first` (indices in VERDICTS order)."""
    if said != first:
        return math.log(real[said] / false[said])
    return math.log((repeat + (1 - repeat) * real[said]) / (repeat + (1 - repeat) * false[said]))


def fresh_share(shares: Shares, repeat: float, first: int, said: int) -> float:
    """The probability that answer `said` was a fresh answer rather than the first one
    repeated, on a claim of the class whose verdict shares are `shares`."""
    if said != first:
        return 1.0
    fresh = (1 - repeat) * shares[said]
    return fresh / (repeat + fresh)


def weights(real: Shares, false: Shares, repeat: float) -> tuple[tuple[float, ...], ...]:
    """Every (first, later) pair's weight, by index: the table the E-step reads."""
    n = len(real)
    return tuple(
        tuple(repeat_weight(real, false, repeat, first, said) for said in range(n))
        for first in range(n)
    )
