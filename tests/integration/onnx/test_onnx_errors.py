"""ONNX Runtime failures become clear errors naming the model, and a model that
cannot load never keeps the others from serving.

At load (the model is UNAVAILABLE and the repository index gives the reason):
a corrupt model file, a missing one, a configuration whose datatype, dims or
input names disagree with the model, a batching configuration for a model
without a batch dimension, and a malformed backend parameter. At run time: ONNX
Runtime refusing the inputs' shapes (HTTP error naming the model and the
reason), after which the model still serves good requests.
"""

import numpy as np
import pytest

from onnx_graphs import OnnxModel, add_sub_graph, onnx_config, onnx_repository
from util import Model, assert_equal_tensors, assert_error, binary_request, parse_infer_response

F4 = [("INPUT0", "FP32", [4]), ("INPUT1", "FP32", [4])]
OUT4 = [("OUTPUT0", "FP32", [4]), ("OUTPUT1", "FP32", [4])]

# model name -> (repository entry, words the index reason must hold)
BROKEN = {
    "corrupt_file": (OnnxModel(b"this is not an ONNX model at all",
                               onnx_config("corrupt_file", F4, OUT4, max_batch_size=8)),
                     ["ONNX Runtime cannot load", "corrupt_file", "model.onnx"]),
    "missing_file": (Model(config=onnx_config("missing_file", F4, OUT4, max_batch_size=8)),
                     ["missing_file", "model.onnx does not exist"]),
    "wrong_datatype": (OnnxModel(add_sub_graph(), onnx_config(
        "wrong_datatype", [("INPUT0", "INT32", [4]), ("INPUT1", "FP32", [4])], OUT4,
        max_batch_size=8)),
        ["wrong_datatype", "input 'INPUT0' has data_type TYPE_INT32 in the configuration but "
                           "the model's is FLOAT (TYPE_FP32)"]),
    "wrong_dims": (OnnxModel(add_sub_graph(), onnx_config(
        "wrong_dims", [("INPUT0", "FP32", [5]), ("INPUT1", "FP32", [4])], OUT4,
        max_batch_size=8)),
        ["wrong_dims", "input 'INPUT0' has dims [5] in the configuration but the model's shape "
                       "is [4]"]),
    "unknown_input": (OnnxModel(add_sub_graph(), onnx_config(
        "unknown_input", [("INPUT0", "FP32", [4]), ("INPUTX", "FP32", [4])], OUT4,
        max_batch_size=8)),
        ["unknown_input", "configuration input 'INPUTX' is not an input of the model"]),
    "no_batch_dim": (OnnxModel(add_sub_graph((2, 4)), onnx_config(
        "no_batch_dim", F4, OUT4, max_batch_size=8)),
        ["no_batch_dim", "not a variable batch dimension"]),
    "bad_parameter": (OnnxModel(add_sub_graph(), onnx_config(
        "bad_parameter", F4, OUT4, max_batch_size=8,
        extra='parameters { key: "intra_op_thread_count" value: { string_value: "many" } }\n')),
        ["bad_parameter", "'intra_op_thread_count' is 'many'"]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {name: entry for name, (entry, _) in BROKEN.items()}
    models["good"] = OnnxModel(add_sub_graph(), onnx_config("good", F4, OUT4, max_batch_size=8))
    models["mismatched_shapes"] = OnnxModel(
        add_sub_graph(("n",), ("m",)),
        onnx_config("mismatched_shapes", [("INPUT0", "FP32", [-1]), ("INPUT1", "FP32", [-1])],
                    [("OUTPUT0", "FP32", [-1]), ("OUTPUT1", "FP32", [-1])]))
    return inferd(onnx_repository(tmp_path_factory.mktemp("repo"), models),
                  extra_args=["--exit-on-error=false"], wait_for="live")


@pytest.fixture(scope="module")
def index(server):
    resp = server.post("/v2/repository/index")
    assert resp.status_code == 200
    return {entry["name"]: entry for entry in resp.json()}


@pytest.mark.parametrize("model", list(BROKEN))
def test_model_that_cannot_load_is_unavailable_with_the_reason(index, model):
    entry = index[model]
    assert entry["state"] == "UNAVAILABLE"
    for needle in BROKEN[model][1]:
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"


@pytest.mark.parametrize("model", ["corrupt_file", "wrong_datatype"])
def test_inference_on_an_unavailable_model_is_503(server, model):
    a = np.ones((1, 4), dtype=np.float32)
    body, headers = binary_request([("INPUT0", "FP32", a), ("INPUT1", "FP32", a)])
    assert_error(server.post(f"/v2/models/{model}/infer", data=body, headers=headers), 503, model)


def test_other_models_serve_while_some_failed(server, index):
    assert index["good"]["state"] == "READY"
    assert index["mismatched_shapes"]["state"] == "READY"
    assert server.get("/v2/health/ready").status_code == 400  # not every model is ready
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    body, headers = binary_request([("INPUT0", "FP32", a), ("INPUT1", "FP32", a)])
    resp = parse_infer_response(server.post("/v2/models/good/infer", data=body, headers=headers))
    assert_equal_tensors(resp.tensors["OUTPUT0"], a + a, "FP32")


def test_run_time_shape_error_names_the_model_and_the_reason(server):
    x, y = np.ones(3, dtype=np.float32), np.ones(4, dtype=np.float32)
    body, headers = binary_request([("INPUT0", "FP32", x), ("INPUT1", "FP32", y)])
    resp = server.post("/v2/models/mismatched_shapes/infer", data=body, headers=headers)
    assert resp.status_code in (400, 500), resp.text
    message = assert_error(resp, resp.status_code, "model 'mismatched_shapes' version 1",
                           "ONNX Runtime failed to run the model")
    assert "3" in message and "4" in message  # ORT's reason: the sizes that do not broadcast
    # The model still serves requests that fit.
    body, headers = binary_request([("INPUT0", "FP32", y), ("INPUT1", "FP32", y * 2)])
    ok = parse_infer_response(server.post("/v2/models/mismatched_shapes/infer", data=body,
                                          headers=headers))
    assert_equal_tensors(ok.tensors["OUTPUT0"], y * 3, "FP32")
