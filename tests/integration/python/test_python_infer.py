"""The Python backend runs Triton-style model.py files, over HTTP and gRPC:

- add/sub with numpy (FP32), through tritonclient.http and tritonclient.grpc;
- BYTES tensors as numpy object arrays, with the request id, parameters and
  requested output names reaching Python;
- an error set in an InferenceResponse reaches the client as that request's
  error (its code too), and the model keeps serving;
- an exception raised in execute() reaches the client with the traceback's
  last line and the model's name; the server and model keep serving;
- the dynamic batcher hands several requests to one execute() (the model says
  how many it got);
- two instances run execute() at the same time, each in its own process;
- statistics count the stub's part of an execution as compute_infer and the
  backend's copying before and after as compute_input and compute_output.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import python_models as pm
from util import model_stats, pending_count, settled_stats, wait_until


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return tmp_path_factory.mktemp("python_state")


@pytest.fixture(scope="module")
def server(inferd, folders):
    (folders / "parallel").mkdir()
    return inferd({
        "add_sub": pm.python_model(pm.ADD_SUB_CONFIG, pm.ADD_SUB),
        "strings": pm.python_model(pm.STRINGS_CONFIG, pm.STRINGS),
        "errors": pm.python_model(pm.ERRORS_CONFIG, pm.ERRORS),
        "batcher": pm.python_model(pm.batcher_config(folders / "gate"), pm.BATCHER),
        "parallel": pm.python_model(pm.parallel_config(folders / "parallel"), pm.PARALLEL),
    })


def http_inputs(arrays):
    inputs = []
    for name, datatype, array in arrays:
        tensor = httpclient.InferInput(name, list(array.shape), datatype)
        tensor.set_data_from_numpy(array)
        inputs.append(tensor)
    return inputs


def grpc_inputs(arrays):
    inputs = []
    for name, datatype, array in arrays:
        tensor = grpcclient.InferInput(name, list(array.shape), datatype)
        tensor.set_data_from_numpy(array)
        inputs.append(tensor)
    return inputs


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_add_sub(server, protocol):
    a = np.array([1.5, 2, 3, 4], dtype=np.float32)
    b = np.array([0.5, 1, -1, 10], dtype=np.float32)
    arrays = [("INPUT0", "FP32", a), ("INPUT1", "FP32", b)]
    if protocol == "http":
        result = server.client().infer("add_sub", http_inputs(arrays))
    else:
        result = server.grpc_client().infer("add_sub", grpc_inputs(arrays))
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_string_tensors_and_request_fields(server, protocol):
    words = np.array(["héllo".encode(), b"", b"inferd"], dtype=np.object_)
    arrays = [("TEXT", "BYTES", words)]
    if protocol == "http":
        client, outputs = server.client(), [httpclient.InferRequestedOutput("UPPER"),
                                            httpclient.InferRequestedOutput("ECHO")]
        inputs = http_inputs(arrays)
    else:
        client, outputs = server.grpc_client(), [grpcclient.InferRequestedOutput("UPPER"),
                                                 grpcclient.InferRequestedOutput("ECHO")]
        inputs = grpc_inputs(arrays)
    result = client.infer("strings", inputs, outputs=outputs, request_id="r-17",
                          parameters={"mode": "loud", "level": 3})
    assert list(result.as_numpy("UPPER")) == ["HÉLLO".encode(), b"", b"INFERD"]
    request_id, parameters, names = result.as_numpy("ECHO")
    assert request_id == b"r-17"
    import json
    assert json.loads(parameters) == {"mode": "loud", "level": 3}
    assert sorted(names.decode().split(",")) == ["ECHO", "UPPER"]


def test_error_in_a_response_reaches_that_request_only(server):
    client = server.client()
    with pytest.raises(InferenceServerException) as raised:
        client.infer("errors", http_inputs([("X", "INT32", np.array([-1, 2], dtype=np.int32))]))
    assert "negative input" in str(raised.value)
    assert raised.value.status() == "400"  # INVALID_ARG, as the model set it
    result = client.infer("errors", http_inputs([("X", "INT32", np.array([3, 4], np.int32))]))
    np.testing.assert_array_equal(result.as_numpy("Y"), [6, 8])


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_exception_in_execute_names_the_model_and_the_error(server, protocol):
    zero = [("X", "INT32", np.array([0, 1], dtype=np.int32))]
    fine = [("X", "INT32", np.array([5, 6], dtype=np.int32))]
    if protocol == "http":
        client, make = server.client(), http_inputs
    else:
        client, make = server.grpc_client(), grpc_inputs
    with pytest.raises(InferenceServerException) as raised:
        client.infer("errors", make(zero))
    message = str(raised.value)
    assert "ValueError: zero is not allowed here" in message
    assert "'errors'" in message and "execute()" in message
    assert "model.py, line" in message
    # The stub survived its model's exception: the same instance serves on.
    result = client.infer("errors", make(fine))
    np.testing.assert_array_equal(result.as_numpy("Y"), [10, 12])
    assert server.get("/v2/health/ready").status_code == 200


def test_dynamic_batcher_hands_several_requests_to_one_execute(server, folders):
    # Each request on a thread of its own with a client of its own: the
    # client's async_infer runs on gevent, which never got to send while this
    # test polled with blocking calls on a loaded machine.
    def send(gate):
        client = httpclient.InferenceServerClient(server.address)
        try:
            return client.infer("batcher", http_inputs(
                [("GATE", "INT32", np.array([[gate]], dtype=np.int32))]))
        finally:
            client.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        first = pool.submit(send, 1)  # holds the only instance until the gate opens
        wait_until(lambda: pending_count(server, "batcher") == 0 and
                   server.get("/v2/models/batcher/stats").json()["model_stats"][0]
                   ["execution_count"] >= 1, what="the gated request executing")
        queued = [pool.submit(send, 0) for _ in range(5)]
        wait_until(lambda: pending_count(server, "batcher") == 5, what="5 requests queued")
        (folders / "gate").touch()
        assert first.result(timeout=60).as_numpy("SEEN")[0][0] == 1
        seen = [q.result(timeout=60).as_numpy("SEEN")[0] for q in queued]
    # All five were queued together behind the first: one execute() got them all.
    assert [s[0] for s in seen] == [5] * 5
    assert len({s[1] for s in seen}) == 1


def test_two_instances_execute_at_the_same_time(server):
    client = httpclient.InferenceServerClient(server.address, concurrency=2)
    futures = [client.async_infer("parallel", http_inputs(
        [("X", "INT32", np.array([i], dtype=np.int32))])) for i in range(2)]
    results = [f.get_result() for f in futures]
    # Each execute() saw both instances running: neither waited for the other.
    assert [r.as_numpy("RUNNING")[0] for r in results] == [2, 2]
    assert {r.as_numpy("INSTANCE")[0] for r in results} == {b"parallel_0_0", b"parallel_0_1"}


def test_statistics_split_copying_from_python(server):
    a = np.ones(4, dtype=np.float32)
    server.client().infer("add_sub", http_inputs([("INPUT0", "FP32", a), ("INPUT1", "FP32", a)]))
    stats = settled_stats(server, "add_sub")["inference_stats"]
    for phase in ("compute_input", "compute_infer", "compute_output"):
        assert stats[phase]["count"] >= 1, phase
    assert stats["compute_infer"]["ns"] > stats["compute_input"]["ns"]
