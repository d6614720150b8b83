"""Slow and hostile clients (docs/limits.md): a connection that trickles its request
head, stalls in its body, or never reads a large response is closed after the
configured timeout (set small here) while the server keeps serving others; a
connection past --http-max-connections is answered 503 and closed, not left
hanging. Every wait is on observable state: the socket closing, a log line, a
request succeeding."""

import socket

import numpy as np
import pytest

from util import binary_request, single_identity, wait_until

MODEL = "echo"
TIMEOUT_S = 1


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({MODEL: single_identity(MODEL, "FP32", [-1])},
                  extra_args=[f"--http-idle-timeout-secs={TIMEOUT_S}",
                              f"--http-body-timeout-secs={TIMEOUT_S}",
                              f"--http-write-timeout-secs={TIMEOUT_S}"])


def connect(server, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", server.port))
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server has closed: a read sees end of stream or a reset.
    Reads (and discards) what is there; False while the connection stays open."""
    sock.settimeout(0.05)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (socket.timeout, BlockingIOError):
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def served(server) -> bool:
    body, headers = binary_request([("INPUT0", "FP32", np.arange(4, dtype=np.float32))])
    return server.post(f"/v2/models/{MODEL}/infer", data=body, headers=headers).status_code == 200


def test_a_trickled_head_is_cut_off_while_others_are_served(server):
    slow = [connect(server) for _ in range(8)]
    for sock in slow:
        sock.sendall(b"POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\n")
    assert served(server)  # the io threads are not held by the slow ones

    def trickle_until_closed():
        for sock in slow:
            try:
                sock.sendall(b"X")  # one more byte of a header name: never a whole head
            except (BrokenPipeError, ConnectionResetError):
                pass
        return all(closed_by_server(sock) for sock in slow)

    wait_until(trickle_until_closed, what="the trickling connections closed by the server")
    wait_until(lambda: "--http-idle-timeout-secs=1" in server.log(), what="the timeout logged")
    assert served(server)
    for sock in slow:
        sock.close()


def test_an_idle_keep_alive_connection_is_closed(server):
    sock = connect(server)
    sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    reply = wait_until(lambda: sock.recv(4096), what="the health answer")
    assert reply.startswith(b"HTTP/1.1 200"), reply
    wait_until(lambda: closed_by_server(sock), what="the idle connection closed")
    sock.close()


def test_a_stalled_body_is_cut_off(server):
    sock = connect(server)
    sock.sendall(b"POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"inputs\"")
    wait_until(lambda: closed_by_server(sock), what="the stalled body's connection closed")
    wait_until(lambda: "--http-body-timeout-secs=1" in server.log(), what="the timeout logged")
    assert served(server)
    sock.close()


def test_a_client_that_never_reads_its_response_is_closed(server):
    data = np.ones(2 * 1024 * 1024, dtype=np.float32)  # an 8 MiB response, twice the send buffer
    body, headers = binary_request([("INPUT0", "FP32", data)], outputs=["OUTPUT0"])
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sock = connect(server, receive_buffer=4096)
    sock.sendall(f"POST /v2/models/{MODEL}/infer HTTP/1.1\r\nHost: x\r\n{head}"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    # The response cannot fit the socket buffers: the write stalls until the
    # timeout closes the connection.
    wait_until(lambda: "--http-write-timeout-secs=1" in server.log(),
               what="the write timeout logged")
    assert served(server)
    received = 0
    sock.settimeout(10)
    try:
        while chunk := sock.recv(1 << 20):
            received += len(chunk)
    except ConnectionResetError:
        pass
    assert received < len(body), f"the whole {len(body)}-byte response arrived: not cut off"
    sock.close()


def answered_connection(server):
    """A connection the server has answered 200 (a session). The readiness
    probe's connection may still count until the server sees it closed, so a
    503 for the limit is retried on a new connection."""
    def attempt():
        sock = connect(server)
        sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        if wait_until(lambda: sock.recv(4096)).startswith(b"HTTP/1.1 200"):
            return sock
        sock.close()
        return None
    return wait_until(attempt, what="a connection answered 200 within the limit")


def test_connections_past_the_limit_get_503_at_once(inferd):
    server = inferd({MODEL: single_identity(MODEL, "FP32", [-1])},
                    extra_args=["--http-max-connections=2"])
    held = [answered_connection(server) for _ in range(2)]
    extra = connect(server)
    extra.settimeout(10)
    reply = b""
    while chunk := extra.recv(4096):
        reply += chunk
    assert reply.startswith(b"HTTP/1.1 503"), reply
    assert b"--http-max-connections" in reply and b"2 connections" in reply, reply
    extra.close()
    held.pop().close()
    # A slot is free once the server has seen the close.
    wait_until(lambda: served(server), what="a request served after a connection closed",
               ignore=(ConnectionError,))
    for sock in held:
        sock.close()
