"""Every datatype the onnxruntime backend maps (Triton's ONNX table plus BF16)
crosses the backend exactly: an ONNX Identity model per datatype returns its
input bit for bit, in JSON and in binary, over several batch rows; ONNX Cast
models give numpy's astype results, strings included (BYTES <-> ONNX string
tensors, with empty, non-UTF-8 and NUL-holding elements).
"""

import numpy as np
import pytest

from onnx_graphs import OnnxModel, cast_graph, identity_graph, onnx_config, onnx_repository
from util import (ALL_DATATYPES, NUMPY_DTYPE, assert_equal_tensors, binary_request,
                  json_request, parse_infer_response)

# Two rows of three values per datatype, at the edges of each type; floats are
# exactly representable in the type.
VALUES = {
    "BOOL": [[True, False, True], [False, False, True]],
    "UINT8": [[0, 255, 7], [128, 1, 254]],
    "UINT16": [[0, 65535, 300], [32768, 1, 65534]],
    "UINT32": [[0, 2**32 - 1, 70000], [2**31, 1, 123456789]],
    "UINT64": [[0, 2**64 - 1, 2**53 + 1], [2**63, 1, 9007199254740993]],
    "INT8": [[-128, 127, 0], [-1, 1, 42]],
    "INT16": [[-32768, 32767, 0], [-1, 1, 1234]],
    "INT32": [[-2**31, 2**31 - 1, 0], [-1, 1, 123456789]],
    "INT64": [[-2**63, 2**63 - 1, 0], [-(2**53) - 1, 2**53 + 1, 42]],
    "FP16": [[0.5, -2.0, 65504.0], [0.0009765625, -0.0, 1.5]],
    "BF16": [[1.0, -2.5, 0.15625], [65536.0, -1024.0, 2.0**127]],
    "FP32": [[1.5, -2.25, 3.4028234663852886e38], [0.1, 1.0e-30, -7.0]],
    "FP64": [[0.1, 1.0 / 3.0, -1.0e300], [2.5, 2.0**-20, -0.0]],
    "BYTES": [[b"hello", b"", b"inferd"], [b"caf\xc3\xa9", b"a b\tc", b"x" * 300]],
}

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
