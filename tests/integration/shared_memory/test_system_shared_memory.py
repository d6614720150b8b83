"""System shared memory extension over HTTP and gRPC, with the genuine
tritonclient and its shared memory utilities: regions are registered by name,
inputs are read from them and outputs written into them, a region registered
over one protocol serves the other, and every bad registration or reference
gets a clear error while the server keeps serving."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm
from tritonclient.utils import InferenceServerException, serialize_byte_tensor

from util import identity_config

_keys = itertools.count()

MODELS = {
    "pair": identity_config("pair", [("INPUT0", "OUTPUT0", "FP32", [16]),
                                     ("INPUT1", "OUTPUT1", "INT32", [16])]),
    "strings": identity_config("strings", [("INPUT0", "OUTPUT0", "BYTES", [3])]),
}

PROTOCOLS = ("http", "grpc")


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(MODELS)


@pytest.fixture
def regions():
    """Factory: regions(name, byte_size) -> a tritonclient shm handle; every
    handle is destroyed (and the object unlinked) after the test."""
    handles = []

    def create(name: str, byte_size: int):
        key = f"/inferd_it_{os.getpid()}_{next(_keys)}"
        handle = shm.create_shared_memory_region(name, key, byte_size)
        handles.append(handle)
        return handle, key

    yield create
    for handle in handles:
        shm.destroy_shared_memory_region(handle)


@pytest.fixture(params=PROTOCOLS)
def protocol(request):
    return request.param


def make_client(server, protocol):
    return server.client() if protocol == "http" else server.grpc_client()


def api(protocol):
    return httpclient if protocol == "http" else grpcclient


@pytest.fixture
def client(server, protocol):
    c = make_client(server, protocol)
    yield c
    c.unregister_system_shared_memory()  # every region, so tests stay independent
    c.close()


def status_of(client, protocol, name=""):
    """{name: (key, offset, byte_size)} as the server reports it."""
    if protocol == "http":
        return {r["name"]: (r["key"], int(r["offset"]), int(r["byte_size"]))
                for r in client.get_system_shared_memory_status(name)}
    status = client.get_system_shared_memory_status(name)
    return {n: (r.key, r.offset, r.byte_size) for n, r in status.regions.items()}


def assert_still_serving(server):
    c = server.client()
    data = np.arange(16, dtype=np.float32)
    a = httpclient.InferInput("INPUT0", [16], "FP32")
    a.set_data_from_numpy(data)
    b = httpclient.InferInput("INPUT1", [16], "INT32")
    b.set_data_from_numpy(np.arange(16, dtype=np.int32))
    np.testing.assert_array_equal(c.infer("pair", [a, b]).as_numpy("OUTPUT0"), data)


def test_register_status_and_unregister(client, protocol, regions):
    _, key = regions("in", 128)
    client.register_system_shared_memory("in", key, 64, offset=32)
    client.register_system_shared_memory("whole", key, 128)
    assert status_of(client, protocol) == {"in": (key, 32, 64), "whole": (key, 0, 128)}
    assert status_of(client, protocol, "in") == {"in": (key, 32, 64)}
    client.unregister_system_shared_memory("in")
    assert status_of(client, protocol) == {"whole": (key, 0, 128)}
    client.unregister_system_shared_memory()
    assert status_of(client, protocol) == {}


def test_inputs_and_outputs_in_shared_memory(client, protocol, regions):
    a = np.linspace(-4, 4, 16, dtype=np.float32)
    b = np.arange(100, 116, dtype=np.int32)
    ins, in_key = regions("ins", 128)
    outs, out_key = regions("outs", 256)
    shm.set_shared_memory_region(ins, [a])
    shm.set_shared_memory_region(ins, [b], offset=64)
    client.register_system_shared_memory("ins", in_key, 128)
    client.register_system_shared_memory("outs", out_key, 256)
    m = api(protocol)
    inputs = [m.InferInput("INPUT0", [16], "FP32"), m.InferInput("INPUT1", [16], "INT32")]
    inputs[0].set_shared_memory("ins", 64)
    inputs[1].set_shared_memory("ins", 64, offset=64)
    outputs = [m.InferRequestedOutput("OUTPUT0"), m.InferRequestedOutput("OUTPUT1")]
    outputs[0].set_shared_memory("outs", 64, offset=128)
    outputs[1].set_shared_memory("outs", 64, offset=16)
    result = client.infer("pair", inputs, outputs=outputs)

    out0 = result.get_output("OUTPUT0")
    shape = out0["shape"] if protocol == "http" else list(out0.shape)
    assert shape == [16]
    np.testing.assert_array_equal(shm.get_contents_as_numpy(outs, np.float32, [16], offset=128), a)
    np.testing.assert_array_equal(shm.get_contents_as_numpy(outs, np.int32, [16], offset=16), b)
    # The outputs travel in shared memory only, not in the response.
    if protocol == "http":
        # As Triton: neither data nor parameters (Triton's C++ client reads
        # any output parameters as binary data).
        assert "data" not in out0 and "parameters" not in out0, out0
    else:
        # One raw entry per output, as Triton, empty for those in shared memory.
        assert list(result.get_response().raw_output_contents) == [b"", b""]
        params = out0.parameters
        assert params["shared_memory_region"].string_param == "outs"
        assert params["shared_memory_byte_size"].int64_param == 64


def test_shared_memory_input_with_output_in_the_response(client, protocol, regions):
    a = np.full(16, 2.5, dtype=np.float32)
    b = np.arange(16, dtype=np.int32) * -3
    ins, key = regions("ins", 64)
    shm.set_shared_memory_region(ins, [a])
    client.register_system_shared_memory("ins", key, 64)
    m = api(protocol)
    inputs = [m.InferInput("INPUT0", [16], "FP32"), m.InferInput("INPUT1", [16], "INT32")]
    inputs[0].set_shared_memory("ins", 64)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("pair", inputs)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), b)


def test_one_output_in_shared_memory_the_other_in_the_response(client, protocol, regions):
    a = np.arange(16, dtype=np.float32) / 7
    b = np.arange(16, dtype=np.int32) + 9
    outs, key = regions("outs", 64)
    client.register_system_shared_memory("outs", key, 64)
    m = api(protocol)
    inputs = [m.InferInput("INPUT0", [16], "FP32"), m.InferInput("INPUT1", [16], "INT32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    outputs = [m.InferRequestedOutput("OUTPUT0"), m.InferRequestedOutput("OUTPUT1")]
    outputs[1].set_shared_memory("outs", 64)
    result = client.infer("pair", inputs, outputs=outputs)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a)
    np.testing.assert_array_equal(shm.get_contents_as_numpy(outs, np.int32, [16]), b)


def test_bytes_tensors_in_shared_memory(client, protocol, regions):
    values = np.array([b"hello", b"", b"shared \xc3\xa9"], dtype=np.object_)
    serialized = serialize_byte_tensor(values)  # one object holding the wire bytes
    size = len(serialized.item())
    ins, in_key = regions("ins", size)
    outs, out_key = regions("outs", 256)
    shm.set_shared_memory_region(ins, [serialized])
    client.register_system_shared_memory("ins", in_key, size)
    client.register_system_shared_memory("outs", out_key, 256)
    m = api(protocol)
    inp = m.InferInput("INPUT0", [3], "BYTES")
    inp.set_shared_memory("ins", size)
    out = m.InferRequestedOutput("OUTPUT0")
    out.set_shared_memory("outs", 256)
    client.infer("strings", [inp], outputs=[out])
    got = shm.get_contents_as_numpy(outs, np.object_, [3])
    assert list(got) == list(values)


def test_a_region_registered_over_http_serves_grpc(server, regions):
    a = np.linspace(0, 1, 16, dtype=np.float32)
    ins, key = regions("ins", 64)
    shm.set_shared_memory_region(ins, [a])
    http = server.client()
    grpc = server.grpc_client()
    try:
        http.register_system_shared_memory("cross", key, 64)
        assert "cross" in grpc.get_system_shared_memory_status().regions
        inputs = [grpcclient.InferInput("INPUT0", [16], "FP32"),
                  grpcclient.InferInput("INPUT1", [16], "INT32")]
        inputs[0].set_shared_memory("cross", 64)
        inputs[1].set_data_from_numpy(np.zeros(16, dtype=np.int32))
        np.testing.assert_array_equal(grpc.infer("pair", inputs).as_numpy("OUTPUT0"), a)
        grpc.unregister_system_shared_memory("cross")
        assert http.get_system_shared_memory_status() == []
    finally:
        http.unregister_system_shared_memory()
        grpc.close()


def expect_error(protocol, http_status, grpc_code, *needles):
    """A context manager: the block raises InferenceServerException with the
    protocol's status and every needle in its message."""
    class Expect:
        def __enter__(self):
            return self

        def __exit__(self, kind, error, tb):
            assert kind is InferenceServerException, f"expected an error, got {kind}"
            text = str(error.message())
            for needle in needles:
                assert needle in text, f"{needle!r} not in {text!r}"
            want = str(http_status) if protocol == "http" else f"StatusCode.{grpc_code}"
            assert str(error.status()) == want, f"{error.status()} != {want}: {text}"
            return True
    return Expect()


