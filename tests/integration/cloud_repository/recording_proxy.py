"""A loopback HTTP proxy between inferd and an object-store emulator.

It forwards every request unchanged and remembers what it forwarded (method,
path with query, headers), so a test can see what inferd sent: which objects it
downloaded again after a change, which Authorization it carried. It can also
answer a path's next requests itself with a given status (throttling) before
forwarding again. One thread per connection (http.server); test use only.
"""

from __future__ import annotations

import http.client
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
        self._refusals: dict[str, list[int]] = {}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status = proxy._record(self.command, self.path, dict(self.headers.items()))
                if status is not None:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _record(self, method: str, path: str, headers: dict[str, str]) -> int | None:
        with self._lock:
            self._seen.append(Seen(method, path, headers))
            for fragment, statuses in self._refusals.items():
                if fragment in path and statuses:
                    return statuses.pop(0)
        return None

    def refuse(self, path_fragment: str, statuses: list[int]) -> None:
        """The next len(statuses) requests whose path holds `path_fragment` get those statuses."""
        with self._lock:
            self._refusals[path_fragment] = list(statuses)

    def seen(self) -> list[Seen]:
        with self._lock:
            return list(self._seen)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

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
