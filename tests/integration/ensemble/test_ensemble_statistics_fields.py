"""An ensemble's statistics count like a model's, as Triton 2.51 counts them
(its ensemble scheduler reports each successful request when it ends): after
N requests, inference_count is their rows, execution_count N, last_inference
set; success, queue and the three compute figures count N each; the queue time
is the ensemble's own (arrival to its first step), the compute times are the
sums of its steps' (exactly: the composing models here see no other traffic);
batch_stats has one entry per request batch size. The same over HTTP
(/v2/models/{m}/stats) and gRPC (ModelStatistics). A nested ensemble adds its
compute times to its parent's.
"""

from __future__ import annotations

import time

import pytest

from ensemble_util import DIMS, ensemble_config, identity, infer, repository, rows
from util import model_stats, wait_until

F = "FP32"
DELAYED = 'parameters { key: "execute_delay_ms" value: { string_value: "2" } }\n'

MODELS = {
    "a": identity("a", extra=DELAYED),
    "b": identity("b"),
    "ens": ensemble_config("ens", [("IN", F, DIMS)], [("OUT", F, DIMS)],
                           [("a", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
                            ("b", {"INPUT0": "t"}, {"OUTPUT0": "OUT"})]),
    "c": identity("c", extra=DELAYED),
    "d": identity("d"),
    "inner": ensemble_config("inner", [("X", F, DIMS)], [("Y", F, DIMS)],
                             [("c", {"INPUT0": "X"}, {"OUTPUT0": "u"}),
                              ("d", {"INPUT0": "u"}, {"OUTPUT0": "Y"})]),
    "outer": ensemble_config("outer", [("IN", F, DIMS)], [("OUT", F, DIMS)],
                             [("inner", {"X": "IN"}, {"Y": "OUT"})]),
}
COMPUTE = ("compute_input", "compute_infer", "compute_output")


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS, onnx_add_sub=False))


def figures(stats: dict) -> dict:
    """The fields both protocols carry, as ints (gRPC's JSON writes uint64 as
    strings and leaves zeros out)."""
    inference = stats.get("inference_stats", {})
    out = {key: int(stats.get(key, 0))
           for key in ("inference_count", "execution_count", "last_inference")}
    for name in ("success", "fail", "queue") + COMPUTE:
        out[name] = (int(inference.get(name, {}).get("count", 0)),
                     int(inference.get(name, {}).get("ns", 0)))
    out["batch_stats"] = {
        int(b["batch_size"]): {name: (int(b.get(name, {}).get("count", 0)),
                                      int(b.get(name, {}).get("ns", 0))) for name in COMPUTE}
        for b in stats.get("batch_stats", [])}
    return out


def settled(server, model: str, executions: int) -> dict:
    """HTTP statistics of `model` once `executions` requests were recorded whole."""
    def done():
        stats = figures(model_stats(server, model))
        return stats if (stats["execution_count"] == executions
                         and stats["compute_infer"][0] == executions) else None
    return wait_until(done, what=f"{model}: {executions} executions recorded")


def grpc_figures(server, model: str) -> dict:
    client = server.grpc_client()
    try:
        [stats] = client.get_inference_statistics(model, as_json=True)["model_stats"]
    finally:
        client.close()
    return figures(stats)


def test_each_field_counts_the_requests_over_http_and_grpc(server):
    before_ms = int(time.time() * 1000)
    sizes = [1, 1, 2, 1, 2, 1]  # rows per request
    for i, size in enumerate(sizes):
        data = rows(size, start=float(i))
        out = infer(server, "grpc" if i % 2 else "http", "ens", {"IN": data})
        assert (out["OUT"] == data).all()
    n = len(sizes)
    ens = settled(server, "ens", n)
    steps = [settled(server, model, n) for model in ("a", "b")]

    assert ens["inference_count"] == sum(sizes)
    assert ens["execution_count"] == n
    assert ens["last_inference"] >= before_ms - 60_000, ens
    assert ens["success"][0] == n and ens["fail"] == (0, 0)
    assert ens["queue"][0] == n
    assert ens["queue"][1] <= ens["success"][1]  # its own wait, within its requests' time
    for name in COMPUTE:
        assert ens[name][0] == n, (name, ens)
        # Triton: the ensemble's compute time is the sum of its steps'.
        assert ens[name][1] == sum(step[name][1] for step in steps), (name, ens, steps)
    assert ens["compute_infer"][1] > 0
    # One batch_stats entry per request batch size, as for a model.
    assert sorted(ens["batch_stats"]) == [1, 2], ens["batch_stats"]
    assert ens["batch_stats"][1]["compute_infer"][0] == sizes.count(1)
    assert ens["batch_stats"][2]["compute_infer"][0] == sizes.count(2)
    for name in COMPUTE:
        assert sum(b[name][1] for b in ens["batch_stats"].values()) == ens[name][1], name
    # gRPC's ModelStatistics says the same.
    assert grpc_figures(server, "ens") == ens


def test_a_nested_ensemble_adds_its_compute_times_to_its_parent(server):
    for i in range(3):
        data = rows(1, start=float(i))
        assert (infer(server, "http", "outer", {"IN": data})["OUT"] == data).all()
    outer = settled(server, "outer", 3)
    inner = settled(server, "inner", 3)
    steps = [settled(server, model, 3) for model in ("c", "d")]
    for name in COMPUTE:
        assert outer[name] == inner[name], name
        assert inner[name][1] == sum(step[name][1] for step in steps), name
    assert outer["inference_count"] == inner["inference_count"] == 3
    assert grpc_figures(server, "outer") == outer
