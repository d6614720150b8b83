"""TorchScript models served by the pytorch backend compute what torch computes
in Python for the same inputs.

Models are made at test time with python3-torch. Checked: a traced linear layer
(one request of several rows, and many concurrent requests under the dynamic
batcher, each answered with its own rows); a two-input model returning a tuple,
over HTTP and gRPC; INT64 arithmetic that float would round; inputs bound by
forward()'s argument names (given in the other order); concurrent batched
requests of different lengths; a dictionary output and one output asked for of
two; `platform` or `backend` naming the backend and a
custom default_model_filename; variable dimensions without batching.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from torch_models import (AddMul, IntArith, Relu, Subtract, SumDiff, TorchModel, linear, save,
                          script, torch_config, torch_repository, trace)
from util import assert_equal_tensors, binary_request, parse_infer_response, settled_stats

import torch  # noqa: E402  (after torch_models, which skips when the backend is missing)

RNG = np.random.default_rng(23)
LINEAR = linear(8, 5)
BATCHER = "dynamic_batching { max_queue_delay_microseconds: 20000 }\n"
F4 = [("INPUT__0", "FP32", [4]), ("INPUT__1", "FP32", [4])]
OUT4 = [("OUTPUT__0", "FP32", [4]), ("OUTPUT__1", "FP32", [4])]


def torch_of(module, *arrays):
    """What `module` computes in Python for numpy `arrays`."""
    with torch.no_grad():
        result = module(*[torch.from_numpy(np.ascontiguousarray(a)) for a in arrays])
    if isinstance(result, dict):
        return {k: v.numpy() for k, v in result.items()}
    if isinstance(result, tuple):
        return tuple(r.numpy() for r in result)
    return result.numpy()


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    add_mul = save(script(AddMul()))
    repo = torch_repository(tmp_path_factory.mktemp("repo"), {
        "linear": TorchModel(save(trace(LINEAR, torch.zeros(2, 8))), torch_config(
            "linear", [("INPUT__0", "FP32", [8])], [("OUTPUT__0", "FP32", [5])],
            max_batch_size=16, extra=BATCHER)),
        "add_mul": TorchModel(add_mul, torch_config("add_mul", F4, OUT4, max_batch_size=8)),
        "add_mul_backend": TorchModel(add_mul, torch_config(
            "add_mul_backend", F4, OUT4, max_batch_size=8, platform=False)),
        "custom_file": TorchModel(add_mul, torch_config(
            "custom_file", F4, OUT4, max_batch_size=8,
            extra='default_model_filename: "net.pt"\n'), filename="net.pt"),
        "int64": TorchModel(save(script(IntArith())), torch_config(
            "int64", [("X__0", "INT64", [3]), ("Y__1", "INT64", [3])],
            [("AFFINE__0", "INT64", [3]), ("XOR__1", "INT64", [3])], max_batch_size=4)),
        "named": TorchModel(save(script(Subtract())), torch_config(
            "named", [("subtrahend", "FP32", [-1]), ("minuend", "FP32", [-1])],
            [("DIFFERENCE", "FP32", [-1])])),
        "relu_rows": TorchModel(save(script(Relu())), torch_config(
            "relu_rows", [("INPUT__0", "FP32", [-1])], [("OUTPUT__0", "FP32", [-1])],
            max_batch_size=8, extra=BATCHER)),
        "dict_out": TorchModel(save(script(SumDiff())), torch_config(
            "dict_out", [("x", "FP64", [2]), ("y", "FP64", [2])],
            [("diff", "FP64", [2]), ("sum", "FP64", [2])], max_batch_size=4)),
    })
    return inferd(repo)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def test_linear_layer_equals_torch_for_several_rows(client):
    x = RNG.integers(-9, 10, size=(6, 8)).astype(np.float32)
    tensor = httpclient.InferInput("INPUT__0", [6, 8], "FP32")
    tensor.set_data_from_numpy(x)
    result = client.infer("linear", [tensor])
    assert_equal_tensors(result.as_numpy("OUTPUT__0"), torch_of(LINEAR, x), "FP32")


def test_concurrent_requests_under_the_dynamic_batcher_each_get_their_own_rows(server):
    xs = [RNG.integers(-9, 10, size=(1 + i % 3, 8)).astype(np.float32) for i in range(32)]

    def infer(x):
        body, headers = binary_request([("INPUT__0", "FP32", x)])
        return parse_infer_response(server.post("/v2/models/linear/infer", data=body,
                                                headers=headers))

    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(infer, xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT__0"], torch_of(LINEAR, x), "FP32")


@pytest.mark.parametrize("model", ["add_mul", "add_mul_backend", "custom_file"])
def test_two_inputs_tuple_outputs_over_http(client, model):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    inputs = [httpclient.InferInput("INPUT__0", [3, 4], "FP32"),
              httpclient.InferInput("INPUT__1", [3, 4], "FP32")]
    inputs[0].set_data_from_numpy(a, binary_data=True)
    inputs[1].set_data_from_numpy(b, binary_data=False)
    result = client.infer(model, inputs)
    added, multiplied = torch_of(AddMul(), a, b)
    assert_equal_tensors(result.as_numpy("OUTPUT__0"), added, "FP32")
    assert_equal_tensors(result.as_numpy("OUTPUT__1"), multiplied, "FP32")


def test_two_inputs_tuple_outputs_over_grpc(server):
    client = server.grpc_client()
    a = RNG.standard_normal((2, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4)).astype(np.float32)
    inputs = [grpcclient.InferInput("INPUT__0", [2, 4], "FP32"),
              grpcclient.InferInput("INPUT__1", [2, 4], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    outputs = [grpcclient.InferRequestedOutput("OUTPUT__1")]
    result = client.infer("add_mul", inputs, outputs=outputs)
    assert result.as_numpy("OUTPUT__0") is None
    assert_equal_tensors(result.as_numpy("OUTPUT__1"), torch_of(AddMul(), a, b)[1], "FP32")


def test_int64_values_float_would_round(server):
    x = np.array([[2**62 - 1, -(2**61) - 3, 7], [2**53 + 1, -1, 0]], dtype=np.int64)
    y = np.array([[-(2**62), 2**60 + 5, -7], [3, 2**53 + 3, -(2**63)]], dtype=np.int64)
    body, headers = binary_request([("X__0", "INT64", x), ("Y__1", "INT64", y)])
    resp = parse_infer_response(server.post("/v2/models/int64/infer", data=body, headers=headers))
    affine, xor = torch_of(IntArith(), x, y)
    assert_equal_tensors(resp.tensors["AFFINE__0"], affine, "INT64")
    assert_equal_tensors(resp.tensors["XOR__1"], xor, "INT64")


def test_inputs_bind_to_forward_arguments_by_name(server):
    minuend = np.array([10.0, 20.0, 30.0], dtype=np.float32)
    subtrahend = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    body, headers = binary_request([("subtrahend", "FP32", subtrahend),
                                    ("minuend", "FP32", minuend)])
    resp = parse_infer_response(server.post("/v2/models/named/infer", data=body, headers=headers))
    assert_equal_tensors(resp.tensors["DIFFERENCE"], torch_of(Subtract(), minuend, subtrahend),
                         "FP32")


@pytest.mark.parametrize("shape", [[5], [1], [0]])
def test_variable_dimensions_without_batching(server, shape):
    minuend = np.arange(shape[0], dtype=np.float32) * 3
    subtrahend = np.ones(shape, dtype=np.float32)
    body, headers = binary_request([("minuend", "FP32", minuend),
                                    ("subtrahend", "FP32", subtrahend)])
    resp = parse_infer_response(server.post("/v2/models/named/infer", data=body, headers=headers))
    assert_equal_tensors(resp.tensors["DIFFERENCE"], minuend - subtrahend, "FP32")


def test_batched_requests_of_different_lengths(server):
    """Rows of different lengths cannot share a forward() call; each still gets its answer."""
    xs = [(np.arange((1 + i % 2) * (2 + i % 3), dtype=np.float32) - 3).reshape(1 + i % 2, 2 + i % 3)
          for i in range(18)]

    def infer(x):
        body, headers = binary_request([("INPUT__0", "FP32", x)])
        return parse_infer_response(server.post("/v2/models/relu_rows/infer", data=body,
                                                headers=headers))

    with concurrent.futures.ThreadPoolExecutor(max_workers=9) as pool:
        results = list(pool.map(infer, xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT__0"], torch_of(Relu(), x), "FP32")


def test_dict_output_values_by_key_and_one_output_of_two(server):
    x = RNG.standard_normal((2, 2))
    y = RNG.standard_normal((2, 2))
    expected = torch_of(SumDiff(), x, y)
    body, headers = binary_request([("x", "FP64", x), ("y", "FP64", y)])
    resp = parse_infer_response(server.post("/v2/models/dict_out/infer", data=body,
                                            headers=headers))
    assert_equal_tensors(resp.tensors["sum"], expected["sum"], "FP64")
    assert_equal_tensors(resp.tensors["diff"], expected["diff"], "FP64")
    body, headers = binary_request([("x", "FP64", x), ("y", "FP64", y)], outputs=["diff"])
    resp = parse_infer_response(server.post("/v2/models/dict_out/infer", data=body,
                                            headers=headers))
    assert list(resp.tensors) == ["diff"]
    assert_equal_tensors(resp.tensors["diff"], expected["diff"], "FP64")


def test_statistics_split_gather_forward_and_scatter(server):
    client = server.client()
    before = client.get_inference_statistics("add_mul")["model_stats"][0]["inference_stats"]
    for _ in range(3):
        inputs = []
        for name in ("INPUT__0", "INPUT__1"):
            tensor = httpclient.InferInput(name, [2, 4], "FP32")
            tensor.set_data_from_numpy(np.ones((2, 4), dtype=np.float32))
            inputs.append(tensor)
        client.infer("add_mul", inputs)
    after = settled_stats(server, "add_mul")["inference_stats"]
    for key in ("compute_input", "compute_infer", "compute_output"):
        assert int(after[key]["count"]) - int(before[key]["count"]) == 3, (key, after)
        assert int(after[key]["ns"]) > int(before[key]["ns"]), (key, after)
