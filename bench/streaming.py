"""Section 5 of bench.py: a decoupled model streaming 100 small responses.

The `repeat` backend answers a request of 100 INT32 values with 100 responses
(one value each, no delay) and then FINAL. A Python client sends one request at
a time, over gRPC ModelStreamInfer (tritonclient) and over HTTP generate_stream
(Server-Sent Events, read from a raw socket), and times:

- time to first response: request sent -> first response parsed;
- per-response overhead: (last response - first response) / 99.

Next to them, the same client's unary round trip to the identity model over
the same protocol: streaming is worth it when a response costs less than a
request. The client is Python, so its own parsing is in every figure.
"""
import json
import os
import queue
import socket
import statistics
import tempfile
import time

RESPONSES = 100
ROUNDS = 30

REPEAT_CONFIG = """name: "stream"
backend: "repeat"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
         { name: "IDX" data_type: TYPE_INT32 dims: [ 1 ] } ]
"""

IDENTITY_CONFIG = """name: "unary"
backend: "identity"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 1 ] } ]
"""


def _us(seconds):
    return f"{seconds * 1e6:8.0f} us"


def _report(name, firsts, gaps, unary):
    first = statistics.median(firsts)
    gap = statistics.median(gaps)
    one = statistics.median(unary)
    print(f"   {name:5s} time to first response {_us(first)}   per response {_us(gap)}"
          f"   unary round trip {_us(one)}   per response / round trip {gap / one:5.2f}")


def _grpc(port):
    import numpy as np
    import tritonclient.grpc as grpcclient

    client = grpcclient.InferenceServerClient(f"127.0.0.1:{port}")
    arrivals = queue.Queue()
    client.start_stream(callback=lambda result, error: arrivals.put((time.perf_counter(), error)))
    values = grpcclient.InferInput("IN", [RESPONSES], "INT32")
    values.set_data_from_numpy(np.arange(RESPONSES, dtype=np.int32))
    firsts, gaps = [], []
    for _ in range(ROUNDS):
        sent = time.perf_counter()
        client.async_stream_infer("stream", [values])
        stamps = []
        for _ in range(RESPONSES):
            stamp, error = arrivals.get(timeout=30)
            if error is not None:
                raise RuntimeError(f"gRPC stream error: {error}")
            stamps.append(stamp)
        firsts.append(stamps[0] - sent)
        gaps.append((stamps[-1] - stamps[0]) / (RESPONSES - 1))
    client.stop_stream()
    one = grpcclient.InferInput("INPUT0", [1], "INT32")
    one.set_data_from_numpy(np.zeros(1, dtype=np.int32))
    unary = []
    for _ in range(ROUNDS * 10):
        start = time.perf_counter()
        client.infer("unary", [one])
        unary.append(time.perf_counter() - start)
    client.close()
    _report("gRPC", firsts, gaps, unary)


def _read_events(sock, count):
    """Reads the chunked SSE body until `count` data events; their arrival times."""
    stamps, pending = [], b""
    while len(stamps) < count:
        data = sock.recv(65536)
        if not data:
            raise RuntimeError("the server closed the SSE stream early")
        now = time.perf_counter()
        pending += data
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            if b"data:" in event:
                if b'"error"' in event:
                    raise RuntimeError(f"SSE error event: {event[:200]!r}")
                stamps.append(now)
    # The rest of the body (the last chunk) may still come; drain it.
    while not pending.endswith(b"0\r\n\r\n"):
        data = sock.recv(65536)
        if not data:
            break
        pending += data
    return stamps


def _http_exchange(sock, path, body):
    sock.sendall((f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n").encode() + body)


def _http(port):
    body = json.dumps({"IN": list(range(RESPONSES))}).encode()
    firsts, gaps = [], []
    for _ in range(ROUNDS):
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sent = time.perf_counter()
            _http_exchange(sock, "/v2/models/stream/generate_stream", body)
            stamps = _read_events(sock, RESPONSES)
        firsts.append(stamps[0] - sent)
        gaps.append((stamps[-1] - stamps[0]) / (RESPONSES - 1))
    unary = []
    one = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1], "datatype": "INT32",
                                  "data": [0]}]}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(ROUNDS * 10):
            start = time.perf_counter()
            _http_exchange(sock, "/v2/models/unary/infer", one)
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                answer += sock.recv(65536)
            unary.append(time.perf_counter() - start)
    _report("SSE", firsts, gaps, unary)


def section_streaming(build, args, inferd_class, write_model):
    print(f"== 5. decoupled model streaming {RESPONSES} small responses, one request at a time ==")
    if not os.path.exists(os.path.join(build, "backends", "repeat", "libinferd_repeat.so")):
        raise RuntimeError("build/backends/repeat is missing")
    repo = tempfile.mkdtemp(prefix="inferd-bench-stream-")
    write_model(repo, "stream", REPEAT_CONFIG)
    write_model(repo, "unary", IDENTITY_CONFIG)
    server = inferd_class(build, repo)
    try:
        server.wait_ready()
        _grpc(server.grpc_port)
        _http(server.http_port)
    finally:
        server.stop()
    print()
