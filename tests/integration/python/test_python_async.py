"""Coroutine execute (async def execute), as Triton runs it on an event loop in
the stub:

- a default-mode model awaits 8 async_exec() calls together, and they are in
  flight at once: the called model's dynamic batcher forms one batch of 8
  (it would wait 20 s for an 8th request otherwise), so each answer is 8;
- a decoupled model awaits 8 async_exec(decoupled=True) calls together into
  a decoupled coroutine model that answers only once 8 of them wait at once;
- a decoupled model's coroutines overlap across requests (Triton starts the
  next batch while earlier coroutines wait): two requests of 4 calls each
  fill one round of 8;
- a coroutine that raises fails its requests with the exception and where it
  was raised, the model serving on, in both modes;
- an `async def initialize` is refused at load with a message saying why;
- pb_utils.get_model_dir() is the folder model.py was loaded from.
"""

import itertools
import json
import queue
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import async_models as am
import python_models as pm

WAIT_S = 30
ROUNDS = itertools.count(1)


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        "batch_gate": pm.python_model(am.BATCH_GATE_CONFIG, am.BATCH_GATE),
        "async_gate": pm.python_model(am.ASYNC_GATE_CONFIG, am.ASYNC_GATE),
        "fan_out": pm.python_model(am.FAN_OUT_CONFIG, am.FAN_OUT),
        "stream_fan_out": pm.python_model(am.STREAM_FAN_OUT_CONFIG, am.STREAM_FAN_OUT),
        "async_raises": pm.python_model(am.async_raises_config("async_raises", False),
                                        am.ASYNC_RAISES),
        "async_raises_stream": pm.python_model(
            am.async_raises_config("async_raises_stream", True), am.ASYNC_RAISES),
        "where": pm.python_model(pm.config("where", [("X", "TYPE_INT32", [1])],
                                           [("DIR", "TYPE_STRING", [1])]), am.MODEL_DIR),
    })


def client_and_module(server, protocol):
    if protocol == "http":
        return server.client(), httpclient
    return server.grpc_client(), grpcclient


def tensor(module, name, value, datatype):
    dtype = {"INT32": np.int32, "INT64": np.int64}[datatype]
    t = module.InferInput(name, [1], datatype)
    t.set_data_from_numpy(np.array([value], dtype=dtype))
    return t


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_coroutine_execute_has_8_async_exec_calls_in_flight_at_once(server, protocol):
    client, module = client_and_module(server, protocol)
    result = client.infer("fan_out", [tensor(module, "CALLS", 8, "INT32")])
    assert list(result.as_numpy("SEEN")) == [8] * 8


def stream_requests(server, requests, **parameters):
    """Sends each (calls, round, parties) to stream_fan_out on one gRPC
    stream; returns the SEEN list of each, by request id."""
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    try:
        for i, (calls, round_, parties) in enumerate(requests):
            inputs = [tensor(grpcclient, "CALLS", calls, "INT32"),
                      tensor(grpcclient, "ROUND", round_, "INT64"),
                      tensor(grpcclient, "PARTIES", parties, "INT32")]
            client.async_stream_infer("stream_fan_out", inputs, request_id=str(i),
                                      parameters=parameters or None)
        seen = {}
        while len(seen) < len(requests):
            result, error = results.get(timeout=WAIT_S)
            assert error is None, error
            seen[result.get_response().id] = list(result.as_numpy("SEEN"))
            read = result.as_numpy("READ")[0].decode()
            assert read == ("async for" if parameters else "for"), read
        return seen
    finally:
        client.stop_stream()


def test_a_decoupled_coroutine_execute_streams_from_8_calls_in_flight_at_once(server):
    assert stream_requests(server, [(8, next(ROUNDS), 8)]) == {"0": [8] * 8}


def test_a_decoupled_coroutine_reads_the_streams_with_async_for(server):
    assert stream_requests(server, [(8, next(ROUNDS), 8)], async_for=True) == {"0": [8] * 8}


def test_a_decoupled_coroutine_execute_over_http_generate(server):
    body = {"CALLS": 8, "ROUND": next(ROUNDS), "PARTIES": 8}
    resp = server.post("/v2/models/stream_fan_out/generate", data=json.dumps(body))
    assert resp.status_code == 200, resp.text
    assert resp.json()["SEEN"] == [8] * 8


def test_decoupled_coroutines_of_two_requests_wait_together(server):
    round_ = next(ROUNDS)
    # Each request's 4 calls alone cannot fill the round of 8: both requests'
    # coroutines must be waiting at once.
    assert stream_requests(server, [(4, round_, 8), (4, round_, 8)]) == {
        "0": [8] * 4, "1": [8] * 4}


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_coroutine_that_raises_fails_its_request_and_the_model_serves_on(server, protocol):
    client, module = client_and_module(server, protocol)
    with pytest.raises(InferenceServerException) as failure:
        client.infer("async_raises", [tensor(module, "X", -3, "INT32")])
    message = failure.value.message()
    assert "execute() raised ValueError: negative input -3 (model.py, line" in message, message
    assert "async_raises" in message
    result = client.infer("async_raises", [tensor(module, "X", 21, "INT32")])
    assert list(result.as_numpy("Y")) == [42]


def test_a_decoupled_coroutine_that_raises_ends_its_stream_with_the_error(server):
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    try:
        client.async_stream_infer("async_raises_stream", [tensor(grpcclient, "X", -1, "INT32")],
                                  request_id="bad")
        _, error = results.get(timeout=WAIT_S)
        assert error is not None
        assert "execute() raised ValueError: negative input -1 (model.py, line" in str(error)
        client.async_stream_infer("async_raises_stream", [tensor(grpcclient, "X", 5, "INT32")],
                                  request_id="good")
        result, error = results.get(timeout=WAIT_S)
        assert error is None, error
        assert list(result.as_numpy("Y")) == [10]
    finally:
        client.stop_stream()


def test_get_model_dir_is_the_folder_of_model_py(server):
    result = server.client().infer("where", [tensor(httpclient, "X", 0, "INT32")])
    folder = result.as_numpy("DIR")[0].decode()
    assert folder.endswith("/where/1"), folder
    assert (Path(folder) / "model.py").is_file()


def test_an_async_initialize_is_refused_at_load(inferd):
    broken = inferd({"async_init": pm.python_model(
        pm.config("async_init", [("X", "TYPE_INT32", [1])], [("Y", "TYPE_INT32", [1])]),
        am.ASYNC_INITIALIZE)}, extra_args=["--exit-on-error=false"], wait_for="live")
    index = broken.client().get_model_repository_index()
    entry = next(m for m in index if m["name"] == "async_init")
    assert entry["state"] == "UNAVAILABLE"
    assert "initialize() is a coroutine (async def)" in entry["reason"], entry
