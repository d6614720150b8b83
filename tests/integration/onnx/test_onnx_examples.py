"""The ONNX models of examples/models (scripts/make_example_models.py) serve
through tritonclient: onnx_add_sub adds and subtracts, onnx_strings returns its
strings, and onnx_mlp gives, per row, what the same weights give in numpy.
"""

import sys

import numpy as np
import pytest
import tritonclient.http as httpclient

from util import EXAMPLES_MODELS, REPO_ROOT, assert_equal_tensors

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import make_example_models  # noqa: E402


@pytest.fixture(scope="module")
def client(inferd):
    if not (EXAMPLES_MODELS / "onnx_mlp" / "1" / "model.onnx").is_file():
        make_example_models.main()
    return inferd(EXAMPLES_MODELS).client()


def test_onnx_add_sub_example(client):
    a = np.linspace(-4, 4, 48, dtype=np.float32).reshape(3, 16)
    b = np.full((3, 16), 0.5, dtype=np.float32)
    inputs = [httpclient.InferInput("INPUT0", [3, 16], "FP32"),
              httpclient.InferInput("INPUT1", [3, 16], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("onnx_add_sub", inputs)
    assert_equal_tensors(result.as_numpy("OUTPUT0"), a + b, "FP32")
    assert_equal_tensors(result.as_numpy("OUTPUT1"), a - b, "FP32")


def test_onnx_strings_example(client):
    data = np.array([[b"hello", b"inferd"], [b"", b"\xc3\xa9t\xc3\xa9"]], dtype=np.object_)
    inp = httpclient.InferInput("INPUT0", [2, 2], "BYTES")
    inp.set_data_from_numpy(data)
    result = client.infer("onnx_strings", [inp])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "BYTES")


def mlp_reference(x: np.ndarray) -> np.ndarray:
    """The example MLP in float64 numpy, from the same seeded weights."""
    rng = np.random.default_rng(make_example_models.MLP_SEED)
    widths = make_example_models.MLP_WIDTHS
    h = x.astype(np.float64)
    for i, (fan_in, fan_out) in enumerate(zip(widths[:-1], widths[1:])):
        w = (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)
        b = (rng.standard_normal(fan_out) * 0.01).astype(np.float32)
        h = h @ w.astype(np.float64) + b
        if i < len(widths) - 2:
            h = np.maximum(h, 0)
    return h


def test_onnx_mlp_example_matches_numpy(client):
    x = np.random.default_rng(3).standard_normal((4, 512)).astype(np.float32)
    inp = httpclient.InferInput("INPUT0", [4, 512], "FP32")
    inp.set_data_from_numpy(x)
    out = client.infer("onnx_mlp", [inp]).as_numpy("OUTPUT0")
    assert out.shape == (4, 16)
    np.testing.assert_allclose(out, mlp_reference(x), rtol=1e-3, atol=1e-3)
