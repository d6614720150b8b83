"""A decoupled Python model streams many responses per request over gRPC:
each request's responses come from a thread of the model through its response
sender, in order, then FINAL; two requests on one stream interleave freely and
each gets exactly its own. A client that cancels its stream is seen by the
model's sender.is_cancelled(), which ends the model's loop.
"""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

import python_models as pm
from util import wait_until

WAIT_S = 20


@pytest.fixture(scope="module")
def stop_file(tmp_path_factory):
    return tmp_path_factory.mktemp("endless") / "stopped"


@pytest.fixture(scope="module")
def server(inferd, stop_file):
    return inferd({"repeat": pm.python_model(pm.REPEAT_CONFIG, pm.REPEAT),
                   "endless": pm.python_model(pm.endless_config(stop_file), pm.ENDLESS)})


def test_streams_n_responses_per_request(server):
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    try:
        for request_id, count in (("a", 5), ("b", 3)):
            tensor = grpcclient.InferInput("COUNT", [1], "INT32")
            tensor.set_data_from_numpy(np.array([count], np.int32))
            client.async_stream_infer("repeat", [tensor], request_id=request_id)
        got = {"a": [], "b": []}
        # This branch's gRPC stream sends no empty final response: count them.
        while len(got["a"]) + len(got["b"]) < 8:
            result, error = results.get(timeout=WAIT_S)
            assert error is None, error
            got[result.get_response().id].append(int(result.as_numpy("OUT")[0]))
    finally:
        client.stop_stream()
    assert got == {"a": [0, 1, 2, 3, 4], "b": [0, 1, 2]}


def test_a_cancelled_stream_is_seen_by_is_cancelled(server, stop_file):
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    tensor = grpcclient.InferInput("X", [1], "INT32")
    tensor.set_data_from_numpy(np.array([0], np.int32))
    client.async_stream_infer("endless", [tensor], request_id="forever")
    for expected in range(3):
        result, error = results.get(timeout=WAIT_S)
        assert error is None, error
        assert int(result.as_numpy("OUT")[0]) == expected
    client.stop_stream(cancel_requests=True)
    how = wait_until(lambda: stop_file.exists() and stop_file.read_text(),
                     what="the model's loop ending", timeout=WAIT_S)
    assert how.startswith("cancelled ")
    assert int(how.split()[1]) >= 3