def test_bad_registrations_are_refused_and_change_nothing(server, client, protocol, regions):
    _, key = regions("small", 64)
    with expect_error(protocol, 400, "INVALID_ARGUMENT", "/inferd_no_such_key"):
        client.register_system_shared_memory("r", "/inferd_no_such_key", 8)
    with expect_error(protocol, 400, "INVALID_ARGUMENT", "fewer than"):
        client.register_system_shared_memory("r", key, 64, offset=8)
    assert status_of(client, protocol) == {}
    client.register_system_shared_memory("r", key, 64)
    with expect_error(protocol, 400, "ALREADY_EXISTS", "'r'", "already registered"):
        client.register_system_shared_memory("r", key, 8)
    assert status_of(client, protocol) == {"r": (key, 0, 64)}
    with expect_error(protocol, 404, "NOT_FOUND", "'nope'"):
        client.get_system_shared_memory_status("nope")
    assert_still_serving(server)


def test_bad_references_in_infer_requests(server, client, protocol, regions):
    ins, key = regions("ins", 64)
    client.register_system_shared_memory("ins", key, 64)
    m = api(protocol)

    def request(region="ins", size=64, offset=0, out_region=None, out_size=64):
        inputs = [m.InferInput("INPUT0", [16], "FP32"), m.InferInput("INPUT1", [16], "INT32")]
        inputs[0].set_shared_memory(region, size, offset=offset)
        inputs[1].set_data_from_numpy(np.zeros(16, dtype=np.int32))
        outputs = None
        if out_region:
            outputs = [m.InferRequestedOutput("OUTPUT0")]
            outputs[0].set_shared_memory(out_region, out_size)
        return client.infer("pair", inputs, outputs=outputs)

    with expect_error(protocol, 400, "INVALID_ARGUMENT", "INPUT0", "'missing'", "not registered"):
        request(region="missing")
    with expect_error(protocol, 400, "INVALID_ARGUMENT", "INPUT0", "runs past the end"):
        request(offset=8)
    with expect_error(protocol, 400, "INVALID_ARGUMENT", "INPUT0", "32"):
        request(size=32)  # fits the region but not the shape
    with expect_error(protocol, 400, "INVALID_ARGUMENT", "OUTPUT0", "needs 64 bytes"):
        request(out_region="ins", out_size=16)
    assert_still_serving(server)


