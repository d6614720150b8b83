"""Sequence parameters pass through an ensemble to its stateful composing
model (the accumulate backend under the sequence batcher) and not to its
stateless ones: two interleaved sequences keep their own running sums; an
ensemble with no stateful step refuses sequence parameters as any model
without sequence_batching does.
"""

from __future__ import annotations

import numpy as np
import pytest
import tritonclient.http as httpclient

from ensemble_util import ensemble_config, repository
from util import EXAMPLES_MODELS, assert_error, single_identity

ACCUMULATE = (EXAMPLES_MODELS / "running_sum" / "config.pbtxt").read_text().replace(
    'name: "running_sum"', 'name: "acc"')

MODELS = {
    "acc": ACCUMULATE,
    "copy_int": single_identity("copy_int", "INT32", [1], max_batch_size=8),
    "summing": ensemble_config(
        "summing", [("IN", "INT32", [1])], [("SUM", "INT32", [1])],
        [("copy_int", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
         ("acc", {"INPUT": "t"}, {"OUTPUT": "SUM"})]),
    "stateless": ensemble_config(
        "stateless", [("IN", "INT32", [1])], [("OUT", "INT32", [1])],
        [("copy_int", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS, onnx_add_sub=False))


def send(client, value: int, **sequence) -> int:
    inp = httpclient.InferInput("IN", [1, 1], "INT32")
    inp.set_data_from_numpy(np.array([[value]], dtype=np.int32))
    return int(client.infer("summing", [inp], **sequence).as_numpy("SUM")[0][0])


def test_sequences_pass_through_to_the_stateful_step(server):
    client = server.client()
    assert send(client, 5, sequence_id=7, sequence_start=True) == 5
    assert send(client, 100, sequence_id=8, sequence_start=True) == 100
    assert send(client, 3, sequence_id=7) == 8
    assert send(client, 1, sequence_id=8, sequence_end=True) == 101
    assert send(client, 2, sequence_id=7, sequence_end=True) == 10


def test_an_ensemble_without_stateful_steps_refuses_sequence_parameters(server):
    resp = server.post("/v2/models/stateless/infer", json={
        "parameters": {"sequence_id": 3, "sequence_start": True},
        "inputs": [{"name": "IN", "datatype": "INT32", "shape": [1, 1], "data": [1]}]})
    assert_error(resp, 400, "model 'stateless' has no sequence batcher")
