"""LibTorch failures become clear errors naming the model, and a model that
cannot load never keeps the others from serving.

At load (the model is UNAVAILABLE and the repository index gives the reason):
a corrupt model.pt, a missing one, a configured input that is neither a
forward() argument nor named <name>__<index>, a forward() argument no input
feeds, a tuple output not named <name>__<index>, and a malformed parameter.
At run time: forward() failing on the inputs' shapes (HTTP 400 naming the
model and TorchScript's reason, trimmed to its one line), an output whose
dtype is not the configured one, and a request lacking an input; the model
then still serves good requests.
"""

import numpy as np
import pytest

from torch_models import (AddMul, Copy, Subtract, TorchModel, linear, save, script,
                          torch_config, torch_repository, trace)
from util import Model, assert_equal_tensors, assert_error, binary_request, parse_infer_response

import torch  # noqa: E402  (after torch_models, which skips when the backend is missing)

F4 = [("INPUT__0", "FP32", [4]), ("INPUT__1", "FP32", [4])]
OUT4 = [("OUTPUT__0", "FP32", [4]), ("OUTPUT__1", "FP32", [4])]
ADD_MUL = save(script(AddMul()))

# model name -> (repository entry, words the index reason must hold)
BROKEN = {
    "corrupt_file": (TorchModel(b"this is not a TorchScript archive",
                                torch_config("corrupt_file", F4, OUT4, max_batch_size=8)),
                     ["LibTorch cannot load", "corrupt_file", "model.pt",
                      "failed reading zip archive"]),
    "missing_file": (Model(config=torch_config("missing_file", F4, OUT4, max_batch_size=8)),
                     ["missing_file", "model.pt does not exist"]),
    "unknown_input": (TorchModel(ADD_MUL, torch_config(
        "unknown_input", [("INPUT__0", "FP32", [4]), ("INPUTX", "FP32", [4])], OUT4,
        max_batch_size=8)),
        ["unknown_input", "input 'INPUTX' is neither an argument of forward(x: Tensor, "
                          "y: Tensor) -> Tuple[Tensor, Tensor] nor named <name>__<index>"]),
    "unfed_argument": (TorchModel(ADD_MUL, torch_config(
        "unfed_argument", [("INPUT__0", "FP32", [4])], OUT4, max_batch_size=8)),
        ["unfed_argument", "forward argument 'y' gets no input"]),
    "unindexed_output": (TorchModel(ADD_MUL, torch_config(
        "unindexed_output", F4, [("SUM", "FP32", [4])], max_batch_size=8)),
        ["unindexed_output", "output 'SUM' is not named <name>__<index>"]),
    "bad_parameter": (TorchModel(ADD_MUL, torch_config(
        "bad_parameter", F4, OUT4, max_batch_size=8,
        extra='parameters { key: "INTRA_OP_THREAD_COUNT" value: { string_value: "many" } }\n')),
        ["bad_parameter", "parameter 'INTRA_OP_THREAD_COUNT' is 'many'"]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {name: entry for name, (entry, _) in BROKEN.items()}
    models["good"] = TorchModel(ADD_MUL, torch_config("good", F4, OUT4, max_batch_size=8))
    models["mismatched_shapes"] = TorchModel(save(script(Subtract())), torch_config(
        "mismatched_shapes", [("INPUT__0", "FP32", [-1]), ("INPUT__1", "FP32", [-1])],
        [("OUTPUT__0", "FP32", [-1])]))
    models["fp64_into_fp32_linear"] = TorchModel(
        save(trace(linear(4, 2), torch.zeros(1, 4))), torch_config(
            "fp64_into_fp32_linear", [("INPUT__0", "FP64", [4])], [("OUTPUT__0", "FP64", [2])],
            max_batch_size=4))
    models["wrong_output_type"] = TorchModel(save(script(Copy())), torch_config(
        "wrong_output_type", [("INPUT__0", "FP32", [2])], [("OUTPUT__0", "INT32", [2])]))
    return inferd(torch_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


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
    assert "\n" not in entry["reason"]  # LibTorch's backtrace and source lines are cut


def test_inference_on_an_unavailable_model_is_503(server):
    a = np.ones((1, 4), dtype=np.float32)
    body, headers = binary_request([("INPUT__0", "FP32", a), ("INPUT__1", "FP32", a)])
    assert_error(server.post("/v2/models/corrupt_file/infer", data=body, headers=headers), 503,
                 "corrupt_file")


def test_other_models_serve_while_some_failed(server, index):
    assert index["good"]["state"] == "READY"
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    body, headers = binary_request([("INPUT__0", "FP32", a), ("INPUT__1", "FP32", a)])
    resp = parse_infer_response(server.post("/v2/models/good/infer", data=body, headers=headers))
    assert_equal_tensors(resp.tensors["OUTPUT__0"], a + a, "FP32")
    assert_equal_tensors(resp.tensors["OUTPUT__1"], a * a, "FP32")


def test_run_time_shape_error_names_the_model_and_torchscripts_reason(server):
    x, y = np.ones(3, dtype=np.float32), np.ones(4, dtype=np.float32)
    body, headers = binary_request([("INPUT__0", "FP32", x), ("INPUT__1", "FP32", y)])
    resp = server.post("/v2/models/mismatched_shapes/infer", data=body, headers=headers)
    message = assert_error(resp, 400, "model 'mismatched_shapes' version 1",
                           "LibTorch failed to run forward(): The size of tensor a (3) must "
                           "match the size of tensor b (4) at non-singleton dimension 0")
    assert "Traceback" not in message and "\n" not in message
    # The model still serves requests that fit.
    body, headers = binary_request([("INPUT__0", "FP32", y * 5), ("INPUT__1", "FP32", y)])
    ok = parse_infer_response(server.post("/v2/models/mismatched_shapes/infer", data=body,
                                          headers=headers))
    assert_equal_tensors(ok.tensors["OUTPUT__0"], y * 4, "FP32")


def test_run_time_type_error_of_a_traced_model_is_its_one_line(server):
    body, headers = binary_request([("INPUT__0", "FP64", np.ones((2, 4)))])
    message = assert_error(
        server.post("/v2/models/fp64_into_fp32_linear/infer", data=body, headers=headers), 400,
        "model 'fp64_into_fp32_linear' version 1: LibTorch failed to run forward(): mat1 and "
        "mat2 must have the same dtype")
    assert "Traceback" not in message and "\n" not in message


def test_output_of_another_dtype_than_configured_is_an_error(server):
    body, headers = binary_request([("INPUT__0", "FP32", np.ones(2, dtype=np.float32))])
    assert_error(server.post("/v2/models/wrong_output_type/infer", data=body, headers=headers),
                 500, "model 'wrong_output_type' version 1",
                 "output 'OUTPUT__0' came out as torch.float32 but the configuration says "
                 "TYPE_INT32")


def test_request_lacking_an_input_names_it(server):
    a = np.ones((1, 4), dtype=np.float32)
    body, headers = binary_request([("INPUT__0", "FP32", a)])
    resp = server.post("/v2/models/good/infer", data=body, headers=headers)
    assert resp.status_code == 400, resp.text
    assert "INPUT__1" in resp.json()["error"]
