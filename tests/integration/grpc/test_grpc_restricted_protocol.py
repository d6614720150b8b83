"""--grpc-restricted-protocol as Triton's: the listed RPC categories answer only
calls whose metadata carry triton-grpc-protocol-<key> with the group's value
(UNAVAILABLE with Triton's message otherwise, nothing done); the rest stay
open; several groups each have their own key. Through tritonclient.grpc and
raw stubs (ModelStreamInfer included)."""

import queue

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from util import single_identity, wait_until

REPO = {
    "loaded": single_identity("loaded", "FP32", [4]),
    "later": single_identity("later", "FP32", [4]),
}
ADMIN = {"triton-grpc-protocol-admin-key": "admin-value"}
OPS = {"triton-grpc-protocol-ops-key": "ops-value"}
ADMIN_REFUSAL = "This protocol is restricted, expecting header 'triton-grpc-protocol-admin-key'"


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(REPO, extra_args=[
        "--model-control-mode=explicit", "--load-model=loaded",
        "--grpc-restricted-protocol=model-repository,shared-memory:admin-key=admin-value",
        "--grpc-restricted-protocol=statistics,logging,trace:Ops-Key=ops-value"])


@pytest.fixture
def client(server):
    client = server.grpc_client()
    yield client
    client.close()


def infer(client, model="loaded", headers=None):
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    return client.infer(model, [tensor], headers=headers).as_numpy("OUTPUT0").tolist()


def test_restricted_rpc_is_refused_without_the_key(server, stubs):
    stub = stubs.stub(server.grpc_address)
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryIndex(stubs.pb.RepositoryIndexRequest())
    assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    assert error.value.details() == ADMIN_REFUSAL


def test_restricted_rpc_is_refused_with_a_wrong_value_or_an_unprefixed_key(server, stubs):
    stub = stubs.stub(server.grpc_address)
    for metadata in ([("triton-grpc-protocol-admin-key", "admin-valuE")],
                     [("admin-key", "admin-value")],
                     [("triton-grpc-protocol-ops-key", "ops-value")]):
        with pytest.raises(grpc.RpcError) as error:
            stub.RepositoryIndex(stubs.pb.RepositoryIndexRequest(), metadata=metadata)
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE, metadata


def test_restricted_rpc_is_served_with_the_key(server, stubs, client):
    stub = stubs.stub(server.grpc_address)
    reply = stub.RepositoryIndex(stubs.pb.RepositoryIndexRequest(),
                                 metadata=list(ADMIN.items()))
    assert {m.name for m in reply.models} == {"loaded", "later"}
    assert client.get_system_shared_memory_status(headers=ADMIN, as_json=True) == {}


def test_unrestricted_rpcs_need_no_key(client):
    assert infer(client) == [1.0, 2.0, 3.0, 4.0]
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("loaded")
    assert client.get_server_metadata().name == "triton"
    assert client.get_model_metadata("loaded").name == "loaded"
    assert client.get_model_config("loaded").config.name == "loaded"


def test_load_and_unload_are_closed_while_inference_stays_open(client):
    with pytest.raises(InferenceServerException, match="This protocol is restricted"):
        client.load_model("later")
    assert not client.is_model_ready("later")
    client.load_model("later", headers=ADMIN)
    assert client.is_model_ready("later")
    assert infer(client, "later") == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(InferenceServerException, match="triton-grpc-protocol-admin-key"):
        client.unload_model("later")
    assert client.is_model_ready("later")
    client.unload_model("later", headers=ADMIN)
    wait_until(lambda: not client.is_model_ready("later"), what="'later' unloaded")


def test_each_group_has_its_own_key(client):
    # The key was given as Ops-Key: gRPC metadata keys are lower case on the wire.
    with pytest.raises(InferenceServerException, match="triton-grpc-protocol-ops-key"):
        client.get_inference_statistics("loaded")
    with pytest.raises(InferenceServerException, match="This protocol is restricted"):
        client.get_inference_statistics("loaded", headers=ADMIN)
    assert client.get_inference_statistics("loaded", headers=OPS).model_stats
    assert client.get_log_settings(headers=OPS, as_json=True)["settings"]
    assert client.get_trace_settings(headers=OPS, as_json=True)["settings"]
    with pytest.raises(InferenceServerException, match="This protocol is restricted"):
        client.get_log_settings(headers=ADMIN)
    with pytest.raises(InferenceServerException, match="This protocol is restricted"):
        client.get_model_repository_index(headers=OPS)


@pytest.fixture(scope="module")
def inference_restricted(inferd):
    return inferd({"loaded": REPO["loaded"]},
                  extra_args=["--grpc-restricted-protocol=inference:infer-key=go"])


def stream_once(server, headers=None):
    results = queue.Queue()
    client = server.grpc_client()
    client.start_stream(callback=lambda result, error: results.put((result, error)),
                        headers=headers)
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    try:
        client.async_stream_infer("loaded", [tensor])
    except InferenceServerException:
        pass  # a refused stream may have ended already: its error reaches the callback
    result, error = results.get(timeout=10)
    client.stop_stream()
    client.close()
    return result, error


def test_restricted_inference_covers_unary_and_stream(inference_restricted):
    server = inference_restricted
    client = server.grpc_client()
    with pytest.raises(InferenceServerException, match="triton-grpc-protocol-infer-key"):
        infer(client)
    assert infer(client, headers={"triton-grpc-protocol-infer-key": "go"}) == [1, 2, 3, 4]
    assert client.is_server_ready()  # health stays open
    client.close()
    result, error = stream_once(server)
    assert result is None and "triton-grpc-protocol-infer-key" in str(error)
    result, error = stream_once(server, headers={"triton-grpc-protocol-infer-key": "go"})
    assert error is None and result.as_numpy("OUTPUT0").tolist() == [1, 2, 3, 4]
    # The HTTP port has its own flag: inference there stays open.
    assert server.post("/v2/models/loaded/infer", json={"inputs": [
        {"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]}]}
                       ).status_code == 200
