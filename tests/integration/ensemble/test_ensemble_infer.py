"""Ensembles answering inferences over HTTP and gRPC (genuine tritonclient),
with identity and ONNX composing models: a linear pipeline, a diamond (one step
feeding two parallel steps that both reach the output), a nested ensemble,
asking for one of several outputs (only the steps it needs run, as the
composing models' statistics show), a failing step (the error names the
ensemble, the step and its model; the next request succeeds), and the
ensemble's own statistics.
"""

from __future__ import annotations

import numpy as np
import pytest
from tritonclient.utils import InferenceServerException

from ensemble_util import DIMS, ensemble_config, identity, infer, repository, rows
from util import assert_equal_tensors, model_stats, wait_until

F = "FP32"

MODELS = {
    "a": identity("a"),
    "b": identity("b"),
    "c": identity("c"),
    # Refuses batches of more than 2 rows: a step that fails at run time.
    "small": identity("small", max_batch_size=2),
    "linear": ensemble_config(
        "linear", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "t1"}),
         ("b", {"INPUT0": "t1"}, {"OUTPUT0": "t2"}),
         ("c", {"INPUT0": "t2"}, {"OUTPUT0": "OUT"})]),
    # a feeds b and c in parallel; onnx_add_sub joins them. Steps listed out of order.
    "diamond": ensemble_config(
        "diamond", [("IN", F, DIMS)], [("SUM", F, DIMS), ("DIFF", F, DIMS)],
        [("onnx_add_sub", {"INPUT0": "left", "INPUT1": "right"},
          {"OUTPUT0": "SUM", "OUTPUT1": "DIFF"}),
         ("b", {"INPUT0": "copy"}, {"OUTPUT0": "left"}),
         ("a", {"INPUT0": "IN"}, {"OUTPUT0": "copy"}),
         ("c", {"INPUT0": "copy"}, {"OUTPUT0": "right"})]),
    # Two independent branches: asking for one output runs one branch only.
    "fork": ensemble_config(
        "fork", [("IN", F, DIMS), ("IN2", F, DIMS)], [("X", F, DIMS), ("Y", F, DIMS)],
        [("b", {"INPUT0": "IN"}, {"OUTPUT0": "X"}),
         ("c", {"INPUT0": "IN2"}, {"OUTPUT0": "Y"})]),
    # An ensemble whose first step is another ensemble, then ONNX.
    "nested": ensemble_config(
        "nested", [("A", F, DIMS), ("B", F, DIMS)], [("SUM", F, DIMS)],
        [("linear", {"IN": "A"}, {"OUT": "through"}),
         ("onnx_add_sub", {"INPUT0": "through", "INPUT1": "B"}, {"OUTPUT0": "SUM"})]),
    "fails": ensemble_config(
        "fails", [("IN", F, [-1] + DIMS)], [("OUT", F, [-1] + DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
         ("small", {"INPUT0": "t"}, {"OUTPUT0": "OUT"})], max_batch_size=0),
}

PROTOCOLS = ["http", "grpc"]


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS))


def successes(server, model: str) -> int:
    return model_stats(server, model)["inference_stats"]["success"]["count"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_linear_pipeline(server, protocol):
    data = rows(3)
    out = infer(server, protocol, "linear", {"IN": data})
    assert list(out) == ["OUT"]
    assert_equal_tensors(out["OUT"], data, F)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_diamond(server, protocol):
    data = rows(2, start=-5.0)
    out = infer(server, protocol, "diamond", {"IN": data})
    assert_equal_tensors(out["SUM"], data + data, F)
    assert_equal_tensors(out["DIFF"], np.zeros_like(data), F)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_nested_ensemble(server, protocol):
    a, b = rows(2), np.full((2, DIMS[0]), 0.25, dtype=np.float32)
    out = infer(server, protocol, "nested", {"A": a, "B": b})
    assert list(out) == ["SUM"]
    assert_equal_tensors(out["SUM"], a + b, F)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_one_of_several_outputs_runs_only_the_steps_it_needs(server, protocol):
    b_before, c_before = successes(server, "b"), successes(server, "c")
    x, y = rows(1), rows(1, start=100.0)
    out = infer(server, protocol, "fork", {"IN": x, "IN2": y}, outputs=["Y"])
    assert list(out) == ["Y"]
    assert_equal_tensors(out["Y"], y, F)
    # Statistics are recorded before the step's response reaches the ensemble.
    assert successes(server, "c") == c_before + 1
    assert successes(server, "b") == b_before
    both = infer(server, protocol, "fork", {"IN": x, "IN2": y})
    assert sorted(both) == ["X", "Y"]
    assert_equal_tensors(both["X"], x, F)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_failing_step_names_ensemble_step_and_model(server, protocol):
    with pytest.raises(InferenceServerException) as failed:
        infer(server, protocol, "fails", {"IN": rows(3)})
    message = failed.value.message()
    assert "ensemble 'fails' step[1] (model 'small'): " in message, message
    assert "max_batch_size" in message, message
    # Other requests, to the same ensemble included, are unaffected.
    out = infer(server, protocol, "fails", {"IN": rows(2)})
    assert_equal_tensors(out["OUT"], rows(2), F)


def test_ensemble_statistics_count_its_requests(server):
    before = successes(server, "linear")
    failed_before = model_stats(server, "fails")["inference_stats"]["fail"]["count"]
    infer(server, "http", "linear", {"IN": rows(1)})
    with pytest.raises(InferenceServerException):
        infer(server, "http", "fails", {"IN": rows(3)})
    assert successes(server, "linear") == before + 1
    assert model_stats(server, "fails")["inference_stats"]["fail"]["count"] == failed_before + 1


def test_metadata_and_config_name_the_platform(server):
    metadata = server.get("/v2/models/diamond").json()
    assert metadata["platform"] == "ensemble"
    assert [o["name"] for o in metadata["outputs"]] == ["SUM", "DIFF"]
    config = server.get("/v2/models/diamond/config").json()
    assert len(config["ensemble_scheduling"]["step"]) == 4


def test_wrong_input_is_refused_before_any_step(server):
    before = successes(server, "a")
    resp = server.post("/v2/models/linear/infer", json={"inputs": [
        {"name": "NOPE", "datatype": "FP32", "shape": [1, 16], "data": [0.0] * 16}]})
    assert resp.status_code == 400, resp.text
    assert "NOPE" in resp.json()["error"]
    assert successes(server, "a") == before
