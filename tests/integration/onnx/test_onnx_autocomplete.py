"""With auto-completion on (the default, as in Triton) the onnxruntime backend
completes a model's configuration from the ONNX file, as Triton does, and the config endpoint shows
the result:

- no config.pbtxt at all: inputs, outputs, datatypes and dims come from the
  model; a model whose every tensor has a dynamic first dimension batches
  (max_batch_size 4, the batch dimension left out of dims, dynamic_batching on),
  others keep their full shape and max_batch_size 0;
- a rank-1 batching tensor gets dims [1] with reshape [] and still infers;
- a partial config.pbtxt keeps what it says (max_batch_size, a tensor's dims)
  and gains the rest;
- --backend-config=onnxruntime,default-max-batch-size=N changes the default.
"""

import numpy as np
import pytest

from onnx_graphs import OnnxModel, add_sub_graph, cast_graph, identity_graph, onnx_repository
from util import assert_equal_tensors, binary_request, parse_infer_response

PARTIAL = """platform: "onnxruntime_onnx"
max_batch_size: 2
input [ { name: "INPUT1" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""


def repository(root):
    return onnx_repository(root, {
        "auto_add_sub": OnnxModel(add_sub_graph(("batch", 4)), None),
        "auto_fixed": OnnxModel(cast_graph("INT64", "FP64", (2, 3)), None),
        "auto_rank_one": OnnxModel(identity_graph("INT32", ("batch",)), None),
        "partial": OnnxModel(add_sub_graph(("batch", 4)), PARTIAL),
    })


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("repo")))


def config(server, model):
    resp = server.get(f"/v2/models/{model}/config")
    assert resp.status_code == 200, resp.text
    return resp.json()


def tensors(entries):
    return {t["name"]: (t["data_type"], t["dims"]) for t in entries}


def infer(server, model, inputs):
    body, headers = binary_request(inputs)
    return parse_infer_response(server.post(f"/v2/models/{model}/infer", data=body,
                                            headers=headers))


def test_batching_model_without_config_is_completed(server):
    cfg = config(server, "auto_add_sub")
    assert cfg["platform"] == "onnxruntime_onnx"
    assert cfg["backend"] == "onnxruntime"
    assert cfg["max_batch_size"] == 4
    assert "dynamic_batching" in cfg
    assert tensors(cfg["input"]) == {"INPUT0": ("TYPE_FP32", [4]), "INPUT1": ("TYPE_FP32", [4])}
    assert tensors(cfg["output"]) == {"OUTPUT0": ("TYPE_FP32", [4]),
                                      "OUTPUT1": ("TYPE_FP32", [4])}


def test_completed_model_serves_and_metadata_shows_the_batch_dimension(server):
    meta = server.get("/v2/models/auto_add_sub").json()
    assert {t["name"]: t["shape"] for t in meta["inputs"]} == {"INPUT0": [-1, 4],
                                                                "INPUT1": [-1, 4]}
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    resp = infer(server, "auto_add_sub", [("INPUT0", "FP32", a), ("INPUT1", "FP32", a)])
    assert_equal_tensors(resp.tensors["OUTPUT0"], a + a, "FP32")
    assert_equal_tensors(resp.tensors["OUTPUT1"], a - a, "FP32")


def test_fixed_shape_model_keeps_its_full_shape(server):
    cfg = config(server, "auto_fixed")
    assert cfg["max_batch_size"] == 0
    assert "dynamic_batching" not in cfg
    assert tensors(cfg["input"]) == {"INPUT0": ("TYPE_INT64", [2, 3])}
    assert tensors(cfg["output"]) == {"OUTPUT0": ("TYPE_FP64", [2, 3])}
    x = np.array([[1, -2, 3], [2**40, 0, -7]], dtype=np.int64)
    resp = infer(server, "auto_fixed", [("INPUT0", "INT64", x)])
    assert_equal_tensors(resp.tensors["OUTPUT0"], x.astype(np.float64), "FP64")


def test_rank_one_batching_tensor_gets_dims_one_and_empty_reshape(server):
    cfg = config(server, "auto_rank_one")
    assert cfg["max_batch_size"] == 4
    assert cfg["input"][0]["dims"] == [1]
    assert cfg["input"][0]["reshape"] == {"shape": []}
    x = np.array([[5], [-6], [7]], dtype=np.int32)
    resp = infer(server, "auto_rank_one", [("INPUT0", "INT32", x)])
    assert_equal_tensors(resp.tensors["OUTPUT0"], x, "INT32")


def test_partial_config_keeps_its_settings_and_gains_the_rest(server):
    cfg = config(server, "partial")
    assert cfg["max_batch_size"] == 2
    assert "dynamic_batching" not in cfg  # the config chose its batch size; no batcher added
    assert [t["name"] for t in cfg["input"]] == ["INPUT1", "INPUT0"]
    assert tensors(cfg["input"]) == {"INPUT0": ("TYPE_FP32", [4]), "INPUT1": ("TYPE_FP32", [4])}
    assert set(tensors(cfg["output"])) == {"OUTPUT0", "OUTPUT1"}


def test_default_max_batch_size_comes_from_backend_config(inferd, tmp_path_factory):
    server = inferd(repository(tmp_path_factory.mktemp("repo")),
                    extra_args=["--backend-config=onnxruntime,default-max-batch-size=16"])
    assert config(server, "auto_add_sub")["max_batch_size"] == 16
    assert config(server, "auto_fixed")["max_batch_size"] == 0
    server.stop()
