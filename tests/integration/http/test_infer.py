"""Inference over HTTP with identity models, through both the genuine tritonclient
and hand-built requests (so the wire format itself is checked).

For every datatype (BOOL ... BYTES, FP16 and BF16 included) a JSON request and a
binary-extension request must round-trip the exact values, with several batch
rows in one request. Also checked: requesting one output of a two-output model,
request ids echoed, the binary_data_output request parameter, gzip and deflate
request bodies, variable (-1) dimensions, and nested JSON data.
"""

import gzip
import json
import zlib

import numpy as np
import pytest
import tritonclient.http as httpclient

from util import (ALL_DATATYPES, EDGE_VALUES, NUMPY_DTYPE, assert_equal_tensors, binary_request,
                  identity_config, json_request, parse_infer_response, single_identity)

ROW = 3  # elements per batch row in the per-datatype models
VALUES = EDGE_VALUES

# BYTES that are not UTF-8 can only travel as binary data.
BINARY_ONLY_BYTES = [[b"\xff\x00\xfe", b"\x00", b""], [b"\x80" * 5, b"ok", b"\xc3"]]


def model_name(datatype):
    return f"identity_{datatype.lower()}"


def values(datatype):
    return np.array(VALUES[datatype], dtype=NUMPY_DTYPE[datatype])


@pytest.fixture(scope="module")
def server(inferd):
    models = {model_name(dt): single_identity(model_name(dt), dt, [ROW], max_batch_size=8)
              for dt in ALL_DATATYPES}
    models["two_outputs"] = identity_config(
        "two_outputs",
        [("INPUT0", "OUTPUT0", "FP32", [4]), ("INPUT1", "OUTPUT1", "INT32", [4])],
        max_batch_size=4)
    models["variable_dims"] = single_identity("variable_dims", "INT32", [-1, -1])
    models["batched_variable"] = single_identity("batched_variable", "FP32", [-1],
                                                 max_batch_size=8)
    return inferd(models)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


# -- every datatype: raw wire format -------------------------------------------


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_json_request_round_trips_every_datatype(server, datatype):
    data = values(datatype)
    resp = server.post(f"/v2/models/{model_name(datatype)}/infer",
                       json=json_request([("INPUT0", datatype, data)]))
    result = parse_infer_response(resp)
    assert result.header["model_name"] == model_name(datatype)
    [out] = result.header["outputs"]
    assert out["name"] == "OUTPUT0"
    assert out["datatype"] == datatype
    assert out["shape"] == [2, ROW]
    assert result.binary["OUTPUT0"] is False
    assert_equal_tensors(result.tensors["OUTPUT0"], data, datatype)


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_binary_request_round_trips_every_datatype(server, datatype):
    data = values(datatype)
    body, headers = binary_request([("INPUT0", datatype, data)], outputs=["OUTPUT0"])
    resp = server.post(f"/v2/models/{model_name(datatype)}/infer", data=body, headers=headers)
    result = parse_infer_response(resp)
    [out] = result.header["outputs"]
    assert (out["name"], out["datatype"], out["shape"]) == ("OUTPUT0", datatype, [2, ROW])
    assert result.binary["OUTPUT0"] is True
    assert "Inference-Header-Content-Length" in resp.headers
    assert_equal_tensors(result.tensors["OUTPUT0"], data, datatype)


def test_binary_bf16_output_is_upper_half_of_float32(server):
    data = values("BF16")
    body, headers = binary_request([("INPUT0", "BF16", data)], outputs=["OUTPUT0"])
    resp = server.post("/v2/models/identity_bf16/infer", data=body, headers=headers)
    header_len = int(resp.headers["Inference-Header-Content-Length"])
    raw = resp.content[header_len:]
    expected = (data.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
    assert raw == expected


def test_binary_bytes_that_are_not_utf8_round_trip(server):
    data = np.array(BINARY_ONLY_BYTES, dtype=np.object_)
    body, headers = binary_request([("INPUT0", "BYTES", data)], outputs=["OUTPUT0"])
    result = parse_infer_response(
        server.post("/v2/models/identity_bytes/infer", data=body, headers=headers))
    assert_equal_tensors(result.tensors["OUTPUT0"], data, "BYTES")


def test_binary_input_with_json_output(server):
    data = values("INT64")
    body, headers = binary_request([("INPUT0", "INT64", data)], outputs=["OUTPUT0"],
                                   binary_outputs=False)
    result = parse_infer_response(
        server.post("/v2/models/identity_int64/infer", data=body, headers=headers))
    assert result.binary["OUTPUT0"] is False
    assert result.header["outputs"][0]["data"] == [x for row in VALUES["INT64"] for x in row]


# -- every datatype: tritonclient ------------------------------------------------


def tritonclient_infer(client, datatype, data, binary):
    inp = httpclient.InferInput("INPUT0", list(data.shape), datatype)
    inp.set_data_from_numpy(data, binary_data=binary)
    out = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
    return client.infer(model_name(datatype), [inp], outputs=[out])


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_tritonclient_binary_round_trips_every_datatype(client, datatype):
    data = values(datatype)
    result = tritonclient_infer(client, datatype, data, binary=True)
    output = result.get_output("OUTPUT0")
    assert (output["datatype"], output["shape"]) == (datatype, [2, ROW])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, datatype)


