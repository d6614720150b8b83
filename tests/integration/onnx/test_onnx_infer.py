"""ONNX models served by the onnxruntime backend compute what numpy computes.

Models are generated at test time with onnx's helper API. Checked: add/sub and
matmul+relu equal numpy's results exactly (integer-valued floats, so no rounding
differs); a request of several batch rows; one output of two; variable
dimensions, batched and not; concurrent requests of different row counts and
lengths, each answered with its own rows; `platform` or `backend` naming the
backend; a custom default_model_filename; a model.onnx folder holding model.onnx;
and the session parameters (thread counts, execution mode, graph level, raw
session entries) being accepted; two instances running one shared session, or
a session each (share_session_between_instances), answering concurrent
requests each with its own rows.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.http as httpclient

from onnx_graphs import (OnnxModel, add_sub_graph, matmul_relu_graph, onnx_config,
                         onnx_repository, relu_graph)
from util import (assert_equal_tensors, binary_request, json_request, parse_infer_response,
                  settled_stats)

RNG = np.random.default_rng(7)
WEIGHT = RNG.integers(-3, 4, size=(8, 5)).astype(np.float32)

ADD_SUB_TENSORS = dict(
    inputs=[("INPUT0", "FP32", [4]), ("INPUT1", "FP32", [4])],
    outputs=[("OUTPUT0", "FP32", [4]), ("OUTPUT1", "FP32", [4])])

PARAMETERS = """
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
parameters { key: "inter_op_thread_count" value: { string_value: "1" } }
parameters { key: "execution_mode" value: { string_value: "1" } }
parameters { key: "enable_mem_arena" value: { string_value: "0" } }
parameters { key: "session.intra_op.allow_spinning" value: { string_value: "0" } }
optimization { graph { level: 2 } }
"""


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    repo = onnx_repository(tmp_path_factory.mktemp("repo"), {
        "add_sub": OnnxModel(add_sub_graph(), onnx_config("add_sub", max_batch_size=8,
                                                          **ADD_SUB_TENSORS)),
        "add_sub_backend": OnnxModel(add_sub_graph(), onnx_config(
            "add_sub_backend", max_batch_size=8, platform=False, **ADD_SUB_TENSORS)),
        "add_sub_params": OnnxModel(add_sub_graph(), onnx_config(
            "add_sub_params", max_batch_size=8, extra=PARAMETERS, **ADD_SUB_TENSORS)),
        "custom_file": OnnxModel(add_sub_graph(), onnx_config(
            "custom_file", max_batch_size=8, extra='default_model_filename: "net.onnx"\n',
            **ADD_SUB_TENSORS), filename="net.onnx"),
        "model_folder": OnnxModel(add_sub_graph(), onnx_config(
            "model_folder", max_batch_size=8, **ADD_SUB_TENSORS),
            filename="model.onnx/model.onnx"),
        "matmul_relu": OnnxModel(matmul_relu_graph(WEIGHT), onnx_config(
            "matmul_relu", [("INPUT0", "FP32", [8])], [("OUTPUT0", "FP32", [5])],
            max_batch_size=16, extra="dynamic_batching { max_queue_delay_microseconds: 20000 }\n"
                                     "instance_group [ { count: 1, kind: KIND_CPU } ]\n")),
        **{f"matmul_{share}": OnnxModel(matmul_relu_graph(WEIGHT), onnx_config(
            f"matmul_{share}", [("INPUT0", "FP32", [8])], [("OUTPUT0", "FP32", [5])],
            max_batch_size=16,
            extra="instance_group [ { count: 2, kind: KIND_CPU } ]\n"
                  'parameters { key: "share_session_between_instances" '
                  f'value: {{ string_value: "{share}" }} }}\n'))
           for share in ("true", "false")},
        "relu_any_shape": OnnxModel(relu_graph(["a", "b"]), onnx_config(
            "relu_any_shape", [("INPUT0", "FP32", [-1, -1])], [("OUTPUT0", "FP32", [-1, -1])])),
        "relu_batched_rows": OnnxModel(relu_graph(["batch", "length"]), onnx_config(
            "relu_batched_rows", [("INPUT0", "FP32", [-1])], [("OUTPUT0", "FP32", [-1])],
            max_batch_size=8, extra="dynamic_batching { max_queue_delay_microseconds: 20000 }\n"
                                    "instance_group [ { count: 1, kind: KIND_CPU } ]\n")),
    })
    return inferd(repo)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def infer_binary(server, model, inputs, outputs=None):
    body, headers = binary_request(inputs, outputs=outputs)
    return parse_infer_response(server.post(f"/v2/models/{model}/infer", data=body,
                                            headers=headers))


@pytest.mark.parametrize("model", ["add_sub", "add_sub_backend", "add_sub_params", "custom_file",
                                   "model_folder"])
def test_add_sub_equals_numpy_for_several_rows(client, model):
    a = RNG.integers(-100, 100, size=(5, 4)).astype(np.float32)
    b = RNG.integers(-100, 100, size=(5, 4)).astype(np.float32)
    inputs = [httpclient.InferInput("INPUT0", [5, 4], "FP32"),
              httpclient.InferInput("INPUT1", [5, 4], "FP32")]
    inputs[0].set_data_from_numpy(a, binary_data=True)
    inputs[1].set_data_from_numpy(b, binary_data=False)
    result = client.infer(model, inputs)
    assert_equal_tensors(result.as_numpy("OUTPUT0"), a + b, "FP32")
    assert_equal_tensors(result.as_numpy("OUTPUT1"), a - b, "FP32")


def test_one_requested_output_of_two(server):
    a = np.full((2, 4), 3.0, dtype=np.float32)
    b = np.ones((2, 4), dtype=np.float32)
    resp = infer_binary(server, "add_sub", [("INPUT0", "FP32", a), ("INPUT1", "FP32", b)],
                        outputs=["OUTPUT1"])
    assert list(resp.tensors) == ["OUTPUT1"]
    assert_equal_tensors(resp.tensors["OUTPUT1"], a - b, "FP32")


def test_json_request_equals_numpy(server):
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    resp = server.post("/v2/models/add_sub/infer",
                       json=json_request([("INPUT0", "FP32", a), ("INPUT1", "FP32", a * 2)]))
    out = parse_infer_response(resp)
    assert_equal_tensors(out.tensors["OUTPUT0"], a * 3, "FP32")
    assert_equal_tensors(out.tensors["OUTPUT1"], -a, "FP32")


def test_matmul_relu_equals_numpy(server):
    x = RNG.integers(-4, 5, size=(7, 8)).astype(np.float32)
    resp = infer_binary(server, "matmul_relu", [("INPUT0", "FP32", x)])
    assert_equal_tensors(resp.tensors["OUTPUT0"], np.maximum(x @ WEIGHT, 0), "FP32")


def test_concurrent_requests_each_get_their_own_rows(server):
    """Requests the dynamic batcher may gather into one ONNX Runtime run."""
    xs = [RNG.integers(-4, 5, size=(1 + i % 3, 8)).astype(np.float32) for i in range(24)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(
            lambda x: infer_binary(server, "matmul_relu", [("INPUT0", "FP32", x)]), xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT0"], np.maximum(x @ WEIGHT, 0), "FP32")


@pytest.mark.parametrize("model", ["matmul_true", "matmul_false"])
def test_two_instances_sharing_a_session_or_not_answer_concurrent_requests(server, model):
    xs = [RNG.integers(-4, 5, size=(1 + i % 4, 8)).astype(np.float32) for i in range(32)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(
            lambda x: infer_binary(server, model, [("INPUT0", "FP32", x)]), xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT0"], np.maximum(x @ WEIGHT, 0), "FP32")


@pytest.mark.parametrize("shape", [[2, 5], [3, 1], [1, 0]])
def test_variable_dimensions_without_batching(server, shape):
    x = (np.arange(np.prod(shape), dtype=np.float32) - 2).reshape(shape)
    resp = infer_binary(server, "relu_any_shape", [("INPUT0", "FP32", x)])
    assert_equal_tensors(resp.tensors["OUTPUT0"], np.maximum(x, 0), "FP32")


def test_batched_requests_of_different_lengths(server):
    """Rows of different lengths cannot share a run; each still gets its answer."""
    xs = [(np.arange((1 + i % 2) * (2 + i % 3), dtype=np.float32) - 3).reshape(1 + i % 2, 2 + i % 3)
          for i in range(18)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=9) as pool:
        results = list(pool.map(
            lambda x: infer_binary(server, "relu_batched_rows", [("INPUT0", "FP32", x)]), xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT0"], np.maximum(x, 0), "FP32")


def test_statistics_split_gather_run_and_scatter(server):
    # The backend reports each ORT run's span, so gathering inputs counts as
    # compute_input and scattering outputs as compute_output, each nonzero.
    client = server.client()
    before = client.get_inference_statistics("model_folder")["model_stats"][0]["inference_stats"]
    for _ in range(3):
        inputs = []
        for name in ("INPUT0", "INPUT1"):
            tensor = httpclient.InferInput(name, [2, 4], "FP32")
            tensor.set_data_from_numpy(np.ones((2, 4), dtype=np.float32))
            inputs.append(tensor)
        client.infer("model_folder", inputs)
    after = settled_stats(server, "model_folder")["inference_stats"]
    for key in ("compute_input", "compute_infer", "compute_output"):
        assert int(after[key]["count"]) - int(before[key]["count"]) == 3, (key, after)
        assert int(after[key]["ns"]) > int(before[key]["ns"]), (key, after)
