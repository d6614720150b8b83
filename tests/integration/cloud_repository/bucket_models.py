"""The model repository the GCS and Azure tests put in their bucket, and the
checks both run against a server that serves it.

  add_offset  a Python model (model.py from the bucket): OUTPUT0 = INPUT0 + OFFSET,
              OFFSET a constant in model.py, so replacing that one object shows
              in the answers
  ident       an identity-backend model (its version folder holds one file:
              object stores have no empty folders)
"""

from __future__ import annotations

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import single_identity

PYTHON_CONFIG = """name: "add_offset"
backend: "python"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
instance_group [ { kind: KIND_CPU count: 1 } ]
"""

PYTHON_MODEL = """import triton_python_backend_utils as pb_utils

OFFSET = {offset}


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            responses.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.Tensor("OUTPUT0", x + OFFSET)]))
        return responses
"""


def model_py(offset: float) -> bytes:
    return PYTHON_MODEL.format(offset=offset).encode()


def repository_files(offset: float = 1.0) -> dict[str, bytes]:
    """{object path relative to the repository root: content}."""
    return {
        "add_offset/config.pbtxt": PYTHON_CONFIG.encode(),
        "add_offset/1/model.py": model_py(offset),
        "ident/config.pbtxt": single_identity("ident", "FP32", [4]).encode(),
        "ident/1/README": b"the identity backend reads no file\n",
    }


X = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)


def infer_http(server, model: str, output: str = "OUTPUT0") -> np.ndarray:
    inp = httpclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(X, binary_data=True)
    return server.client().infer(model, [inp]).as_numpy(output)


def infer_grpc(server, model: str, output: str = "OUTPUT0") -> np.ndarray:
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(X)
    return server.grpc_client().infer(model, [inp]).as_numpy(output)


def assert_serves_both(server, offset: float) -> None:
    """Both models answer over HTTP and gRPC, add_offset with `offset`."""
    for infer in (infer_http, infer_grpc):
        np.testing.assert_array_equal(infer(server, "add_offset"), X + np.float32(offset))
        np.testing.assert_array_equal(infer(server, "ident"), X)


def offset_served(server) -> float:
    return float(infer_http(server, "add_offset")[0] - X[0])


def cache_flag(folder) -> str:
    """The model cache in a test's own folder (not ~/.cache/inferd)."""
    return f"--model-repository-cache-directory={folder / 'cache'}"

