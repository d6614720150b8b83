"""Bad requests get the exact HTTP status and a {"error": "..."} body whose message
names what was wrong (model, version, input or output name), and never hurt the
server: after each one /v2/health/live is still 200, and good requests still
succeed once all the bad ones have been sent.

Covered: unknown model or version (404), a model that failed to load (503), and
400 for wrong datatype, wrong shape, batch above max_batch_size, missing input,
unknown input, unknown requested output, malformed JSON, binary sizes that do not
add up, element counts that do not match the shape, and a corrupt gzip body.
"""

import json

import numpy as np
import pytest

from util import (Model, assert_equal_tensors, assert_error, binary_request, identity_config,
                  json_request, parse_infer_response, single_identity)

MODEL = "identity_fp32"  # INPUT0 FP32 [16], max_batch_size 8
GOOD = np.arange(16, dtype=np.float32).reshape(1, 16) / 4


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        MODEL: single_identity(MODEL, "FP32", [16], max_batch_size=8),
        "two_inputs": identity_config(
            "two_inputs", [("INPUT0", "OUTPUT0", "INT32", [2]), ("INPUT1", "OUTPUT1", "INT32", [2])]),
        "broken_config": Model("this is not a model config {"),
        "unknown_backend": single_identity("unknown_backend", "FP32", [16]).replace(
            'backend: "identity"', 'backend: "no_such_backend"'),
    }, extra_args=["--exit-on-error=false"], wait_for="live")


@pytest.fixture(autouse=True)
def server_still_live_after_each_test(server):
    yield
    assert server.get("/v2/health/live").status_code == 200


def infer(server, body, model=MODEL, **kwargs):
    if isinstance(body, dict):
        return server.post(f"/v2/models/{model}/infer", json=body, **kwargs)
    return server.post(f"/v2/models/{model}/infer", data=body, **kwargs)


def fp32_input(shape, data=None, name="INPUT0", datatype="FP32"):
    count = int(np.prod(shape))
    return {"name": name, "datatype": datatype, "shape": shape,
            "data": data if data is not None else [float(i) for i in range(count)]}


# -- 404 and 503 ---------------------------------------------------------------------


def test_unknown_model_infer_is_404(server):
    resp = infer(server, {"inputs": [fp32_input([1, 16])]}, model="no_such_model")
    assert_error(resp, 404, "no_such_model")


def test_unknown_model_metadata_and_config_are_404(server):
    assert_error(server.get("/v2/models/no_such_model"), 404, "no_such_model")
    assert_error(server.get("/v2/models/no_such_model/config"), 404, "no_such_model")


def test_unknown_version_is_404(server):
    resp = server.post(f"/v2/models/{MODEL}/versions/7/infer",
                       json={"inputs": [fp32_input([1, 16])]})
    assert_error(resp, 404, MODEL, "7")
    assert_error(server.get(f"/v2/models/{MODEL}/versions/7"), 404, MODEL)


@pytest.mark.parametrize("model", ["broken_config", "unknown_backend"])
def test_model_that_failed_to_load_is_503(server, model):
    resp = infer(server, {"inputs": [fp32_input([16])]}, model=model)
    assert_error(resp, 503, model)


# -- 400: tensors that do not match the config -----------------------------------------


def test_wrong_datatype_names_the_input(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [1, 16],
                        "data": list(range(16))}]}
    message = assert_error(infer(server, body), 400, "INPUT0")
    assert "INT32" in message or "FP32" in message


def test_wrong_shape_names_the_input(server):
    assert_error(infer(server, {"inputs": [fp32_input([1, 15])]}), 400, "INPUT0")


def test_wrong_rank_names_the_input(server):
    assert_error(infer(server, {"inputs": [fp32_input([1, 4, 4])]}), 400, "INPUT0")


def test_batch_above_max_batch_size_is_rejected(server):
    assert_error(infer(server, {"inputs": [fp32_input([9, 16])]}), 400, MODEL)


def test_missing_input_names_it(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [2], "data": [1, 2]}]}
    assert_error(infer(server, body, model="two_inputs"), 400, "INPUT1")


