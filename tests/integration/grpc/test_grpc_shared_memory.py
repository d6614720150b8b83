"""System shared memory RPCs and infer requests that use it, through stubs
generated from inferd's own .proto: the status map's fields, a request whose
first input is in shared memory while the second travels in
raw_input_contents (which then holds one entry, for the second input), and a
response whose output went to shared memory (described by parameters, with an
empty raw_output_contents entry, as Triton sends)."""

import os

import grpc
import numpy as np
import pytest
import tritonclient.utils.shared_memory as shm

from util import identity_config


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"pair": identity_config("pair", [("INPUT0", "OUTPUT0", "FP32", [4]),
                                                    ("INPUT1", "OUTPUT1", "INT32", [4])])})


@pytest.fixture
def region():
    handle = shm.create_shared_memory_region("wire", f"/inferd_wire_{os.getpid()}", 64)
    yield handle, f"/inferd_wire_{os.getpid()}"
    shm.destroy_shared_memory_region(handle)


def test_register_status_infer_unregister(server, stubs, region):
    stub = stubs.stub(server.grpc_address)
    pb = stubs.pb
    handle, key = region
    a = np.array([1.5, -2.0, 3.25, 0.0], dtype=np.float32)
    shm.set_shared_memory_region(handle, [a])
    stub.SystemSharedMemoryRegister(pb.SystemSharedMemoryRegisterRequest(
        name="wire", key=key, offset=0, byte_size=64))
    status = stub.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest())
    assert set(status.regions) == {"wire"}
    entry = status.regions["wire"]
    assert (entry.name, entry.key, entry.offset, entry.byte_size) == ("wire", key, 0, 64)

    request = pb.ModelInferRequest(model_name="pair")
    first = request.inputs.add(name="INPUT0", datatype="FP32", shape=[4])
    first.parameters["shared_memory_region"].string_param = "wire"
    first.parameters["shared_memory_byte_size"].int64_param = 16
    request.inputs.add(name="INPUT1", datatype="INT32", shape=[4])
    request.raw_input_contents.append(np.array([7, 8, 9, 10], dtype=np.int32).tobytes())
    out = request.outputs.add(name="OUTPUT0")
    out.parameters["shared_memory_region"].string_param = "wire"
    out.parameters["shared_memory_byte_size"].int64_param = 16
    out.parameters["shared_memory_offset"].int64_param = 32
    response = stub.ModelInfer(request)
    assert list(response.raw_output_contents) == [b""]
    assert response.outputs[0].name == "OUTPUT0"
    assert list(response.outputs[0].shape) == [4]
    params = response.outputs[0].parameters
    assert params["shared_memory_region"].string_param == "wire"
    assert params["shared_memory_byte_size"].int64_param == 16
    assert params["shared_memory_offset"].int64_param == 32
    np.testing.assert_array_equal(shm.get_contents_as_numpy(handle, np.float32, [4], offset=32), a)

    stub.SystemSharedMemoryUnregister(pb.SystemSharedMemoryUnregisterRequest(name="wire"))
    assert len(stub.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest()).regions) == 0
    with pytest.raises(grpc.RpcError) as error:
        stub.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest(name="wire"))
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
