"""Traces span an ensemble's steps: when an ensemble request is traced, each
step request is traced as its child ("parent_id" naming the ensemble's trace)
whatever the composing model's own trace setting, and only then.
"""

from __future__ import annotations

import json

from ensemble_util import DIMS, ensemble_config, identity, infer, repository, rows

F = "FP32"
MODELS = {
    "a": identity("a"),
    "b": identity("b"),
    "pipe": ensemble_config("pipe", [("IN", F, DIMS)], [("OUT", F, DIMS)],
                            [("a", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
                             ("b", {"INPUT0": "t"}, {"OUTPUT0": "OUT"})]),
}


def start(inferd, tmp_path, *args):
    trace_file = tmp_path / "trace.json"
    server = inferd(repository(tmp_path / "repo", MODELS, onnx_add_sub=False),
                    [f"--trace-config=triton,file={trace_file}", *args])
    return server, trace_file


def by_model(traces: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for trace in traces:
        out.setdefault(trace["model_name"], []).append(trace)
    return out


def test_step_requests_are_traced_as_children_of_the_ensemble_request(inferd, tmp_path):
    server, trace_file = start(inferd, tmp_path, "--trace-config=level=TIMESTAMPS",
                               "--trace-config=rate=1")
    infer(server, "http", "pipe", {"IN": rows(1)})
    server.stop()
    traces = by_model(json.loads(trace_file.read_text()))
    assert sorted(traces) == ["a", "b", "pipe"]
    [parent] = traces["pipe"]
    assert "parent_id" not in parent
    for step in ("a", "b"):
        [child] = traces[step]
        assert child["parent_id"] == parent["id"]
        names = [t["name"] for t in child["timestamps"]]
        assert names[0] == "REQUEST_START" and names[-1] == "REQUEST_END", names
    names = [t["name"] for t in parent["timestamps"]]
    assert names == ["REQUEST_START", "QUEUE_START", "REQUEST_END"], names


def test_tracing_only_the_ensemble_still_traces_its_steps(inferd, tmp_path):
    server, trace_file = start(inferd, tmp_path)
    resp = server.post("/v2/models/pipe/trace/setting",
                       json={"trace_level": ["TIMESTAMPS"], "trace_rate": "1"})
    assert resp.status_code == 200, resp.text
    infer(server, "grpc", "pipe", {"IN": rows(1)})
    infer(server, "http", "a", {"INPUT0": rows(1)})  # a on its own: not sampled
    server.stop()
    traces = by_model(json.loads(trace_file.read_text()))
    assert sorted(traces) == ["a", "b", "pipe"]
    assert len(traces["a"]) == 1 and traces["a"][0]["parent_id"] == traces["pipe"][0]["id"]
