"""Per-key quotas (the auth file's rate_limit_rps): past its bucket a key is
answered 429 with Retry-After over HTTP and RESOURCE_EXHAUSTED with a
retry-after trailer over gRPC, while other keys go on; the refusals are
counted per key. The bucket refills at the key's rate (unit-tested in
simulated time, common/auth/token_bucket_test.cc); here the rate is so low
that no token comes back during the test."""

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from auth_keys import REPO, key_entry, write_keys
from util import REQUEST_TIMEOUT_S

BODY = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]}]}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    path = tmp_path_factory.mktemp("quota") / "keys.json"
    write_keys(path, [
        key_entry("limited", "limited-secret", ["infer"], rate_limit_rps=0.01, burst=3),
        key_entry("grpc-limited", "grpc-secret", ["infer"], rate_limit_rps=0.01, burst=2),
        key_entry("free", "free-secret", ["admin"]),
    ])
    return inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])


def post(server, secret):
    return requests.post(f"{server.url}/v2/models/identity/infer", json=BODY,
                         headers={"Authorization": f"Bearer {secret}"}, timeout=REQUEST_TIMEOUT_S)


def test_past_its_quota_a_key_gets_429_with_retry_after(server):
    assert [post(server, "limited-secret").status_code for _ in range(3)] == [200] * 3
    refused = post(server, "limited-secret")
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "API key 'limited' is over its quota of 0.01 requests a second" in refused.text
    assert post(server, "free-secret").status_code == 200  # other keys go on
    metrics = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics",
                           headers={"Authorization": "Bearer free-secret"},
                           timeout=REQUEST_TIMEOUT_S).text
    assert 'inferd_auth_requests_total{key="limited",result="rate_limited"} 1' in metrics
    assert 'inferd_auth_requests_total{key="limited",result="allowed"} 3' in metrics


def test_over_grpc_it_is_resource_exhausted_with_a_retry_after_trailer(server):
    client = server.grpc_client()
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    headers = {"authorization": "Bearer grpc-secret"}
    try:
        for _ in range(2):
            client.infer("identity", [tensor], headers=headers)
        with pytest.raises(InferenceServerException) as refused:
            client.infer("identity", [tensor], headers=headers)
        assert refused.value.status() == "StatusCode.RESOURCE_EXHAUSTED"
        assert "over its quota" in refused.value.message()
    finally:
        client.close()
    # The trailer, which tritonclient does not show: read with grpcio itself.
    import grpc
    from tritonclient.grpc import service_pb2, service_pb2_grpc
    with grpc.insecure_channel(server.grpc_address) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        request = service_pb2.ModelInferRequest(model_name="identity")
        with pytest.raises(grpc.RpcError) as error:
            stub.ModelInfer(request, metadata=[("authorization", "Bearer grpc-secret")])
        assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(error.value.trailing_metadata())
        assert int(trailers["retry-after"]) >= 1