@pytest.mark.parametrize("datatype", [dt for dt in ALL_DATATYPES if dt != "BF16"])
def test_tritonclient_json_round_trips_every_datatype(client, datatype):
    # tritonclient refuses to send BF16 as JSON; the raw JSON test covers it.
    data = values(datatype)
    result = tritonclient_infer(client, datatype, data, binary=False)
    output = result.get_output("OUTPUT0")
    assert (output["datatype"], output["shape"]) == (datatype, [2, ROW])
    assert "data" in output
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, datatype)


def test_full_batch_of_eight_rows(client):
    data = np.arange(8 * ROW, dtype=np.float32).reshape(8, ROW) * 0.25 - 3.0
    result = tritonclient_infer(client, "FP32", data, binary=True)
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "FP32")


def test_single_row_batch(server):
    data = np.array([[7, -8, 9]], dtype=np.int32)
    result = parse_infer_response(server.post(
        "/v2/models/identity_int32/infer", json=json_request([("INPUT0", "INT32", data)])))
    assert result.header["outputs"][0]["shape"] == [1, ROW]
    assert result.header["outputs"][0]["data"] == [7, -8, 9]


def test_nested_json_data_is_accepted(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2, 3],
                        "data": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}]}
    result = parse_infer_response(server.post("/v2/models/identity_fp32/infer", json=body))
    assert result.header["outputs"][0]["data"] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


# -- output selection --------------------------------------------------------------

TWO_INPUTS = [
    ("INPUT0", "FP32", np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=np.float32)),
    ("INPUT1", "INT32", np.array([[10, 20, 30, 40], [-1, -2, -3, -4]], dtype=np.int32)),
]


def test_all_outputs_returned_when_none_requested(server):
    result = parse_infer_response(server.post(
        "/v2/models/two_outputs/infer", json=json_request(TWO_INPUTS)))
    assert sorted(result.tensors) == ["OUTPUT0", "OUTPUT1"]
    assert_equal_tensors(result.tensors["OUTPUT0"], TWO_INPUTS[0][2], "FP32")
    assert_equal_tensors(result.tensors["OUTPUT1"], TWO_INPUTS[1][2], "INT32")


def test_only_requested_output_is_returned(server):
    result = parse_infer_response(server.post(
        "/v2/models/two_outputs/infer", json=json_request(TWO_INPUTS, outputs=["OUTPUT1"])))
    assert [o["name"] for o in result.header["outputs"]] == ["OUTPUT1"]
    assert_equal_tensors(result.tensors["OUTPUT1"], TWO_INPUTS[1][2], "INT32")


def test_tritonclient_only_requested_output_is_returned(client):
    inputs = []
    for name, datatype, data in TWO_INPUTS:
        inp = httpclient.InferInput(name, list(data.shape), datatype)
        inp.set_data_from_numpy(data, binary_data=True)
        inputs.append(inp)
    result = client.infer("two_outputs", inputs,
                          outputs=[httpclient.InferRequestedOutput("OUTPUT1", binary_data=True)])
    assert result.as_numpy("OUTPUT0") is None
    assert_equal_tensors(result.as_numpy("OUTPUT1"), TWO_INPUTS[1][2], "INT32")


def test_binary_and_json_outputs_mixed_in_one_response(server):
    body, headers = binary_request(TWO_INPUTS)
    header_len = int(headers["Inference-Header-Content-Length"])
    header = json.loads(body[:header_len])
    header["outputs"] = [{"name": "OUTPUT0", "parameters": {"binary_data": True}},
                         {"name": "OUTPUT1", "parameters": {"binary_data": False}}]
    head = json.dumps(header).encode()
    headers["Inference-Header-Content-Length"] = str(len(head))
    result = parse_infer_response(server.post(
        "/v2/models/two_outputs/infer", data=head + body[header_len:], headers=headers))
    assert result.binary == {"OUTPUT0": True, "OUTPUT1": False}
    assert_equal_tensors(result.tensors["OUTPUT0"], TWO_INPUTS[0][2], "FP32")
    assert_equal_tensors(result.tensors["OUTPUT1"], TWO_INPUTS[1][2], "INT32")


