"""preserve_ordering (001, "Preserve Ordering"): responses leave in the order the
requests were received, even when a later request finishes executing first.

A model with two instances gets request A, which executes for the model's
execute_delay_ms (3 s), and then, once A is executing, request B, which sets
the identity backend's per-request "execute_delay_ms" parameter to 1 ms. B
runs on the other instance and its execution ends first: the record file
(written when an execution ends, before its responses are sent) shows B while
A is still executing. Both travel on one gRPC stream, so the order of the
stream's messages is the order the server sent the responses:

- with preserve_ordering, B's response is held until A's is sent: A, then B;
- without it (the contrast), B's response leaves as soon as B is done, while A
  still executes: B, then A.
"""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from batching_util import expect_ok, ids_in_order, start_env, wait_until
from util import executions_started

LONG_MS = 3000  # the models' execute_delay_ms: A's execution
SHORT_MS = 1    # B's "execute_delay_ms" request parameter
WAIT_S = 30.0


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "ordered": dict(max_batch_size=2, delay_ms=LONG_MS, instance_count=2,
                        dynamic_batching="preserve_ordering: true"),
        "unordered": dict(max_batch_size=2, delay_ms=LONG_MS, instance_count=2),
        "served": dict(max_batch_size=2, delay_ms=100, instance_count=2,
                       dynamic_batching="preserve_ordering: true"),
    })


def test_a_model_with_preserve_ordering_serves(env):
    with env.exchange("served") as ex:
        futures = {f"o{i}": ex.send(f"o{i}", rows=1 + i % 2) for i in range(6)}
        for request_id, future in futures.items():
            result = expect_ok(future)
            assert result.body["id"] == request_id
            rows = 1 + int(request_id[1:]) % 2
            assert result.body["outputs"][0]["data"] == list(range(rows * 4))
    env.wait_record("served", 1)
    assert sorted(ids_in_order(env.record("served"))) == sorted(futures)


class Stream:
    """One gRPC stream to the server; `arrivals` receives (request id, output
    or error) in the order the stream delivered the responses."""

    def __init__(self, server):
        self.client = server.grpc_client()
        self.arrivals = queue.Queue()
        self.client.start_stream(callback=self._on_response)

    def _on_response(self, result, error):
        if error is not None:
            self.arrivals.put((None, error))
        else:
            self.arrivals.put((result.get_response().id, result.as_numpy("OUTPUT0")))

    def send(self, model, request_id, data, parameters=None):
        inp = grpcclient.InferInput("INPUT0", [1, 4], "INT32")
        inp.set_data_from_numpy(data)
        self.client.async_stream_infer(model, [inp], request_id=request_id,
                                       parameters=parameters)

    def next_arrival(self):
        request_id, value = self.arrivals.get(timeout=WAIT_S)
        assert request_id is not None, f"the stream delivered an error: {value}"
        return request_id, value

    def close(self):
        self.client.stop_stream()
        self.client.close()


def run_a_then_b(env, model):
    """Sends A (long) and, once A executes, B (short) on one stream; waits until
    B's execution has ended while A's still runs. Returns (stream, A's input,
    B's input, executions recorded before)."""
    before = len(env.record(model))
    started = executions_started(env.server, model)
    stream = Stream(env.server)
    a = np.array([[1, 2, 3, 4]], dtype=np.int32)
    b = np.array([[5, 6, 7, 8]], dtype=np.int32)
    stream.send(model, "A", a)
    wait_until("A executing", lambda: executions_started(env.server, model) == started + 1)
    stream.send(model, "B", b, parameters={"execute_delay_ms": SHORT_MS})
    (b_done,) = env.wait_record(model, before + 1)[before:]
    # The premise: B, sent after A started, finished executing first.
    assert b_done.ids == ["B"], (
        f"premise broken: expected B's execution to end first, while A ({LONG_MS} ms) "
        f"still runs; recorded {env.record(model)[before:]}")
    return stream, a, b, before


def test_responses_leave_in_arrival_order(env):
    model = "ordered"
    stream, a, b, before = run_a_then_b(env, model)
    try:
        # B is done, yet its response waits for A's.
        assert stream.arrivals.empty(), "B's response left before A's"
        first_id, first = stream.next_arrival()
        second_id, second = stream.next_arrival()
    finally:
        stream.close()
    assert (first_id, second_id) == ("A", "B")
    assert np.array_equal(first, a) and np.array_equal(second, b)
    b_exec, a_exec = env.record(model)[before:]
    assert (b_exec.ids, a_exec.ids) == (["B"], ["A"])
    assert b_exec.instance != a_exec.instance, "A and B must run on the two instances"
    assert b_exec.end_ns < a_exec.end_ns
    assert b_exec.start_ns > a_exec.start_ns  # B was sent once A executed


def test_without_preserve_ordering_the_first_done_leaves_first(env):
    model = "unordered"
    stream, a, b, before = run_a_then_b(env, model)
    try:
        first_id, first = stream.next_arrival()
        # B's response arrived while A still executes.
        assert len(env.record(model)[before:]) == 1, "A ended before B's response arrived"
        second_id, second = stream.next_arrival()
    finally:
        stream.close()
    assert (first_id, second_id) == ("B", "A")
    assert np.array_equal(first, b) and np.array_equal(second, a)
    b_exec, a_exec = env.record(model)[before:]
    assert (b_exec.ids, a_exec.ids) == (["B"], ["A"])
    assert b_exec.instance != a_exec.instance
