"""Every datatype the onnxruntime backend maps (Triton's ONNX table plus BF16)
crosses the backend exactly: an ONNX Identity model per datatype returns its
input bit for bit, in JSON and in binary, over several batch rows; ONNX Cast
models give numpy's astype results, strings included (BYTES <-> ONNX string
tensors, with empty, non-UTF-8 and NUL-holding elements).
"""

import numpy as np
import pytest

from onnx_graphs import OnnxModel, cast_graph, identity_graph, onnx_config, onnx_repository
from util import (ALL_DATATYPES, EDGE_VALUES, NUMPY_DTYPE, assert_equal_tensors,
                  binary_request, json_request, parse_infer_response)

# Two rows of three values per datatype, at the edges of each type: the shared
# EDGE_VALUES, with the FP64 rows this test has always cast (2**-20 where the
# shared rows have 2**-1000).
VALUES = {**EDGE_VALUES, "FP64": [[0.1, 1.0 / 3.0, -1.0e300], [2.5, 2.0**-20, -0.0]]}

# (from, to, input rows, expected rows or None for numpy's astype)
CASTS = [
    ("FP32", "FP16", [[0.5, -2.0, 1024.0], [3.0, 0.25, -8.0]], None),
    ("INT32", "FP64", [[-7, 0, 2**31 - 1], [1, 2, 3]], None),
    ("FP64", "INT64", [[1.9, -1.9, 1e15], [0.0, 42.5, -3.0]], None),
    ("UINT8", "BOOL", [[0, 1, 255], [2, 0, 0]], None),
    ("INT64", "BYTES", [[-12, 0, 2**40], [7, 8, 9]],
     [[b"-12", b"0", b"1099511627776"], [b"7", b"8", b"9"]]),
    ("BYTES", "INT32", [[b"-5", b"17", b"0"], [b"2147483647", b"3", b"-1"]],
     [[-5, 17, 0], [2147483647, 3, -1]]),
]


def cast_name(src, dst):
    return f"cast_{src.lower()}_to_{dst.lower()}"


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {
        f"onnx_{dt.lower()}": OnnxModel(identity_graph(dt), onnx_config(
            f"onnx_{dt.lower()}", [("INPUT0", dt, [3])], [("OUTPUT0", dt, [3])], max_batch_size=4))
        for dt in ALL_DATATYPES
    }
    for src, dst, _, _ in CASTS:
        models[cast_name(src, dst)] = OnnxModel(cast_graph(src, dst), onnx_config(
            cast_name(src, dst), [("INPUT0", src, [3])], [("OUTPUT0", dst, [3])],
            max_batch_size=4))
    return inferd(onnx_repository(tmp_path_factory.mktemp("repo"), models))


def values(datatype, rows=None):
    return np.array(rows if rows is not None else VALUES[datatype], dtype=NUMPY_DTYPE[datatype])


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_identity_binary_round_trips_every_datatype(server, datatype):
    data = values(datatype)
    body, headers = binary_request([("INPUT0", datatype, data)], outputs=["OUTPUT0"])
    resp = parse_infer_response(server.post(f"/v2/models/onnx_{datatype.lower()}/infer",
                                            data=body, headers=headers))
    assert resp.header["outputs"][0]["datatype"] == datatype
    assert_equal_tensors(resp.tensors["OUTPUT0"], data, datatype)


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_identity_json_round_trips_every_datatype(server, datatype):
    data = values(datatype)
    resp = parse_infer_response(server.post(f"/v2/models/onnx_{datatype.lower()}/infer",
                                            json=json_request([("INPUT0", datatype, data)])))
    assert_equal_tensors(resp.tensors["OUTPUT0"], data, datatype)


def test_strings_with_nul_and_non_utf8_bytes(server):
    data = np.array([[b"\x00", b"\xff\xfe", b"a\x00b"], [b"", b"\xc3", b"\n"]], dtype=np.object_)
    body, headers = binary_request([("INPUT0", "BYTES", data)], outputs=["OUTPUT0"])
    resp = parse_infer_response(server.post("/v2/models/onnx_bytes/infer", data=body,
                                            headers=headers))
    assert_equal_tensors(resp.tensors["OUTPUT0"], data, "BYTES")


@pytest.mark.parametrize("src,dst,rows,expected", CASTS,
                         ids=[cast_name(s, d) for s, d, _, _ in CASTS])
def test_cast_equals_numpy(server, src, dst, rows, expected):
    data = values(src, rows)
    body, headers = binary_request([("INPUT0", src, data)], outputs=["OUTPUT0"])
    resp = parse_infer_response(server.post(f"/v2/models/{cast_name(src, dst)}/infer",
                                            data=body, headers=headers))
    want = values(dst, expected) if expected is not None else data.astype(NUMPY_DTYPE[dst])
    assert_equal_tensors(resp.tensors["OUTPUT0"], want, dst)