def test_unregistering_mid_use_keeps_other_regions(client, protocol, regions):
    a = np.arange(16, dtype=np.float32)
    ins, key = regions("ins", 64)
    shm.set_shared_memory_region(ins, [a])
    client.register_system_shared_memory("keep", key, 64)
    client.register_system_shared_memory("drop", key, 64)
    client.unregister_system_shared_memory("drop")
    client.unregister_system_shared_memory("never-registered")  # no error, as in Triton
    m = api(protocol)
    inputs = [m.InferInput("INPUT0", [16], "FP32"), m.InferInput("INPUT1", [16], "INT32")]
    inputs[0].set_shared_memory("keep", 64)
    inputs[1].set_data_from_numpy(np.zeros(16, dtype=np.int32))
    np.testing.assert_array_equal(client.infer("pair", inputs).as_numpy("OUTPUT0"), a)


def test_server_metadata_lists_the_extension(server):
    assert "system_shared_memory" in server.client().get_server_metadata()["extensions"]


def test_cuda_shared_memory_is_unsupported_without_a_gpu(server):
    resp = server.get("/v2/cudasharedmemory/status")
    assert resp.status_code == 501
    assert "CUDA" in resp.json()["error"]


def test_raw_http_register_body_errors(server):
    resp = server.post("/v2/systemsharedmemory/region/r/register", data=b'{"key": 5}')
    assert resp.status_code == 400
    assert "'key'" in resp.json()["error"]
    resp = server.post("/v2/systemsharedmemory/region/r/register",
                       data=b'{"key": "/k", "byte_size": -1}')
    assert resp.status_code == 400
    assert "'byte_size'" in resp.json()["error"]
    resp = server.post("/v2/systemsharedmemory/region/r/register", data=b"not json")
    assert resp.status_code == 400
    assert server.get("/v2/systemsharedmemory/status").json() == []