def test_unknown_input_names_it(server):
    body = {"inputs": [fp32_input([1, 16]), fp32_input([1, 16], name="BOGUS_INPUT")]}
    assert_error(infer(server, body), 400, "BOGUS_INPUT")


def test_unknown_requested_output_names_it(server):
    body = {"inputs": [fp32_input([1, 16])], "outputs": [{"name": "NO_SUCH_OUTPUT"}]}
    assert_error(infer(server, body), 400, "NO_SUCH_OUTPUT")


def test_unknown_datatype_name_is_rejected(server):
    body = {"inputs": [fp32_input([1, 16], datatype="FLOAT128")]}
    message = assert_error(infer(server, body), 400)
    assert "FLOAT128" in message or "INPUT0" in message


# -- 400: malformed bodies --------------------------------------------------------------


@pytest.mark.parametrize("body", [b"{not json", b"", b"[1, 2, 3]", b'{"inputs": 5}',
                                  b'{"inputs": [{"name": "INPUT0"}]}'])
def test_malformed_json_is_400(server, body):
    assert_error(infer(server, body, headers={"Content-Type": "application/json"}), 400)


def test_json_element_count_not_matching_shape_names_the_input(server):
    body = {"inputs": [fp32_input([1, 16], data=[1.0] * 15)]}
    assert_error(infer(server, body), 400, "INPUT0")


def test_json_data_of_wrong_kind_names_the_input(server):
    body = {"inputs": [fp32_input([1, 16], data=["x"] * 16)]}
    assert_error(infer(server, body), 400, "INPUT0")


def binary_body(declared_size=None, actual_bytes=None, header_len_delta=0):
    """A binary request for INPUT0 [1, 16] FP32 (64 bytes) with sizes tampered."""
    raw = GOOD.tobytes() if actual_bytes is None else actual_bytes
    header = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 16],
                          "parameters": {"binary_data_size":
                                         len(raw) if declared_size is None else declared_size}}]}
    head = json.dumps(header).encode()
    headers = {"Inference-Header-Content-Length": str(len(head) + header_len_delta),
               "Content-Type": "application/octet-stream"}
    return head + raw, headers


def test_binary_data_size_beyond_body_names_the_input(server):
    body, headers = binary_body(declared_size=128)
    assert_error(infer(server, body, headers=headers), 400, "INPUT0")


def test_binary_bytes_left_over_after_inputs_is_400(server):
    body, headers = binary_body(actual_bytes=GOOD.tobytes() + b"\x00" * 8, declared_size=64)
    assert_error(infer(server, body, headers=headers), 400)


def test_binary_size_not_matching_shape_names_the_input(server):
    body, headers = binary_body(actual_bytes=GOOD.tobytes()[:60])
    assert_error(infer(server, body, headers=headers), 400, "INPUT0")


def test_header_length_beyond_body_is_400(server):
    body, headers = binary_body(header_len_delta=10_000)
    assert_error(infer(server, body, headers=headers), 400)


def test_header_length_cutting_json_short_is_400(server):
    body, headers = binary_body(header_len_delta=-5)
    assert_error(infer(server, body, headers=headers), 400)


def test_corrupt_gzip_body_is_400(server):
    resp = infer(server, b"\x1f\x8b\x08\x00 definitely not gzip data",
                 headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert_error(resp, 400)


def test_corrupt_deflate_body_is_400(server):
    resp = infer(server, b"not deflate data at all",
                 headers={"Content-Encoding": "deflate", "Content-Type": "application/json"})
    assert_error(resp, 400)


# -- after all of the above ---------------------------------------------------------------


def test_good_requests_succeed_after_bad_ones(server):
    # Defined last: pytest runs tests in file order, so every bad request above
    # has been sent to this same server.
    result = parse_infer_response(infer(server, json_request([("INPUT0", "FP32", GOOD)])))
    assert_equal_tensors(result.tensors["OUTPUT0"], GOOD, "FP32")
    body, headers = binary_request([("INPUT0", "FP32", GOOD)], outputs=["OUTPUT0"])
    result = parse_infer_response(infer(server, body, headers=headers))
    assert_equal_tensors(result.tensors["OUTPUT0"], GOOD, "FP32")
    assert server.get(f"/v2/models/{MODEL}/ready").status_code == 200
