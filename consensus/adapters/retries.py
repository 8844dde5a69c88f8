"""How a code host's failed requests are retried: the policy and the loop both host
adapters share.

`Retries.send` tries a request until it answers: a failure the host calls transient (no
answer, a 5xx, a rate limit) is tried again after the wait the host asked for, else after
an exponential backoff; a wait longer than `max_wait_s` gives up at once and says so. A
failed write may still have landed: before sending it again, the loop asks `landed`, so
a review or a comment is never posted twice. What each host's failures say (which are
transient, how long to wait, the error left after the retries) is its wire's business
(`HostFailures`: adapters/github_wire.py, adapters/gitlab_wire.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from consensus.errors import ConsensusError

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)
E_contra = TypeVar("E_contra", bound=BaseException, contravariant=True)


class WaitSeconds(Protocol[E_contra]):
    def __call__(self, failure: E_contra, attempt: int, /, *, now: float, base_s: float) -> float:
        """Seconds before try `attempt + 1`: what the host asked for, else exponential."""
        ...


@dataclass(frozen=True)
class HostFailures(Generic[E]):
    """What one host's failed requests say, as the retry loop reads them."""

    host: str  # "GitHub", as the log and the errors name it
    raised: tuple[type[E], ...]  # what a failed request raises; anything else is not retried
    transient: Callable[[E], bool]  # worth another try
    rate_limited: Callable[[E], bool]  # refused before it was carried out: it cannot have landed
    wait: WaitSeconds[E]
    message: Callable[[E], str]  # what the log says of it
    error: Callable[[str, str, E, str], ConsensusError]  # (verb, url, failure, why) after retries


@dataclass(frozen=True)
class Retries:
    """How a failed request is retried: at most `attempts` tries, backing off from
    `backoff_s` (or as Retry-After says), never waiting longer than `max_wait_s` at once."""

    attempts: int = 5
    backoff_s: float = 1.0
    max_wait_s: float = 120.0
    sleep: Callable[[float], None] = time.sleep

    def send(
        self,
        call: Callable[[], T],
        *,
        request: tuple[str, str],
        failures: HostFailures[E],
        log: Callable[[str], None],
        landed: Callable[[], object | None] | None = None,
    ) -> T | None:
        """`call()`'s answer, tried as this policy says; None when a failed write had landed
        after all (`landed` found it) and was not sent again. `request` is (verb, url), for
        the log and the error a request that failed for good raises."""
        verb, url = request
        seen: list[E] = []

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            assert isinstance(exc, failures.raised)
            seen.append(exc)
            seconds = failures.wait(
                exc, state.attempt_number, now=time.time(), base_s=self.backoff_s
            )
            if seconds > self.max_wait_s:
                why = f"{failures.host} asked to wait {seconds:.0f}s"
                raise failures.error(verb, url, exc, why)
            what = failures.message(exc)
            log(f"{failures.host} {verb} {url}: {what}; retrying in {seconds:.0f}s")
            return seconds

        def retried(exc: BaseException) -> bool:
            return isinstance(exc, failures.raised) and failures.transient(exc)

        def landed_before() -> bool:
            # A 5xx on a write may still have landed: look before writing again.
            if landed is None or not seen or failures.rate_limited(seen[-1]):
                return False
            return landed() is not None

        retrying = Retrying(
            retry=retry_if_exception(retried),
            stop=stop_after_attempt(self.attempts),
            wait=wait,
            sleep=self.sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return None if landed_before() else call()
        except failures.raised as exc:
            raise failures.error(verb, url, exc, "") from exc
        raise AssertionError("unreachable")  # pragma: no cover


DEFAULT_RETRIES = Retries()
