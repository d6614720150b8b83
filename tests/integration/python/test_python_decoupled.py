"""A decoupled Python model streams many responses per request over gRPC:
each request's responses come from a thread of the model through its response
sender, in order, then FINAL; two requests on one stream interleave freely and
each gets exactly its own.
"""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

import python_models as pm

WAIT_S = 20


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"repeat": pm.python_model(pm.REPEAT_CONFIG, pm.REPEAT)})


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
