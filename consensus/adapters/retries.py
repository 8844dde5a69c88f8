"""How a code host's failed requests are retried: the policy both host adapters share."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Retries:
    """How a failed request is retried: at most `attempts` tries, backing off from
    `backoff_s` (or as Retry-After says), never waiting longer than `max_wait_s` at once."""

    attempts: int = 5
    backoff_s: float = 1.0
    max_wait_s: float = 120.0
    sleep: Callable[[float], None] = time.sleep


DEFAULT_RETRIES = Retries()
