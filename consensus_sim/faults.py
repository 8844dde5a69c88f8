"""Faults the simulated code hosts inject on request of a test or the demo: the next
requests that match a method and a path are answered with a chosen status instead, or
carried out first and then answered with it (a write that landed, then a 502)."""

from __future__ import annotations

import dataclasses
import re
import threading
from typing import Any


@dataclasses.dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    after: bool = False  # carry the request out first, then answer with the fault


class FaultInjection:
    """The faults a host still has to inject, the first that matches first."""

    def __init__(self) -> None:
        super().__init__()
        self._faults: list[Fault] = []
        self._faults_lock = threading.Lock()

    def fail_next(
        self,
        method: str,
        path: str,
        status: int,
        *,
        headers: dict[str, str] | None = None,
        message: str = "fault",
        times: int = 1,
        after: bool = False,
    ) -> None:
        """The next `times` requests matching `method` and the regex `path` get `status`;
        with `after`, each request is carried out first."""
        with self._faults_lock:
            for _ in range(times):
                body = {"message": message}
                fault = Fault(method, re.compile(path), status, dict(headers or {}), body, after)
                self._faults.append(fault)

    def next_fault(self, method: str, path: str) -> Fault | None:
        """The first fault waiting for this request, taken off the queue."""
        with self._faults_lock:
            for fault in self._faults:
                if fault.method == method and fault.path.search(path):
                    self._faults.remove(fault)
                    return fault
        return None
