"""Every datatype LibTorch has travels through a TorchScript model unchanged,
and BYTES inputs reach forward() as List[str] (and List[str] outputs come back
as BYTES).

Checked: a copying model per datatype (BOOL, UINT8, INT8, INT16, INT32, INT64,
FP16, BF16, FP32, FP64) returns the edge values of util.EDGE_VALUES bit for
bit, batched; a List[str] model returns each word's length and the words
upper-cased, as torch computes them, over HTTP and gRPC; a datatype LibTorch
lacks (UINT32) leaves its model UNAVAILABLE with the reason.
"""

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from torch_models import (TORCH_DTYPE, Copy, TorchModel, Words, save, script, torch_config,
                          torch_repository)
from util import (EDGE_VALUES, NUMPY_DTYPE, assert_equal_tensors, binary_request,
                  parse_infer_response)

DATATYPES = list(TORCH_DTYPE)
WORDS = [b"hello", b"", b"inferd", b"TorchScript", b"a b\tc", b"x" * 300, b"caf\xc3\xa9"]
WORDS_MODULE = script(Words())


def words_of(words):
    """What the scripted module computes in Python (TorchScript's str is bytes of
    UTF-8: len("café") is 5 and upper() leaves "é")."""
    lengths, upper = WORDS_MODULE([w.decode() for w in words])
    return lengths.numpy(), np.array([u.encode() for u in upper], dtype=np.object_)


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    copy = save(script(Copy()))
    models = {
        f"copy_{dt.lower()}": TorchModel(copy, torch_config(
            f"copy_{dt.lower()}", [("INPUT__0", dt, [3])], [("OUTPUT__0", dt, [3])],
            max_batch_size=4))
        for dt in DATATYPES}
    models["words"] = TorchModel(save(WORDS_MODULE), torch_config(
        "words", [("words", "BYTES", [-1])],
        [("LENGTHS__0", "INT64", [-1]), ("UPPER__1", "BYTES", [-1])]))
    models["copy_uint32"] = TorchModel(copy, torch_config(
        "copy_uint32", [("INPUT__0", "UINT32", [3])], [("OUTPUT__0", "UINT32", [3])],
        max_batch_size=4))
    return inferd(torch_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


@pytest.mark.parametrize("datatype", DATATYPES)
def test_edge_values_come_back_unchanged(server, datatype):
    values = np.array(EDGE_VALUES[datatype], dtype=NUMPY_DTYPE[datatype])
    body, headers = binary_request([("INPUT__0", datatype, values)])
    resp = parse_infer_response(server.post(f"/v2/models/copy_{datatype.lower()}/infer",
                                            data=body, headers=headers))
    assert resp.header["outputs"][0]["datatype"] == datatype
    assert_equal_tensors(resp.tensors["OUTPUT__0"], values, datatype)


def test_words_reach_forward_as_a_list_of_str_over_http(server):
    words = np.array(WORDS, dtype=np.object_)
    body, headers = binary_request([("words", "BYTES", words)])
    resp = parse_infer_response(server.post("/v2/models/words/infer", data=body,
                                            headers=headers))
    lengths, upper = words_of(WORDS)
    assert_equal_tensors(resp.tensors["LENGTHS__0"], lengths, "INT64")
    assert_equal_tensors(resp.tensors["UPPER__1"], upper, "BYTES")


def test_words_over_grpc(server):
    client = server.grpc_client()
    words = [b"caf\xc3\xa9", b"ok"]
    tensor = grpcclient.InferInput("words", [2], "BYTES")
    tensor.set_data_from_numpy(np.array(words, dtype=np.object_))
    result = client.infer("words", [tensor])
    lengths, upper = words_of(words)
    assert result.as_numpy("LENGTHS__0").tolist() == lengths.tolist() == [5, 2]
    assert result.as_numpy("UPPER__1").tolist() == upper.tolist()


def test_a_datatype_libtorch_lacks_leaves_the_model_unavailable(server):
    index = {m["name"]: m for m in server.post("/v2/repository/index").json()}
    assert index["copy_uint32"]["state"] == "UNAVAILABLE"
    assert "TYPE_UINT32, which LibTorch has no tensor type for" in index["copy_uint32"]["reason"]
    assert index["copy_int64"]["state"] == "READY"
