"""Business logic scripting: a Python model sends requests of its own to other
models the server serves, over HTTP and gRPC clients alike:

- exec() to an ONNX model returns its outputs;
- two async_exec() awaited together under asyncio both return;
- exec(decoupled=True) to a decoupled Python model yields each streamed response;
- a call to a model that does not exist comes back as an error in the response
  (the calling model decides what to do with it).
"""

import sys
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import python_models as pm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))
from onnx_graphs import OnnxModel, add_sub_graph, onnx_config, onnx_repository  # noqa: E402


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    add_sub = onnx_config("onnx_add_sub", [("INPUT0", "FP32", [4]), ("INPUT1", "FP32", [4])],
                          [("OUTPUT0", "FP32", [4]), ("OUTPUT1", "FP32", [4])])
    repo = onnx_repository(tmp_path_factory.mktemp("repo"), {
        "onnx_add_sub": OnnxModel(add_sub_graph((4,)), add_sub),
        "repeat": pm.python_model(pm.REPEAT_CONFIG, pm.REPEAT),
        "bls": pm.python_model(pm.BLS_CONFIG, pm.BLS),
    })
    return inferd(repo)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_bls_calls_onnx_and_a_decoupled_model(server, protocol):
    x = np.array([3, 5, 7, 9], dtype=np.float32)
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    tensor = module.InferInput("X", [4], "FP32")
    tensor.set_data_from_numpy(x)
    result = client.infer("bls", [tensor])
    np.testing.assert_array_equal(result.as_numpy("PLUS"), x + 1)
    np.testing.assert_array_equal(result.as_numpy("MINUS"), np.concatenate([x - 1, 2 * x - 1]))
    assert list(result.as_numpy("STREAMED")) == [0, 1, 2]
    error = result.as_numpy("ERROR")[0].decode()
    assert "no_such_model" in error
