"""The example repository (examples/models, what `make run` serves) loads, and
one inference on each example model through tritonclient returns its input;
the decoupled stream_words streams its words back over gRPC, one response each;
the stateful running_sum sums each sequence's values, as the curl lines of
docs/backends.md show; the ensemble ensemble_add_sub runs identity_fp32 then
onnx_add_sub.
"""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import EXAMPLES_MODELS, assert_equal_tensors


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(EXAMPLES_MODELS)


@pytest.fixture(scope="module")
def client(server):
    return server.client()


def test_every_example_model_is_ready(client):
    index = client.get_model_repository_index()
    assert sorted((e["name"], e["state"]) for e in index) == [
        ("ensemble_add_sub", "READY"), ("identity_bytes", "READY"), ("identity_fp32", "READY"),
        ("onnx_add_sub", "READY"), ("onnx_mlp", "READY"), ("onnx_strings", "READY"), ("python_text", "READY"),
        ("running_sum", "READY"), ("stream_words", "READY"), ("toy_llm", "READY")]


def test_identity_fp32_example(client):
    data = np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(2, 16)
    inp = httpclient.InferInput("INPUT0", [2, 16], "FP32")
    inp.set_data_from_numpy(data, binary_data=True)
    result = client.infer("identity_fp32", [inp],
                          outputs=[httpclient.InferRequestedOutput("OUTPUT0")])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "FP32")


def test_ensemble_add_sub_example(client):
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    b = np.full((2, 16), 0.5, dtype=np.float32)
    inputs = [httpclient.InferInput("INPUT0", [2, 16], "FP32"),
              httpclient.InferInput("INPUT1", [2, 16], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("ensemble_add_sub", inputs)
    assert_equal_tensors(result.as_numpy("SUM"), a + b, "FP32")
    assert_equal_tensors(result.as_numpy("DIFF"), a - b, "FP32")


def test_identity_bytes_example(client):
    data = np.array([[b"hello", b"inferd", b""]], dtype=np.object_)
    inp = httpclient.InferInput("INPUT0", [1, 3], "BYTES")
    inp.set_data_from_numpy(data, binary_data=False)
    result = client.infer("identity_bytes", [inp],
                          outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "BYTES")


def test_stream_words_example(server):
    words = np.array([b"Hello", b"from", b"a", b"stream"], dtype=np.object_)
    inp = grpcclient.InferInput("text_input", [4], "BYTES")
    inp.set_data_from_numpy(words)
    results = queue.Queue()
    client = server.grpc_client()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    try:
        client.async_stream_infer("stream_words", [inp], request_id="words",
                                  enable_empty_final_response=True)
        seen = []
        while True:
            result, error = results.get(timeout=20)
            assert error is None, error
            response = result.get_response()
            if response.parameters["triton_final_response"].bool_param:
                assert not response.outputs  # FINAL comes alone, after the last word
                break
            seen.append((result.as_numpy("text_output")[0], int(result.as_numpy("index")[0])))
    finally:
        client.stop_stream()
        client.close()
    assert seen == [(w, i) for i, w in enumerate(words)]


def test_running_sum_example(server):
    # The curl lines of docs/backends.md, as JSON over HTTP: two sequences interleaved.
    def step(sequence_id, value, **flags):
        resp = server.post("/v2/models/running_sum/infer", json={
            "parameters": {"sequence_id": sequence_id, **flags},
            "inputs": [{"name": "INPUT", "datatype": "INT32", "shape": [1, 1],
                        "data": [value]}]})
        assert resp.status_code == 200, resp.text
        outputs = {o["name"]: o["data"] for o in resp.json()["outputs"]}
        return outputs["OUTPUT"][0], outputs["CONTROLS"]

    assert step(7, 5, sequence_start=True) == (5, [1, 0, 1, 7])
    assert step(8, 100, sequence_start=True) == (100, [1, 0, 1, 8])
    assert step(7, 3) == (8, [0, 0, 1, 7])
    assert step(8, 1, sequence_end=True) == (101, [0, 1, 1, 8])
    assert step(7, 2, sequence_end=True) == (10, [0, 1, 1, 7])


def test_python_text_example(client):
    data = np.array([b"  Hello   World ", b"inferd", b""], dtype=np.object_)
    inp = httpclient.InferInput("TEXT", [3], "BYTES")
    inp.set_data_from_numpy(data)
    result = client.infer("python_text", [inp])
    assert list(result.as_numpy("NORMALIZED")) == [b"hello world", b"inferd", b""]
    assert list(result.as_numpy("WORDS")) == [2, 1, 0]
