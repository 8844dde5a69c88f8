"""What a code host's refusal means for a read: nothing is there.

Both host adapters read through `or_none` where a status is itself the answer: a 404 (no
such file, user, comment or project), and, for "who is this token", a 401 or 403 too (the
token cannot ask). Every other failure is raised: guessing would turn an outage into an
answer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TypeVar

from consensus.errors import HostError

T = TypeVar("T")

NOT_FOUND = (404,)
TOKEN_CANNOT_ASK = (401, 403, 404)  # "who is this token": an installation or job token


def or_none(read: Callable[[], T], *, absent: Collection[int] = NOT_FOUND) -> T | None:
    """`read()`; None when the host answered with a status in `absent`."""
    try:
        return read()
    except HostError as exc:
        if exc.status in absent:
            return None
        raise
