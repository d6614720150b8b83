"""--model-memory-budget end to end: models load on their first request (over
HTTP and gRPC, one load however many requests wait), the index and metrics say
what is loaded, evicted and why, the least recently used idle model makes room,
a model with a request in flight or pinned (config parameter, flag, explicit
load) is never evicted, a load that fails or outlasts the wait answers 503."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from budget_models import (PIN, budget_metrics, family_total, holder_model, index, infer,
                           wait_for_file, write_onnx_models)
from util import wait_until, write_repository

NOT_LOADED = "not loaded: loads on its first request (--model-memory-budget)"


def state(server, name):
    entry = index(server)[name]
    return entry.get("state", ""), entry.get("reason", "")


def test_models_load_on_their_first_request_and_the_index_says_so(inferd, tmp_path):
    write_onnx_models(tmp_path, {"a": 1, "b": 2, "c": 3})
    server = inferd(tmp_path, ["--model-memory-budget=1G"])
    assert server.get("/v2/health/ready").status_code == 200  # nothing loaded, all ready
    for name in "abc":
        assert state(server, name) == ("UNAVAILABLE", NOT_LOADED)
    assert server.get("/v2/models/a/ready").status_code == 400
    infer(server.client(), "a", 1)
    infer(server.grpc_client(), "b", 2, grpc=True)
    assert state(server, "a") == ("READY", "")
    assert state(server, "b") == ("READY", "")
    assert state(server, "c") == ("UNAVAILABLE", NOT_LOADED)
    samples = budget_metrics(server)
    assert samples[("inferd_model_cold_loads_total", "a")] == 1
    assert samples[("inferd_model_memory_bytes", "b")] > 0
    assert samples[("inferd_model_memory_budget_bytes", "")] == 10**9
    assert samples[("inferd_model_memory_used_bytes", "")] == (
        samples[("inferd_model_memory_bytes", "a")] + samples[("inferd_model_memory_bytes", "b")])
    assert samples[("inferd_model_load_waits_total", "")] == 2
    # Metadata (tritonclient, perf_analyzer ask it first) loads the model too.
    assert server.client().get_model_metadata("c")["name"] == "c"
    assert state(server, "c") == ("READY", "")


def test_requests_that_arrive_during_a_load_share_it(inferd, tmp_path):
    write_onnx_models(tmp_path, {"shared": 7})
    server = inferd(tmp_path, ["--model-memory-budget=1G"])
    errors = []
    start = threading.Barrier(16)

    def client():
        c = server.client()
        start.wait()
        try:
            infer(c, "shared", 7)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=client) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert budget_metrics(server)[("inferd_model_cold_loads_total", "shared")] == 1
    assert server.log().count("loading model 'shared' on demand") == 1


def test_the_least_recently_used_model_is_evicted_with_its_reason(inferd, tmp_path, sizes):
    write_onnx_models(tmp_path, {f"m{i}": i for i in range(4)})
    budget = int(sizes["onnx_first"] + 2.5 * sizes["onnx"])  # room for two or three
    server = inferd(tmp_path, [f"--model-memory-budget={budget}"])
    client = server.client()
    for i in (0, 1, 2, 0):  # m0 is now the most recently used, m1 the least
        infer(client, f"m{i}", i)
    infer(client, "m3", 3)
    assert state(server, "m0")[0] == "READY"
    status, reason = state(server, "m1")
    assert status == "UNAVAILABLE"
    assert reason.startswith("evicted (least recently used) to load model ")
    assert reason.endswith(f"within the memory budget of {budget} bytes")
    samples = budget_metrics(server)
    assert samples[("inferd_model_evictions_total", "m1")] == 1
    assert samples[("inferd_model_memory_used_bytes", "")] <= budget
    infer(client, "m1", 1)  # loads again on demand
    assert budget_metrics(server)[("inferd_model_cold_loads_total", "m1")] == 2


def test_a_model_with_a_request_in_flight_is_never_evicted(inferd, tmp_path, sizes):
    holder_dir = tmp_path / "holder-state"
    holder_dir.mkdir()
    repo = tmp_path / "repo"
    write_onnx_models(repo, {f"m{i}": i for i in range(8)})
    write_repository(repo, {"holder": holder_model("holder", holder_dir)})
    # The holder and at most two weights models fit: the next ones must evict.
    budget = int(sizes["holder"] + sizes["onnx_first"] + 1.5 * sizes["onnx"])
    server = inferd(repo, [f"--model-memory-budget={budget}"])
    held = {}

    def hold():
        inp = httpclient.InferInput("INDEX", [4], "INT64")
        inp.set_data_from_numpy(np.arange(4, dtype=np.int64))
        held["result"] = server.client().infer("holder", [inp]).as_numpy("VALUE")

    thread = threading.Thread(target=hold)
    thread.start()
    wait_for_file(holder_dir / "entered")  # executing: in flight, least recently used
    client = server.client()
    for i in range(8):
        infer(client, f"m{i}", i)
        assert state(server, "holder")[0] == "READY"
    samples = budget_metrics(server)
    assert family_total(samples, "inferd_model_evictions_total") >= 4
    assert samples.get(("inferd_model_evictions_total", "holder"), 0) == 0
    (holder_dir / "release").touch()
    thread.join(timeout=30)
    assert np.array_equal(held["result"], np.arange(4, dtype=np.float32))
    # Idle now: the next load may evict it.
    infer(client, "m0", 0)
    infer(client, "m1", 1)
    assert budget_metrics(server).get(("inferd_model_evictions_total", "holder"), 0) == 1


@pytest.mark.parametrize("how", ["config", "flag"])
def test_a_pinned_model_is_never_evicted(inferd, tmp_path, sizes, how):
    write_onnx_models(tmp_path, {f"m{i}": i for i in range(8)})
    write_onnx_models(tmp_path, {"pinned": 99}, extra=PIN if how == "config" else "")
    budget = int(sizes["onnx_first"] + 2.5 * sizes["onnx"])  # the pinned one and one or two
    args = [f"--model-memory-budget={budget}"]
    if how == "flag":
        args.append("--model-memory-pin=pinned")
    server = inferd(tmp_path, args)
    client = server.client()
    if how == "flag":
        assert state(server, "pinned")[0] == "READY"  # loaded at start
    infer(client, "pinned", 99)  # then the least recently used of all
    for i in range(8):
        infer(client, f"m{i}", i)
    assert state(server, "pinned")[0] == "READY"
    samples = budget_metrics(server)
    assert family_total(samples, "inferd_model_evictions_total") >= 4
    assert samples.get(("inferd_model_evictions_total", "pinned"), 0) == 0


ENSEMBLE = """name: "ens"
platform: "ensemble"
max_batch_size: 0
input [ { name: "INDEX" data_type: TYPE_INT64 dims: [ 4 ] } ]
output [ { name: "VALUE" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "wstep" model_version: -1
  input_map { key: "INDEX" value: "INDEX" } output_map { key: "VALUE" value: "VALUE" } } ] }
