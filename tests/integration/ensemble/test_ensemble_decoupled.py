"""A decoupled composing model streams through a decoupled ensemble: each word
the repeat backend sends runs the step after it once, and the client gets one
ensemble response per word on a gRPC stream, then FINAL; HTTP /infer refuses
the decoupled ensemble as it does any decoupled model; a non-decoupled
ensemble over a decoupled model fails to load, naming the step.
"""

from __future__ import annotations

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from ensemble_util import ensemble_config, repository
from util import assert_error, tensor_block

WORDS = [b"one", b"two", b"three", b"four"]

REPEAT = (
    'name: "repeat"\nbackend: "repeat"\nmax_batch_size: 0\n'
    "model_transaction_policy { decoupled: true }\n"
    f"input [\n{tensor_block('text_input', 'BYTES', [-1])}\n]\n"
    f"output [\n{tensor_block('text_output', 'BYTES', [1])},\n"
    f"{tensor_block('index', 'INT32', [1])}\n]\n"
    'parameters { key: "delay_ms" value: { string_value: "5" } }\n')

INDEX_COPY = (
    'name: "index_copy"\nbackend: "identity"\nmax_batch_size: 0\n'
    f"input [\n{tensor_block('INPUT0', 'INT32', [1])}\n]\n"
    f"output [\n{tensor_block('OUTPUT0', 'INT32', [1])}\n]\n")

STEPS = [("repeat", {"text_input": "TEXT"}, {"text_output": "WORD", "index": "i"}),
         ("index_copy", {"INPUT0": "i"}, {"OUTPUT0": "INDEX"})]
IO = ([("TEXT", "BYTES", [-1])], [("WORD", "BYTES", [1]), ("INDEX", "INT32", [1])])

MODELS = {
    "repeat": REPEAT,
    "index_copy": INDEX_COPY,
    "words": ensemble_config("words", *IO, STEPS, max_batch_size=0,
                             extra="model_transaction_policy { decoupled: true }\n"),
    "not_decoupled": ensemble_config("not_decoupled", *IO, STEPS, max_batch_size=0),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS, onnx_add_sub=False),
                  extra_args=["--exit-on-error=false"], wait_for="live")


def stream(server, model: str, words: list[bytes]) -> list:
    inp = grpcclient.InferInput("TEXT", [len(words)], "BYTES")
    inp.set_data_from_numpy(np.array(words, dtype=np.object_))
    results: queue.Queue = queue.Queue()
    client = server.grpc_client()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    seen = []
    try:
        client.async_stream_infer(model, [inp], request_id="s", enable_empty_final_response=True)
        while True:
            result, error = results.get(timeout=20)
            assert error is None, error
            response = result.get_response()
            if response.parameters["triton_final_response"].bool_param and not response.outputs:
                break
            seen.append((result.as_numpy("WORD")[0], int(result.as_numpy("INDEX")[0])))
    finally:
        client.stop_stream()
        client.close()
    return seen


def test_each_streamed_word_runs_the_next_step_and_reaches_the_client(server):
    assert stream(server, "words", WORDS) == [(w, i) for i, w in enumerate(WORDS)]


def test_an_empty_stream_ends_with_final_alone(server):
    assert stream(server, "words", []) == []


def test_http_infer_refuses_a_decoupled_ensemble(server):
    resp = server.post("/v2/models/words/infer", json={"inputs": [
        {"name": "TEXT", "datatype": "BYTES", "shape": [1], "data": ["x"]}]})
    assert_error(resp, 501, "'words' is decoupled")


def test_a_non_decoupled_ensemble_over_a_decoupled_model_fails_to_load(server):
    [entry] = [e for e in server.post("/v2/repository/index").json()
               if e["name"] == "not_decoupled"]
    assert entry["state"] == "UNAVAILABLE"
    assert ("ensemble 'not_decoupled': step[0] (model 'repeat') is decoupled (it may send "
            "several responses), so the ensemble must be too") in entry["reason"]
