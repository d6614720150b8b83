"""Ensembles and the lifecycle, in EXPLICIT mode: loading an ensemble loads its
composing models; an ensemble is ready only while they are (unloading one makes
it UNAVAILABLE naming the model, loading it again makes it READY);
unload_dependents unloads the composing models no other ensemble runs; a
composing model reloaded while ensemble requests keep coming fails none of
them; and every validation failure is a load error naming ensemble, step and
tensor (a cycle between two ensembles included), and ensembles in a cycle
loaded in parallel at startup fail without blocking each other; a server told
to stop finishes the nested-ensemble requests in flight (outer ensembles are
unloaded before the models they run).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lifecycle"))

from ensemble_util import DIMS, ensemble_config, identity, repository  # noqa: E402
from lifecycle_helpers import load, model_ready, states, unload, wait_until  # noqa: E402
from util import REQUEST_TIMEOUT_S, assert_error, executions_started, touch  # noqa: E402

F = "FP32"
ROW = [float(i) for i in range(DIMS[0])]


def pipe(name: str, first: str, second: str) -> str:
    return ensemble_config(name, [("IN", F, DIMS)], [("OUT", F, DIMS)],
                           [(first, {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
                            (second, {"INPUT0": "t"}, {"OUTPUT0": "OUT"})])


BAD = {
    # name: (config, what the load error says)
    "bad_twice": (ensemble_config(
        "bad_twice", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"}), ("b", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})]),
        "ensemble 'bad_twice': tensor 'OUT' is produced twice: by step[0] (model 'a') output "
        "'OUTPUT0' and by step[1] (model 'b') output 'OUTPUT0'"),
    "bad_unproduced": (ensemble_config(
        "bad_unproduced", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "nowhere"}, {"OUTPUT0": "OUT"})]),
        "ensemble 'bad_unproduced': step[0] (model 'a') input 'INPUT0' reads tensor 'nowhere', "
        "which no ensemble input or step produces"),
    "bad_cycle": (ensemble_config(
        "bad_cycle", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"}), ("b", {"INPUT0": "u"}, {"OUTPUT0": "v"}),
         ("c", {"INPUT0": "v"}, {"OUTPUT0": "u"})]),
        "ensemble 'bad_cycle': the steps form a cycle: step[1] (model 'b') input 'INPUT0' "
        "waits on tensor 'u' of step[2] (model 'c')"),
    "bad_output": (ensemble_config(
        "bad_output", [("IN", F, DIMS)], [("OUT", F, DIMS), ("MORE", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})]),
        "ensemble 'bad_output': ensemble output 'MORE' is produced by no step"),
    "bad_dtype": (ensemble_config(
        "bad_dtype", [("IN", "INT32", DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})]),
        "ensemble 'bad_dtype': tensor 'IN' is TYPE_INT32 from ensemble input 'IN' but step[0] "
        "(model 'a') input 'INPUT0' expects TYPE_FP32"),
    "bad_shape": (ensemble_config(
        "bad_shape", [("IN", F, [8])], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})]),
        "ensemble 'bad_shape': tensor 'IN' has shape [-1,8] from ensemble input 'IN' but step[0] "
        "(model 'a') input 'INPUT0' expects [-1,16]"),
    "bad_batch": (ensemble_config(
        "bad_batch", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})], max_batch_size=64),
        "ensemble 'bad_batch': max_batch_size 64 is larger than step[0] (model 'a')'s "
        "max_batch_size 8"),
    "bad_instances": (ensemble_config(
        "bad_instances", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})],
        extra="instance_group [ { count: 1 } ]\n"),
        "an ensemble has no instances"),
    "bad_missing_model": (pipe("bad_missing_model", "a", "no_such_model"),
                          "ensemble 'bad_missing_model': step[1] (model 'no_such_model'): "
                          "model 'no_such_model' is not in any model repository"),
    "loop_one": (pipe("loop_one", "a", "loop_two"), "ensembles form a cycle: 'loop_one' -> "
                 "'loop_two' -> 'loop_one'"),
    "loop_two": (pipe("loop_two", "a", "loop_one"), None),
}

MODELS = {
    "a": identity("a"), "b": identity("b"), "c": identity("c"), "d": identity("d"),
    "pipe": pipe("pipe", "a", "b"),
    "other": pipe("other", "c", "b"),  # shares b with pipe
    "solo": pipe("solo", "c", "d"),
    **{name: config for name, (config, _) in BAD.items()},
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS, onnx_add_sub=False),
                  ["--model-control-mode=explicit"])


def infer(server, model: str, session=None) -> requests.Response:
    body = {"inputs": [{"name": "IN", "datatype": F, "shape": [1] + DIMS, "data": ROW}]}
    return (session or requests).post(f"{server.url}/v2/models/{model}/infer", json=body,
                                      timeout=REQUEST_TIMEOUT_S)


def assert_answers(resp: requests.Response) -> None:
    assert resp.status_code == 200, resp.text
    assert resp.json()["outputs"][0]["data"] == ROW


def test_loading_an_ensemble_loads_its_composing_models(server):
    assert "READY" not in states(server, "a").values()
    assert load(server, "pipe").status_code == 200
    assert states(server, "a") == {"1": "READY"}
    assert states(server, "b") == {"1": "READY"}
    assert states(server, "pipe") == {"1": "READY"}
    assert_answers(infer(server, "pipe"))


def test_an_ensemble_is_ready_only_while_its_composing_models_are(server):
    assert load(server, "pipe").status_code == 200
    assert model_ready(server, "pipe")
    assert unload(server, "a").status_code == 200
    assert not model_ready(server, "pipe")
    [entry] = [e for e in requests.post(f"{server.url}/v2/repository/index").json()
               if e["name"] == "pipe"]
    assert entry["state"] == "UNAVAILABLE"
    assert entry["reason"] == "composing model 'a' (step[0]) is not ready"
    assert_error(infer(server, "pipe"), 503, "'pipe'", "composing model 'a' (step[0]) is not ready")
    assert load(server, "a").status_code == 200
    assert model_ready(server, "pipe")
    assert_answers(infer(server, "pipe"))


def test_unload_dependents_unloads_composing_models_no_other_ensemble_runs(server):
    for name in ("pipe", "other", "solo"):
        assert load(server, name).status_code == 200
    assert unload(server, "solo", dependents=True).status_code == 200
    assert "READY" not in states(server, "d").values()
    assert states(server, "c") == {"1": "READY"}  # 'other' still runs c
    assert unload(server, "pipe", dependents=True).status_code == 200
    assert "READY" not in states(server, "a").values()
    assert states(server, "b") == {"1": "READY"}  # 'other' still runs b
    assert_answers(infer(server, "other"))
    assert unload(server, "other", dependents=False).status_code == 200
    assert states(server, "b") == {"1": "READY"}


def test_reloading_a_composing_model_under_load_fails_no_request(server):
    assert load(server, "pipe").status_code == 200
    stop = threading.Event()
    failures: list[str] = []
    answered = [0] * 4
    lock = threading.Lock()

    def client(slot: int) -> None:
        with requests.Session() as session:
            while not stop.is_set():
                resp = infer(server, "pipe", session)
                with lock:
                    if resp.status_code == 200 and resp.json()["outputs"][0]["data"] == ROW:
                        answered[slot] += 1
                    else:
                        failures.append(f"{resp.status_code}: {resp.text}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(answered))]
    for thread in threads:
        thread.start()
    try:
        for _ in range(3):
            with lock:
                seen = sum(answered)
            wait_until(lambda: sum(answered) >= seen + 20, 30, "ensemble requests answered")
            touch(server.repositories[0] / "b" / "config.pbtxt")
            assert load(server, "b").status_code == 200  # a fresh version of b takes over
        with lock:
            seen = sum(answered)
        wait_until(lambda: sum(answered) >= seen + 20, 30, "requests after the last reload")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == []


@pytest.mark.parametrize("name", [n for n, (_, m) in BAD.items() if m])
def test_each_validation_failure_is_a_load_error_naming_ensemble_step_and_tensor(server, name):
    resp = load(server, name)
    assert_error(resp, 400, f"failed to load model '{name}'", BAD[name][1])
    assert "READY" not in states(server, name).values()


def test_ensembles_in_a_cycle_fail_to_load_at_startup_and_the_server_comes_up(inferd, tmp_path):
    # Loaded in parallel at startup (control mode NONE): neither load may wait
    # on the other.
    models = {"a": identity("a"), "loop_one": pipe("loop_one", "a", "loop_two"),
              "loop_two": pipe("loop_two", "a", "loop_one"), "fine": pipe("fine", "a", "a")}
    server = inferd(repository(tmp_path / "repo", models, onnx_add_sub=False),
                    ["--model-load-thread-count=4", "--exit-on-error=false"], wait_for="live")
    wait_until(lambda: states(server, "fine") == {"1": "READY"}, 30, "'fine' READY")
    for name in ("loop_one", "loop_two"):
        wait_until(lambda: "UNAVAILABLE" in states(server, name).values(), 30,
                   f"{name} UNAVAILABLE")
        [entry] = [e for e in requests.post(f"{server.url}/v2/repository/index").json()
                   if e["name"] == name]
        assert "ensembles form a cycle" in entry["reason"], entry


def test_stopping_the_server_finishes_nested_ensemble_requests(inferd, tmp_path):
    # outer runs slow, then the ensemble inner: a request in slow when the
    # server is told to stop still needs inner afterwards.
    slow = identity("slow", extra='parameters { key: "execute_delay_ms" value: { '
                                  'string_value: "300" } }\n')
    outer = ensemble_config("outer", [("IN", F, DIMS)], [("OUT", F, DIMS)],
                            [("slow", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
                             ("inner", {"IN": "t"}, {"OUT": "OUT"})])
    models = {"slow": slow, "a": identity("a"), "inner": pipe("inner", "a", "a"),
              "outer": outer}
    server = inferd(repository(tmp_path / "repo", models, onnx_add_sub=False))
    answers: list[requests.Response] = []
    thread = threading.Thread(target=lambda: answers.append(infer(server, "outer")))
    thread.start()
    wait_until(lambda: executions_started(server, "slow") >= 1, 30, "slow executing")
    assert server.stop() == 0
    thread.join()
    assert_answers(answers[0])