"""


def test_an_ensemble_keeps_its_composing_model_while_it_is_loaded(inferd, tmp_path, sizes):
    write_onnx_models(tmp_path, {f"m{i}": i for i in range(6)})
    write_onnx_models(tmp_path, {"wstep": 50})
    write_repository(tmp_path, {"ens": ENSEMBLE})
    budget = int(sizes["onnx_first"] + 2.5 * sizes["onnx"])
    server = inferd(tmp_path, [f"--model-memory-budget={budget}"])
    client = server.client()
    infer(client, "ens", 50)  # its step loads first, measured on its own
    samples = budget_metrics(server)
    assert samples[("inferd_model_cold_loads_total", "wstep")] == 1
    assert samples[("inferd_model_cold_loads_total", "ens")] == 1
    for i in range(6):
        infer(client, f"m{i}", i)
        if state(server, "ens")[0] == "READY":
            assert state(server, "wstep")[0] == "READY"
    # The ensemble, least recently used, went first; then its step could.
    assert budget_metrics(server)[("inferd_model_evictions_total", "ens")] == 1
    infer(client, "ens", 50)


def test_an_explicit_load_pins_until_unload_then_the_model_loads_on_demand(inferd, tmp_path,
                                                                         sizes):
    write_onnx_models(tmp_path, {f"m{i}": i for i in range(4)})
    budget = int(sizes["onnx_first"] + 2.5 * sizes["onnx"])
    server = inferd(tmp_path, [f"--model-memory-budget={budget}",
                               "--model-control-mode=explicit", "--load-model=m0"])
    client = server.client()
    assert state(server, "m0")[0] == "READY"
    assert state(server, "m1") == ("UNAVAILABLE", NOT_LOADED)
    for i in (1, 2, 3):
        infer(client, f"m{i}", i)
    assert state(server, "m0")[0] == "READY"  # pinned by --load-model
    client.unload_model("m0")
    assert state(server, "m0") == ("UNAVAILABLE", "unloaded; loads again on its next request")
    infer(client, "m0", 0)  # on demand again, and no longer pinned
    client.load_model("m3")  # loaded already: pinned now
    for i in (1, 2):
        infer(client, f"m{i}", i)
    assert state(server, "m3")[0] == "READY"
    assert state(server, "m0")[0] == "UNAVAILABLE"


def test_a_model_that_fails_to_load_answers_503_with_the_reason(inferd, tmp_path):
    write_onnx_models(tmp_path, {"good": 1, "broken": 2})
    (tmp_path / "broken" / "1" / "model.onnx").write_bytes(b"not an onnx model")
    server = inferd(tmp_path, ["--model-memory-budget=1G"])
    for _ in range(2):  # the load, then the recorded failure
        response = server.post("/v2/models/broken/infer", json={"inputs": [
            {"name": "INDEX", "datatype": "INT64", "shape": [4], "data": [0, 1, 2, 3]}]})
        assert response.status_code == 503
        assert "broken" in response.json()["error"]
    assert state(server, "broken")[0] == "UNAVAILABLE"
    assert server.get("/v2/health/ready").status_code == 200  # one broken model of many
    infer(server.client(), "good", 1)


def test_a_wait_longer_than_the_timeout_answers_503_and_the_load_still_completes(inferd,
                                                                                tmp_path):
    gate = tmp_path / "gate"
    gate.mkdir()
    slow = holder_model("slow", gate)
    slow.files["1/model.py"] = slow.files["1/model.py"].replace(
        'self.dir = "', 'import os, time\n        while not os.path.exists("'
        + str(gate / "open") + '"):\n            time.sleep(0.005)\n        self.dir = "')
    (gate / "release").touch()
    repo = tmp_path / "repo"
    # The smallest model of each backend loads and unloads at start: not the slow one.
    tiny = holder_model("tiny", gate)
    tiny.files["1/model.py"] = "class TritonPythonModel:\n    pass\n"
    write_repository(repo, {"slow": slow, "tiny": tiny})
    server = inferd(repo, ["--model-memory-budget=1G", "--model-load-wait-timeout-ms=300"])
    with pytest.raises(InferenceServerException) as failure:
        server.client().infer("slow", [_index()])
    assert failure.value.status() in ("503", "StatusCode.UNAVAILABLE", 503)
    assert "did not load within 300 ms" in failure.value.message()
    (gate / "open").touch()
    wait_until(lambda: state(server, "slow")[0] == "READY", timeout=30,
               what="the slow model to finish loading")
    server.client().infer("slow", [_index()])
    assert budget_metrics(server)[("inferd_model_load_wait_failures_total", "")] == 1


def test_bad_budget_values_are_refused_naming_the_flag(inferd_path, tmp_path):
    import subprocess

    for value, why in [("lots", "not a positive number"), ("150%", "above 100"),
                       ("5X", "unknown unit")]:
        done = subprocess.run([str(inferd_path), f"--model-repository={tmp_path}",
                               f"--model-memory-budget={value}"],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode != 0
        assert "--model-memory-budget" in done.stderr and why in done.stderr, done.stderr


def _index():
    inp = httpclient.InferInput("INDEX", [4], "INT64")
    inp.set_data_from_numpy(np.arange(4, dtype=np.int64))
    return inp
