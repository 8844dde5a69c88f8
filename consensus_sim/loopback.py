"""The loopback server both simulated code hosts stand on: a real HTTP server on 127.0.0.1
at a free port, answering in daemon threads until it is stopped."""

from __future__ import annotations

import io
import tarfile
import threading
from collections.abc import Container
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, TypeVar

S = TypeVar("S", bound="Loopback")


class Loopback:
    """Serves `handler` once `start()`ed (or within `with`), each request handler seeing
    this server as its `server_owner`; `base_url` says where."""

    handler: ClassVar[type[BaseHTTPRequestHandler]]
    base_url: str | None
    _httpd: ThreadingHTTPServer | None = None

    def start(self: S) -> S:
        serving = type("Serving", (self.handler,), {"server_owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), serving)
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


def without_keys(payload: Any, keys: Container[str]) -> Any:
    """`payload` with none of `keys` at any depth: what a host answers, without the
    loopback's own bookkeeping."""
    if isinstance(payload, list):
        return [without_keys(item, keys) for item in payload]
    if isinstance(payload, dict):
        return {k: without_keys(v, keys) for k, v in payload.items() if k not in keys}
    return payload


def tar_gz(top: str, files: dict[str, str]) -> bytes:
    """A commit's files as both hosts' archive endpoints send them: a tar.gz with every file
    under one top folder."""
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for path, text in sorted(files.items()):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size, info.mtime = len(data), 1_700_000_000
            tar.addfile(info, io.BytesIO(data))
    return packed.getvalue()
