"""Unloading through the repository API in EXPLICIT mode: with no body, with
unload_dependents false and true (no model here is an ensemble, so none
depends on another: the flag is accepted and only the named model goes; see
tests/integration/ensemble for ensembles), a
non-boolean flag is 400; the model becomes UNAVAILABLE "unloaded" while the
others keep serving; an unload waits for requests already admitted, which all
succeed; unloading twice is harmless and the model can be loaded again.
"""

from __future__ import annotations

import re
import threading

import pytest
import requests

from lifecycle_helpers import (entries, infer, infer_version, is_ready, load, model_config,
                               states, unload, wait_until)
from util import assert_error, record_lines, write_repository

UNLOADED = [{"name": "m", "state": "UNAVAILABLE", "reason": "unloaded"}]


def _start(launch, tmp_path, **config):
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", **config), "other": model_config("other")})
    return launch(repo, "--model-control-mode=explicit", "--load-model=*")


@pytest.mark.parametrize("dependents", [None, False, True], ids=["no-body", "false", "true"])
def test_unload_takes_only_the_named_model(launch, tmp_path, dependents):
    server = _start(launch, tmp_path)
    resp = unload(server, "m", dependents=dependents)
    assert resp.status_code == 200, resp.text
    assert entries(server, "m") == UNLOADED
    resp = infer(server, "m")
    assert resp.status_code != 200 and "m" in resp.json()["error"], resp.text
    assert states(server, "other") == {"1": "READY"}
    assert infer_version(server, "other") == 1
    assert is_ready(server)


def test_unload_dependents_must_be_a_boolean(launch, tmp_path):
    server = _start(launch, tmp_path)
    resp = server.post("/v2/repository/models/m/unload",
                       json={"parameters": {"unload_dependents": "yes"}})
    assert_error(resp, 400, "unload_dependents")
    assert states(server, "m") == {"1": "READY"}, "a rejected unload leaves the model loaded"


def test_unload_body_must_be_json(launch, tmp_path):
    server = _start(launch, tmp_path)
    assert_error(server.post("/v2/repository/models/m/unload", data="{nope"), 400)
    assert states(server, "m") == {"1": "READY"}


def test_unload_twice_then_load_again(launch, tmp_path):
    server = _start(launch, tmp_path)
    assert unload(server, "m").status_code == 200
    assert unload(server, "m").status_code == 200
    assert entries(server, "m") == UNLOADED
    assert load(server, "m").status_code == 200
    assert states(server, "m") == {"1": "READY"}
    assert infer_version(server, "m") == 1


def _executions_started(server, model="m"):
    """nv_inference_exec_count of `model`: counted when an execution starts."""
    text = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5).text
    match = re.search(r'^nv_inference_exec_count\{[^}]*model="%s"[^}]*\} (\S+)$'
                      % model, text, re.M)
    return float(match.group(1)) if match else 0.0


def test_unload_waits_for_admitted_requests_which_all_succeed(launch, tmp_path):
    rec = tmp_path / "m.rec"
    server = _start(launch, tmp_path, delay_ms=1500, instances=2, record=rec)
    results: list = []

    def call():
        resp = infer(server, "m")
        results.append((resp.status_code, resp.text))

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    wait_until(lambda: _executions_started(server) == 2, 5.0, "two requests in flight")
    resp = unload(server, "m")
    # The state when the unload returns: both executions have ended (the
    # identity backend records each as it ends, before its response is sent).
    finished = record_lines(rec)
    for t in threads:
        t.join(timeout=20)
    assert resp.status_code == 200, resp.text
    assert len(finished) == 2, (
        f"unload returned before its in-flight requests ended; executions finished then: "
        f"{finished}")
    assert [r[0] for r in results] == [200, 200], results
    assert entries(server, "m") == UNLOADED
    # New requests after the unload are refused.
    wait_until(lambda: infer(server, "m").status_code != 200, 2.0, "m refused after unload")
