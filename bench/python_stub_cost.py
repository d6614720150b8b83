"""The Python a stub runs for one request, without sockets or a server: the
stub's execute path (parse the batch block, an echo model's execute(), write
the response block) on one 16 x FP32 request, in shared memory of its own.

    /usr/bin/python3 bench/python_stub_cost.py [build/backends/python] [requests] [rounds]

prints microseconds per request (the least of the rounds, 30 by default:
this box's other load only adds). Instruction counts repeat exactly where
times do not: run it under `valgrind --tool=callgrind` with PYTHONHASHSEED=0
and one round for 200 and 2,200 requests, and divide the difference of the
totals by 2,000 (issue 43: 84,756 -> 73,582 -> 70,705 instructions per request).
"""
import mmap
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else
                os.path.join(HERE, "..", "build", "backends", "python"))

import inferd_python_stub as stub_module  # noqa: E402
import triton_python_backend_utils as pb_utils  # noqa: E402
from inferd_stub_wire import INPUT, REQUEST, U32, U64  # noqa: E402

BATCH_AT, DATA_AT, RING_AT, RING_BYTES = 4096, 8192, 1 << 19, 1 << 19


class Echo:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor(
            "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
            for r in requests]


class NoSocket:
    def send(self, message):
        pass


def make_stub():
    """A stub whose region holds one batch of one request (as the backend
    writes it, wire_format.h) and whose channel goes nowhere."""
    region = mmap.mmap(-1, RING_AT + RING_BYTES)
    U64.pack_into(region, 8, RING_AT)
    U64.pack_into(region, 16, RING_BYTES)
    U32.pack_into(region, BATCH_AT, 1)
    at = BATCH_AT + 8
    REQUEST.pack_into(region, at, 1, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0)
    at += REQUEST.size
    region[at:at + 2] = b"{}"
    at += 8
    INPUT.pack_into(region, at, 6, 11, 1, 0, 64, DATA_AT)
    U64.pack_into(region, at + INPUT.size, 16)
    region[at + INPUT.size + 8:at + INPUT.size + 14] = b"INPUT0"
    stub = stub_module.Stub.__new__(stub_module.Stub)
    stub.main, stub.region, stub.view = NoSocket(), region, memoryview(region)
    stub.ring_begin, stub.ring_bytes, stub.head = RING_AT, RING_BYTES, 0
    stub.send_lock, stub.model, stub.batch = threading.Lock(), Echo(), 1
    stub.decoupled, stub.iterative, stub.label = False, False, "bench"
    pb_utils._stub = stub
    return stub


def run(stub, requests):
    for _ in range(requests):
        stub.execute(1, BATCH_AT)
        U64.pack_into(stub.region, 0, stub.head)  # the backend consumed the response


def main():
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    stub = make_stub()
    best = None
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 30):
        start = time.perf_counter_ns()
        run(stub, requests)
        per = (time.perf_counter_ns() - start) / max(requests, 1) / 1000
        best = per if best is None else min(best, per)
    print(f"stub execute path, echo model, one 16 x FP32 request: {best:.2f} us per request")


if __name__ == "__main__":
    main()
