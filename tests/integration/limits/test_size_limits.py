"""Request size limits (docs/limits.md): a body past --http-max-input-size gets 413
and a request head past --http-max-header-size gets 431, each with a message naming
the limit and its flag; shapes whose element count overflows or does not match the
data get 400 naming the input; a gRPC message past --grpc-max-input-size fails
RESOURCE_EXHAUSTED. After each, the server still serves good requests."""

import gzip

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from util import assert_error, binary_request, json_request, single_identity

MODEL = "big"  # INPUT0 FP32 [-1]
MAX_BODY = 64 * 1024
MAX_HEAD = 2048
MAX_GRPC = 32 * 1024


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({MODEL: single_identity(MODEL, "FP32", [-1])},
                  extra_args=[f"--http-max-input-size={MAX_BODY}",
                              f"--http-max-header-size={MAX_HEAD}",
                              f"--grpc-max-input-size={MAX_GRPC}"])


def floats(count: int) -> np.ndarray:
    return np.arange(count, dtype=np.float32)


def assert_still_serves(server):
    body, headers = binary_request([("INPUT0", "FP32", floats(4))])
    resp = server.post(f"/v2/models/{MODEL}/infer", data=body, headers=headers)
    assert resp.status_code == 200, resp.text


def test_a_body_within_the_limit_is_served(server):
    body, headers = binary_request([("INPUT0", "FP32", floats(MAX_BODY // 4 - 100))])
    assert len(body) <= MAX_BODY
    resp = server.post(f"/v2/models/{MODEL}/infer", data=body, headers=headers)
    assert resp.status_code == 200, resp.text


def test_a_body_past_the_limit_gets_413_naming_the_flag(server):
    body, headers = binary_request([("INPUT0", "FP32", floats(MAX_BODY // 4 + 10))])
    resp = server.post(f"/v2/models/{MODEL}/infer", data=body, headers=headers)
    assert_error(resp, 413, str(MAX_BODY), "--http-max-input-size")
    assert_still_serves(server)


def test_a_body_that_inflates_past_the_limit_gets_413(server):
    body, headers = binary_request([("INPUT0", "FP32", np.zeros(MAX_BODY, np.float32))])
    packed = gzip.compress(body)
    assert len(packed) < MAX_BODY
    resp = server.post(f"/v2/models/{MODEL}/infer", data=packed,
                       headers={**headers, "Content-Encoding": "gzip"})
    assert_error(resp, 413, "decompressed", str(MAX_BODY), "--http-max-input-size")
    assert_still_serves(server)


def test_a_head_past_the_limit_gets_431_naming_the_flag(server):
    resp = server.get("/v2/health/ready", headers={"X-Padding": "p" * (MAX_HEAD + 10)})
    assert_error(resp, 431, str(MAX_HEAD), "--http-max-header-size")
    assert_still_serves(server)


def test_a_shape_whose_element_count_overflows_gets_400_naming_the_input(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2**40, 2**40],
                        "data": [1, 2]}]}
    resp = server.post(f"/v2/models/{MODEL}/infer", json=body)
    assert_error(resp, 400, "INPUT0", "too large")
    assert_still_serves(server)


def test_a_huge_shape_without_its_data_gets_400_naming_the_input(server):
    # Every element must be in the request: a billion-element shape with two
    # values allocates nothing.
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [10**9],
                        "data": [1, 2]}]}
    resp = server.post(f"/v2/models/{MODEL}/infer", json=body)
    assert_error(resp, 400, "INPUT0", "1000000000")
    body, headers = binary_request([("INPUT0", "FP32", floats(2))])
    head_end = int(headers["Inference-Header-Content-Length"])
    header = body[:head_end].replace(b'"shape": [2]', b'"shape": [1000000000]')
    headers["Inference-Header-Content-Length"] = str(len(header))
    resp = server.post(f"/v2/models/{MODEL}/infer", data=header + body[head_end:],
                       headers=headers)
    assert_error(resp, 400, "INPUT0")
    assert_still_serves(server)


def test_a_json_array_past_the_body_limit_gets_413(server):
    body = json_request([("INPUT0", "FP32", floats(MAX_BODY // 2))])
    resp = server.post(f"/v2/models/{MODEL}/infer", json=body)
    assert_error(resp, 413, "--http-max-input-size")


def test_a_grpc_message_past_the_limit_fails_resource_exhausted(server):
    client = grpcclient.InferenceServerClient(server.grpc_address)
    try:
        small = grpcclient.InferInput("INPUT0", [16], "FP32")
        small.set_data_from_numpy(floats(16))
        assert client.infer(MODEL, [small]).as_numpy("OUTPUT0").tolist() == floats(16).tolist()
        big = grpcclient.InferInput("INPUT0", [MAX_GRPC], "FP32")
        big.set_data_from_numpy(floats(MAX_GRPC))
        with pytest.raises(InferenceServerException) as error:
            client.infer(MODEL, [big])
        assert "RESOURCE_EXHAUSTED" in str(error.value.status()), error.value
        assert client.infer(MODEL, [small]).as_numpy("OUTPUT0").tolist() == floats(16).tolist()
    finally:
        client.close()
