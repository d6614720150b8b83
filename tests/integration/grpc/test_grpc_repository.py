"""The model repository extension over gRPC, in EXPLICIT control mode:
RepositoryModelLoad loads a model the server did not load at start, with
Triton's "config" parameter (configuration JSON replacing config.pbtxt) and
"file:<path>" parameters (the model folder's files, as bytes);
RepositoryModelUnload unloads it. The same through tritonclient.grpc's
load_model / unload_model. Errors: a model the repository lacks is reported by
the server, parameters of the wrong type are INVALID_ARGUMENT, and in NONE mode
loading answers UNAVAILABLE.
"""

import json

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from grpc_wire import infer_request, outputs_of
from util import single_identity

REPO = {
    "loaded": single_identity("loaded", "FP32", [4]),
    "later": single_identity("later", "FP32", [4]),
}
DATA = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)


def config_json(name, dims):
    return json.dumps({
        "name": name, "backend": "identity", "max_batch_size": 0,
        "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": dims}],
        "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": dims}],
    })


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(REPO, extra_args=["--model-control-mode=explicit", "--load-model=loaded"])


@pytest.fixture(scope="module")
def stub(server, stubs):
    return stubs.stub(server.grpc_address)


def ready(stub, stubs, name):
    return stub.ModelReady(stubs.pb.ModelReadyRequest(name=name)).ready


def test_load_and_unload_a_model(stub, stubs):
    assert ready(stub, stubs, "loaded") and not ready(stub, stubs, "later")
    stub.RepositoryModelLoad(stubs.pb.RepositoryModelLoadRequest(model_name="later"))
    assert ready(stub, stubs, "later")
    response = stub.ModelInfer(infer_request(stubs, "later", [("INPUT0", "FP32", DATA)]))
    assert np.array_equal(outputs_of(response)["OUTPUT0"][2], DATA)
    stub.RepositoryModelUnload(stubs.pb.RepositoryModelUnloadRequest(model_name="later"))
    assert not ready(stub, stubs, "later")
    with pytest.raises(grpc.RpcError):
        stub.ModelInfer(infer_request(stubs, "later", [("INPUT0", "FP32", DATA)]))


def test_config_parameter_replaces_config_pbtxt(stub, stubs):
    request = stubs.pb.RepositoryModelLoadRequest(model_name="later")
    request.parameters["config"].string_param = config_json("later", [2])
    stub.RepositoryModelLoad(request)
    meta = stub.ModelMetadata(stubs.pb.ModelMetadataRequest(name="later"))
    assert list(meta.inputs[0].shape) == [2]
    data = np.array([5.0, 6.0], dtype=np.float32)
    response = stub.ModelInfer(infer_request(stubs, "later", [("INPUT0", "FP32", data)]))
    assert np.array_equal(outputs_of(response)["OUTPUT0"][2], data)
    stub.RepositoryModelUnload(stubs.pb.RepositoryModelUnloadRequest(model_name="later"))


def test_file_parameters_load_a_model_the_repository_lacks(stub, stubs):
    request = stubs.pb.RepositoryModelLoadRequest(model_name="fresh")
    request.parameters["config"].string_param = config_json("fresh", [4])
    request.parameters["file:1/model.bin"].bytes_param = b"\x00\xffnot text"
    stub.RepositoryModelLoad(request)
    assert ready(stub, stubs, "fresh")
    stub.RepositoryModelUnload(stubs.pb.RepositoryModelUnloadRequest(model_name="fresh"))
    assert not ready(stub, stubs, "fresh")


def test_tritonclient_load_and_unload(server):
    client = server.grpc_client()
    client.load_model("later")
    assert client.is_model_ready("later")
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    assert np.array_equal(client.infer("later", [inp]).as_numpy("OUTPUT0"), DATA)
    client.unload_model("later")
    assert not client.is_model_ready("later")


def test_load_of_a_model_the_repository_lacks_fails(stub, stubs):
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelLoad(stubs.pb.RepositoryModelLoadRequest(model_name="nowhere"))
    assert error.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT,
                                  grpc.StatusCode.UNAVAILABLE)
    assert "nowhere" in error.value.details()
    assert ready(stub, stubs, "loaded")


@pytest.mark.parametrize("key,kind,value", [("config", "bytes_param", b"{}"),
                                            ("file:1/model.bin", "string_param", "text")])
def test_load_parameter_of_the_wrong_type_is_invalid_argument(stub, stubs, key, kind, value):
    request = stubs.pb.RepositoryModelLoadRequest(model_name="later")
    setattr(request.parameters[key], kind, value)
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelLoad(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert key in error.value.details()


def test_unload_dependents_must_be_a_boolean(stub, stubs):
    request = stubs.pb.RepositoryModelUnloadRequest(model_name="loaded")
    request.parameters["unload_dependents"].string_param = "yes"
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelUnload(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert ready(stub, stubs, "loaded")


def test_load_in_none_mode_is_unavailable(inferd, stubs):
    server = inferd(REPO)
    stub = stubs.stub(server.grpc_address)
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelLoad(stubs.pb.RepositoryModelLoadRequest(model_name="loaded"))
    assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(InferenceServerException):
        server.grpc_client().unload_model("loaded")
