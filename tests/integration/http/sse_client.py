"""A raw HTTP/1.1 client that reads responses as they come: a status line
and headers, a whole body, or a chunked Server-Sent Events body event by
event, so a test of /generate_stream sees events as a client does, before
the stream ends (tritonclient has no generate client)."""

from __future__ import annotations

import json
import socket

from util import REQUEST_TIMEOUT_S


class Connection:
    """One keep-alive connection. `request` sends; `response_head` reads the
    status line and headers; `body` reads a whole body, `events` reads a
    chunked SSE body event by event."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=REQUEST_TIMEOUT_S)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def request(self, path: str, body, method: str = "POST", version: str = "1.1") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/{version}\r\nHost: 127.0.0.1\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.sock.sendall(head.encode() + data)

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            assert self._fill(), f"connection closed before {marker!r}; have {self.buffer[:200]!r}"
        line, self.buffer = self.buffer.split(marker, 1)
        return line

    def _read_exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            assert self._fill(), "connection closed inside a body"
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def response_head(self) -> tuple[int, dict]:
        lines = self._read_until(b"\r\n\r\n").decode().split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
        return status, headers

    def chunk(self) -> bytes | None:
        """The next chunk's data; None after the last (empty) chunk."""
        size = int(self._read_until(b"\r\n"), 16)
        if size == 0:
            assert self._read_until(b"\r\n") == b"", "trailers after the last chunk"
            return None
        data = self._read_exactly(size)
        assert self._read_exactly(2) == b"\r\n", "chunk not followed by CRLF"
        return data

    def events(self):
        """Yields each event's JSON as it arrives, until the stream ends."""
        pending = b""
        while (data := self.chunk()) is not None:
            pending += data
            while b"\n\n" in pending:
                event, pending = pending.split(b"\n\n", 1)
                assert event.startswith(b"data: "), f"not a data event: {event!r}"
                assert b"\n" not in event, f"an event of several lines: {event!r}"
                yield json.loads(event[len(b"data: "):])
        assert pending == b"", f"bytes after the last event: {pending!r}"

    def body(self, headers: dict) -> bytes:
        if "content-length" in headers:
            return self._read_exactly(int(headers["content-length"]))
        assert headers.get("transfer-encoding") == "chunked", headers
        out = b""
        while (data := self.chunk()) is not None:
            out += data
        return out

    def exchange(self, path: str, body, method: str = "POST") -> tuple[int, dict, bytes]:
        self.request(path, body, method)
        status, headers = self.response_head()
        return status, headers, self.body(headers)
