"""A loopback HTTP proxy between inferd and an object-store emulator (moto,
fake-gcs-server, Azurite), for every cloud's tests.

It forwards each request unchanged (its Host header too, so that signatures
over it still match) and remembers what it forwarded (method, path with query,
headers), so a test can see what inferd sent: which objects it downloaded
again after a change, which Authorization it carried, how many times it asked
for a path. `fail_next(path, kind, times)` makes the next `times` GETs of a
path (without query) fail as the emulator cannot: "throttle" answers 503 with
S3's SlowDown error, "truncate" sends half the body and closes the connection,
"unauthorized" answers 401 as GCS does for a revoked or expired token,
"corrupt" flips one byte in the middle of the body and keeps every header (the
checksums the store states): damage in transit that only a checksum catches.
`hold(path)` keeps the next GET of a path waiting until `release(path)`
(`holding(path)` tells when it arrived): an object that is still downloading.
One thread per connection (http.server); test use only.
"""

from __future__ import annotations

import http.client
import socket
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW_DOWN = (b"<Error><Code>SlowDown</Code><Message>Please reduce your request "
             b"rate.</Message></Error>")
INVALID_CREDENTIALS = (b'{"error": {"code": 401, "message": "Invalid Credentials", '
                       b'"errors": [{"reason": "authError", "message": "Invalid Credentials"}]}}')


@dataclass
class Seen:
    method: str
    path: str  # with the query
    headers: dict[str, str]


class RecordingProxy:
    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self._lock = threading.Lock()
        self._seen: list[Seen] = []
        self._faults: dict[str, list[str]] = {}
        self._holds: dict[str, threading.Event] = {}
        self._holding: set[str] = set()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _forward(self):
                proxy._forward(self)

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def fail_next(self, path: str, kind: str, times: int = 1) -> None:
        """The next `times` GETs of `path` (no query) fail: "throttle", "truncate",
        "unauthorized", "corrupt"."""
        with self._lock:
            self._faults.setdefault(path, []).extend([kind] * times)

    def hold(self, path: str) -> None:
        """The next GET of `path` (no query) waits until release(path)."""
        with self._lock:
            self._holds[path] = threading.Event()
            self._faults.setdefault(path, []).append("hold")

    def holding(self, path: str) -> bool:
        """A GET of `path` arrived and is held."""
        with self._lock:
            return path in self._holding

    def release(self, path: str) -> None:
        with self._lock:
            self._holds[path].set()

    def seen(self) -> list[Seen]:
        with self._lock:
            return list(self._seen)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

    def gets(self, path: str) -> int:
        """GETs of `path` (without query) since the last clear()."""
        return sum(1 for s in self.seen() if s.method == "GET" and s.path.split("?")[0] == path)

    def object_gets(self) -> int:
        """GETs of objects (listings are GETs of the bucket with a query)."""
        return sum(1 for s in self.seen()
                   if s.method == "GET" and s.path.split("?")[0].count("/") >= 2)

    def _record(self, handler: BaseHTTPRequestHandler) -> str | None:
        """Remembers the request; returns the fault to inject, if any."""
        path = handler.path.split("?")[0]
        with self._lock:
            self._seen.append(Seen(handler.command, handler.path, dict(handler.headers.items())))
            pending = self._faults.get(path, [])
            return pending.pop(0) if pending and handler.command == "GET" else None

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        fault = self._record(handler)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        if fault == "throttle":
            self._reply(handler, 503, {"Content-Type": "application/xml"}, SLOW_DOWN)
            return
        if fault == "unauthorized":
            self._reply(handler, 401, {"Content-Type": "application/json"}, INVALID_CREDENTIALS)
            return
        if fault == "hold":
            path = handler.path.split("?")[0]
            with self._lock:
                self._holding.add(path)
                released = self._holds[path]
            released.wait(timeout=120)  # a failsafe: the test releases it
            with self._lock:
                self._holding.discard(path)
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        upstream.request(handler.command, handler.path, body=body, headers=dict(handler.headers))
        response = upstream.getresponse()
        data = response.read()
        headers = {k: v for k, v in response.getheaders()
                   if k.lower() not in ("content-length", "transfer-encoding", "connection")}
        upstream.close()
        if fault == "truncate" and len(data) > 1:
            self._reply(handler, response.status, headers, data, send=len(data) // 2)
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault == "corrupt" and data:
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1:]
        self._reply(handler, response.status, headers, data,
                    send=0 if handler.command == "HEAD" else len(data))

    @staticmethod
    def _reply(handler, status: int, headers: dict, data: bytes, send: int | None = None) -> None:
        """Answers with Content-Length len(data) and the first `send` bytes of it (all: None)."""
        handler.send_response(status)
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data[:send] if send is not None else data)
        handler.wfile.flush()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def behind_proxy(emulator):
    """(emulator, a RecordingProxy in front of it); both stopped on leaving."""
    proxy = RecordingProxy(emulator.port)
    try:
        yield emulator, proxy
    finally:
        proxy.stop()
        emulator.stop()
