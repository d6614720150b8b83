"""ModelStreamInfer: many requests in flight on one bidirectional stream.

- 150 requests sent on one stream before any answer is read come back, each
  response carrying its request's id and that request's own data; the dynamic
  batcher's record shows several of them were queued together.
- The same through tritonclient.grpc's start_stream / async_stream_infer.
- A bad request (unknown input, unknown model) is answered with error_message
  and its id, and the stream stays open: requests sent after the error succeed.
- Every response says whether it ends its request (triton_final_response, as
  Triton marks it): a model that is not decoupled answers with one response,
  marked final, and asking for empty final responses adds none.
  (Decoupled models: tests/integration/decoupled.)
- Closing (cancelling) a stream cancels its queued requests: a slow model
  executes only the few that had started. A unary call whose deadline passes
  is cancelled likewise.
"""

import queue
import threading
from functools import partial

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from grpc_wire import infer_request, outputs_of
from util import executions_started, pending_count, record_lines, single_identity, \
    wait_idle, wait_until

IN_FLIGHT = 150
WAIT_S = 20.0


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, records):
    batched = single_identity("batched", "INT32", [4], max_batch_size=16, extra=f"""
dynamic_batching {{ max_queue_delay_microseconds: 20000 }}
parameters {{ key: "execute_delay_ms" value: {{ string_value: "5" }} }}
parameters {{ key: "record_file" value: {{ string_value: "{records / 'batched.txt'}" }} }}
""")
    slow = single_identity("slow", "INT32", [4], max_batch_size=4, extra=f"""
parameters {{ key: "execute_delay_ms" value: {{ string_value: "300" }} }}
parameters {{ key: "record_file" value: {{ string_value: "{records / 'slow.txt'}" }} }}
""")
    slow_unary = slow.replace('"slow"', '"slow_unary"').replace("slow.txt", "slow_unary.txt") \
        .replace('"300"', '"1000"')
    return inferd({"batched": batched, "slow": slow, "slow_unary": slow_unary})


def row(i):
    return np.array([[i, -i, 2 * i, 7]], dtype=np.int32)


class RequestQueue:
    """A request iterator for a stub stream that the test feeds as it goes."""

    def __init__(self):
        self._queue = queue.Queue()

    def put(self, request):
        self._queue.put(request)

    def close(self):
        self._queue.put(None)

    def __iter__(self):
        while (request := self._queue.get()) is not None:
            yield request


def test_150_requests_in_flight_on_one_stream(server, stubs, records):
    stub = stubs.stub(server.grpc_address)
    requests = [infer_request(stubs, "batched", [("INPUT0", "INT32", row(i))], id=f"req-{i}")
                for i in range(IN_FLIGHT)]
    # The client half-closes after sending all of them; the server still answers each.
    responses = list(stub.ModelStreamInfer(iter(requests), timeout=WAIT_S))
    assert len(responses) == IN_FLIGHT
    seen = set()
    for message in responses:
        assert message.error_message == ""
        response = message.infer_response
        i = int(response.id.removeprefix("req-"))
        assert response.model_name == "batched"
        assert np.array_equal(outputs_of(response)["OUTPUT0"][2], row(i))
        seen.add(i)
    assert seen == set(range(IN_FLIGHT))
    batch_sizes = [len(line.split()[4].split(","))
                   for line in record_lines(records / "batched.txt")]
    assert sum(batch_sizes) >= IN_FLIGHT
    assert max(batch_sizes) > 1, "requests of one stream were never in flight together"


def test_tritonclient_stream_matches_responses_to_ids(server):
    client = server.grpc_client()
    results, done = {}, threading.Event()

    def callback(result, error):
        assert error is None, error
        response = result.get_response()
        results[response.id] = result.as_numpy("OUTPUT0")
        if len(results) == IN_FLIGHT:
            done.set()

    client.start_stream(callback=callback)
    try:
        for i in range(IN_FLIGHT):
            inp = grpcclient.InferInput("INPUT0", [1, 4], "INT32")
            inp.set_data_from_numpy(row(i))
            client.async_stream_infer("batched", [inp], request_id=str(i))
        assert done.wait(WAIT_S), f"only {len(results)} of {IN_FLIGHT} responses arrived"
    finally:
        client.stop_stream()
    assert sorted(results, key=int) == [str(i) for i in range(IN_FLIGHT)]
    for i in range(IN_FLIGHT):
        assert np.array_equal(results[str(i)], row(i))