# -- request id, binary_data_output, compression --------------------------------------


def test_request_id_is_echoed(server):
    body = json_request([TWO_INPUTS[0], TWO_INPUTS[1]], id="request-42")
    result = parse_infer_response(server.post("/v2/models/two_outputs/infer", json=body))
    assert result.header["id"] == "request-42"


def test_tritonclient_request_id_is_echoed(client):
    data = values("INT8")
    inp = httpclient.InferInput("INPUT0", list(data.shape), "INT8")
    inp.set_data_from_numpy(data)
    result = client.infer("identity_int8", [inp], request_id="abc-123")
    assert result.get_response()["id"] == "abc-123"
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "INT8")


def test_binary_data_output_parameter_makes_all_outputs_binary(server):
    body = json_request(TWO_INPUTS, parameters={"binary_data_output": True})
    resp = server.post("/v2/models/two_outputs/infer", json=body)
    result = parse_infer_response(resp)
    assert "Inference-Header-Content-Length" in resp.headers
    assert result.binary == {"OUTPUT0": True, "OUTPUT1": True}
    sizes = {o["name"]: o["parameters"]["binary_data_size"] for o in result.header["outputs"]}
    assert sizes == {"OUTPUT0": 2 * 4 * 4, "OUTPUT1": 2 * 4 * 4}
    assert_equal_tensors(result.tensors["OUTPUT0"], TWO_INPUTS[0][2], "FP32")
    assert_equal_tensors(result.tensors["OUTPUT1"], TWO_INPUTS[1][2], "INT32")


@pytest.mark.parametrize("encoding, compress", [("gzip", gzip.compress), ("deflate", zlib.compress)],
                         ids=["gzip", "deflate"])
def test_compressed_json_request_body(server, encoding, compress):
    data = values("FP64")
    raw = json.dumps(json_request([("INPUT0", "FP64", data)])).encode()
    resp = server.post("/v2/models/identity_fp64/infer", data=compress(raw),
                       headers={"Content-Encoding": encoding, "Content-Type": "application/json"})
    assert_equal_tensors(parse_infer_response(resp).tensors["OUTPUT0"], data, "FP64")


@pytest.mark.parametrize("encoding, compress", [("gzip", gzip.compress), ("deflate", zlib.compress)],
                         ids=["gzip", "deflate"])
def test_compressed_binary_request_body(server, encoding, compress):
    data = values("UINT16")
    body, headers = binary_request([("INPUT0", "UINT16", data)], outputs=["OUTPUT0"])
    headers["Content-Encoding"] = encoding
    resp = server.post("/v2/models/identity_uint16/infer", data=compress(body), headers=headers)
    assert_equal_tensors(parse_infer_response(resp).tensors["OUTPUT0"], data, "UINT16")


@pytest.mark.parametrize("algorithm", ["gzip", "deflate"])
def test_tritonclient_compressed_request(client, algorithm):
    data = values("BYTES")
    inp = httpclient.InferInput("INPUT0", list(data.shape), "BYTES")
    inp.set_data_from_numpy(data, binary_data=True)
    result = client.infer("identity_bytes", [inp], request_compression_algorithm=algorithm)
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "BYTES")


# -- variable dimensions -----------------------------------------------------------


@pytest.mark.parametrize("shape", [[1, 1], [2, 5], [4, 3]])
def test_variable_dims_take_the_request_shape(server, shape):
    data = np.arange(np.prod(shape), dtype=np.int32).reshape(shape) - 5
    result = parse_infer_response(server.post(
        "/v2/models/variable_dims/infer", json=json_request([("INPUT0", "INT32", data)])))
    assert result.header["outputs"][0]["shape"] == shape
    assert_equal_tensors(result.tensors["OUTPUT0"], data, "INT32")


@pytest.mark.parametrize("shape", [[1, 1], [3, 7]])
def test_tritonclient_batched_variable_dim(client, shape):
    data = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 0.5)
    inp = httpclient.InferInput("INPUT0", shape, "FP32")
    inp.set_data_from_numpy(data, binary_data=True)
    result = client.infer("batched_variable", [inp])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "FP32")


def test_variable_length_bytes(server):
    data = np.array([[b"a", b"bb", b"ccc"], [b"", b"dddd", b"e" * 1000]], dtype=np.object_)
    body, headers = binary_request([("INPUT0", "BYTES", data)], outputs=["OUTPUT0"])
    result = parse_infer_response(
        server.post("/v2/models/identity_bytes/infer", data=body, headers=headers))
    assert result.header["outputs"][0]["parameters"]["binary_data_size"] == 6 * 4 + 1010
    assert_equal_tensors(result.tensors["OUTPUT0"], data, "BYTES")
