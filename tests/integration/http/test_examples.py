"""The example repository (examples/models, what `make run` serves) loads, and
one inference on each example model through tritonclient returns its input.
"""

import numpy as np
import pytest
import tritonclient.http as httpclient

from util import EXAMPLES_MODELS, assert_equal_tensors


@pytest.fixture(scope="module")
def client(inferd):
    return inferd(EXAMPLES_MODELS).client()


def test_every_example_model_is_ready(client):
    index = client.get_model_repository_index()
    assert sorted((e["name"], e["state"]) for e in index) == [
        ("identity_bytes", "READY"), ("identity_fp32", "READY"), ("onnx_add_sub", "READY"),
        ("onnx_mlp", "READY"), ("onnx_strings", "READY"), ("python_text", "READY")]


def test_identity_fp32_example(client):
    data = np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(2, 16)
    inp = httpclient.InferInput("INPUT0", [2, 16], "FP32")
    inp.set_data_from_numpy(data, binary_data=True)
    result = client.infer("identity_fp32", [inp],
                          outputs=[httpclient.InferRequestedOutput("OUTPUT0")])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "FP32")


def test_identity_bytes_example(client):
    data = np.array([[b"hello", b"inferd", b""]], dtype=np.object_)
    inp = httpclient.InferInput("INPUT0", [1, 3], "BYTES")
    inp.set_data_from_numpy(data, binary_data=False)
    result = client.infer("identity_bytes", [inp],
                          outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "BYTES")


def test_python_text_example(client):
    data = np.array([b"  Hello   World ", b"inferd", b""], dtype=np.object_)
    inp = httpclient.InferInput("TEXT", [3], "BYTES")
    inp.set_data_from_numpy(data)
    result = client.infer("python_text", [inp])
    assert list(result.as_numpy("NORMALIZED")) == [b"hello world", b"inferd", b""]
    assert list(result.as_numpy("WORDS")) == [2, 1, 0]