def test_bad_request_error_travels_in_the_stream_which_stays_open(server, stubs):
    stub = stubs.stub(server.grpc_address)
    feed = RequestQueue()
    responses = stub.ModelStreamInfer(iter(feed), timeout=WAIT_S)
    good = lambda i: infer_request(stubs, "batched", [("INPUT0", "INT32", row(i))], id=f"good-{i}")

    feed.put(good(1))
    assert next(responses).infer_response.id == "good-1"

    bad_input = infer_request(stubs, "batched", [("BOGUS", "INT32", row(2))], id="bad-input")
    feed.put(bad_input)
    error = next(responses)
    assert error.infer_response.id == "bad-input"
    assert "BOGUS" in error.error_message

    feed.put(infer_request(stubs, "no_such_model", [("INPUT0", "INT32", row(3))], id="bad-model"))
    error = next(responses)
    assert error.infer_response.id == "bad-model"
    assert "no_such_model" in error.error_message

    feed.put(good(4))
    response = next(responses)
    assert response.error_message == ""
    assert response.infer_response.id == "good-4"
    assert np.array_equal(outputs_of(response.infer_response)["OUTPUT0"][2], row(4))
    feed.close()
    assert list(responses) == []  # the server ends the stream cleanly
    assert responses.code() == grpc.StatusCode.OK


@pytest.mark.parametrize("empty_final", [False, True])
def test_the_one_response_of_a_plain_model_is_marked_final(server, stubs, empty_final):
    stub = stubs.stub(server.grpc_address)
    request = infer_request(stubs, "batched", [("INPUT0", "INT32", row(6))], id="marked")
    if empty_final:
        request.parameters["triton_enable_empty_final_response"].bool_param = True
    responses = list(stub.ModelStreamInfer(iter([request]), timeout=WAIT_S))
    assert len(responses) == 1 and responses[0].error_message == ""
    response = responses[0].infer_response
    assert response.parameters["triton_final_response"].bool_param is True
    assert np.array_equal(outputs_of(response)["OUTPUT0"][2], row(6))


def test_tritonclient_stream_reports_errors_to_the_callback(server):
    client = server.grpc_client()
    outcomes = queue.Queue()
    client.start_stream(callback=lambda result, error: outcomes.put((result, error)))
    try:
        inp = grpcclient.InferInput("INPUT0", [1, 5], "INT32")  # wrong shape
        inp.set_data_from_numpy(np.zeros((1, 5), dtype=np.int32))
        client.async_stream_infer("batched", [inp], request_id="wrong-shape")
        result, error = outcomes.get(timeout=WAIT_S)
        assert result is None and "INPUT0" in str(error)
        ok = grpcclient.InferInput("INPUT0", [1, 4], "INT32")
        ok.set_data_from_numpy(row(5))
        client.async_stream_infer("batched", [ok], request_id="after-error")
        result, error = outcomes.get(timeout=WAIT_S)
        assert error is None
        assert np.array_equal(result.as_numpy("OUTPUT0"), row(5))
    finally:
        client.stop_stream()


def all_on_the_server(server, model, count):
    """Each of `count` requests of `model` is executing or queued, and at least
    one executes."""
    started = executions_started(server, model)
    return started >= 1 and started + pending_count(server, model) == count


def test_closed_stream_cancels_its_queued_requests(server, stubs, records):
    stub = stubs.stub(server.grpc_address)
    feed = RequestQueue()
    responses = stub.ModelStreamInfer(iter(feed))
    for i in range(20):
        feed.put(infer_request(stubs, "slow", [("INPUT0", "INT32", row(i))], id=f"slow-{i}"))
    wait_until(lambda: all_on_the_server(server, "slow", 20), WAIT_S,
               "the first request executing, the other 19 queued")
    responses.cancel()
    # Nothing queued or executing any more: what has not run never will.
    wait_idle(server, "slow", records / "slow.txt", timeout=WAIT_S)
    executed = len(record_lines(records / "slow.txt"))
    # 20 x 300 ms would take 6 s; only those already started may run.
    assert 1 <= executed <= 3, f"{executed} of 20 requests ran after the stream was cancelled"
    assert server.grpc_client().is_server_live()


def test_unary_call_past_its_deadline_is_cancelled(server, stubs, records):
    stub = stubs.stub(server.grpc_address)
    calls = [stub.ModelInfer.future(
        infer_request(stubs, "slow_unary", [("INPUT0", "INT32", row(i))]), timeout=0.5)
        for i in range(10)]
    for call in calls:
        with pytest.raises(grpc.RpcError) as error:
            call.result()
        assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # The first runs for 1 s, past every deadline; the others must never run.
    # Once nothing is queued or executing, what has not run never will.
    wait_idle(server, "slow_unary", records / "slow_unary.txt", timeout=WAIT_S)
    executed = len(record_lines(records / "slow_unary.txt"))
    assert executed <= 2, f"{executed} of 10 requests ran after their calls were cancelled"
