"""The loopback server both simulated code hosts stand on: a real HTTP server on 127.0.0.1
at a free port, answering in daemon threads until it is stopped."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

S = TypeVar("S", bound="Loopback")


class Loopback:
    """Serves `handler()` once `start()`ed (or within `with`); `base_url` says where."""

    base_url: str | None
    _httpd: ThreadingHTTPServer | None = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler, bound to this server's state."""
        raise NotImplementedError

    def start(self: S) -> S:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},  # stop() waits up to this long
            daemon=True,
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
