"""Model control modes, seen from outside: NONE loads every model at start and
answers the load/unload API with 503 UNAVAILABLE naming the mode; POLL refuses
the API the same way; EXPLICIT loads only the --load-model models ('*' = all),
then loads, reloads and unloads through the repository API, and the repository
index reports each model's versions, state and reason (a model nobody asked for
shows only its name). --model-load-thread-count loads different models in
parallel. POLL's reaction to repository changes is in test_lifecycle_poll.py.
"""

from __future__ import annotations

import concurrent.futures

import pytest

from lifecycle_helpers import (entries, index, infer, infer_version, is_ready, load,
                               model_config, model_ready, states, unload, warmups)
from util import Model, assert_error, write_repository


def _repo(tmp_path, names=("a", "b", "c")):
    return write_repository(tmp_path / "repo", {n: model_config(n) for n in names})


@pytest.mark.parametrize("flags", [(), ("--model-control-mode=none",)], ids=["default", "none"])
def test_none_mode_loads_every_model_and_refuses_the_repository_api(launch, tmp_path, flags):
    server = launch(_repo(tmp_path), *flags)
    assert states(server, "a") == {"1": "READY"}
    assert states(server, "b") == {"1": "READY"}
    assert states(server, "c") == {"1": "READY"}
    for path in ("/v2/repository/models/a/load", "/v2/repository/models/a/unload"):
        message = assert_error(server.post(path), 503, "NONE")
        assert "explicit" in message
    # A model that is not even in the repository gets the same answer: the mode decides first.
    assert_error(server.post("/v2/repository/models/nope/load"), 503, "NONE")
    assert infer_version(server, "a") == 1, "a refused unload must leave the model serving"
    assert is_ready(server)


def test_poll_mode_refuses_the_repository_api(launch, tmp_path):
    # Default poll interval (15 s): this test is only about the API answer.
    server = launch(_repo(tmp_path), "--model-control-mode=poll")
    for path in ("/v2/repository/models/a/load", "/v2/repository/models/a/unload"):
        assert_error(server.post(path, json={"parameters": {}}), 503, "POLL")
    assert infer_version(server, "a") == 1


def test_explicit_loads_only_the_named_startup_models(launch, tmp_path):
    server = launch(_repo(tmp_path), "--model-control-mode=explicit", "--load-model=a",
                    "--load-model=c")
    assert states(server, "a") == {"1": "READY"}
    assert states(server, "c") == {"1": "READY"}
    # Never asked for: listed by name only (no version, state or reason), like Triton.
    assert entries(server, "b") == [{"name": "b"}]
    resp = infer(server, "b")
    assert resp.status_code in (400, 404, 503), resp.text
    assert is_ready(server), "b was never asked for, so it does not hold readiness back"


def test_explicit_star_loads_every_model(launch, tmp_path):
    server = launch(_repo(tmp_path), "--model-control-mode=explicit", "--load-model=*")
    for name in ("a", "b", "c"):
        assert states(server, name) == {"1": "READY"}
        assert infer_version(server, name) == 1


def test_explicit_without_load_model_loads_nothing(launch, tmp_path):
    server = launch(_repo(tmp_path), "--model-control-mode=explicit")
    assert sorted(index(server), key=lambda e: e["name"]) == [
        {"name": "a"}, {"name": "b"}, {"name": "c"}]
    assert index(server, ready=True) == []
    assert is_ready(server)


def test_explicit_unknown_startup_model_is_reported_and_leaves_readiness_alone(launch, tmp_path):
    server = launch(_repo(tmp_path), "--model-control-mode=explicit", "--load-model=a",
                    "--load-model=ghost", "--exit-on-error=false", wait_for="live")
    assert states(server, "a") == {"1": "READY"}
    ghost = entries(server, "ghost")
    assert len(ghost) == 1 and ghost[0]["state"] == "UNAVAILABLE", ghost
    assert "ghost" in ghost[0]["reason"] and "repository" in ghost[0]["reason"], ghost
    # Never got past the repository, so strict readiness does not count it (Triton).
    assert is_ready(server)


def test_explicit_load_reload_unload_and_load_again(launch, tmp_path):
    repo = _repo(tmp_path)
    server = launch(repo, "--model-control-mode=explicit", "--load-model=a")

    resp = load(server, "b")
    assert resp.status_code == 200, resp.text
    assert states(server, "b") == {"1": "READY"}
    assert infer_version(server, "b") == 1

    # Reload after a new version folder appeared: the default policy serves the latest.
    (repo / "b" / "2").mkdir()
    resp = load(server, "b")
    assert resp.status_code == 200, resp.text
    assert states(server, "b") == {"2": "READY"}
    assert infer_version(server, "b") == 2

    resp = unload(server, "b")
    assert resp.status_code == 200, resp.text
    assert entries(server, "b") == [{"name": "b", "state": "UNAVAILABLE", "reason": "unloaded"}]
    resp = infer(server, "b")
    assert resp.status_code in (400, 404, 503), resp.text
    assert "b" in resp.json()["error"]
    assert is_ready(server), "an unloaded model no longer counts for readiness"

    resp = load(server, "b")
    assert resp.status_code == 200, resp.text
    assert infer_version(server, "b") == 2
    assert states(server, "a") == {"1": "READY"}, "other models are untouched throughout"


def test_explicit_loads_a_model_added_after_start(launch, tmp_path):
    repo = _repo(tmp_path, ["a"])
    server = launch(repo, "--model-control-mode=explicit", "--load-model=a")
    write_repository(repo, {"late": Model(model_config("late"), versions=(3,))})
    resp = load(server, "late")
    assert resp.status_code == 200, resp.text
    assert states(server, "late") == {"3": "READY"}
    assert infer_version(server, "late") == 3


def test_explicit_unknown_model_is_404(launch, tmp_path):
    server = launch(_repo(tmp_path), "--model-control-mode=explicit")
    assert_error(load(server, "nope"), 404, "nope")
    assert_error(unload(server, "nope"), 404, "nope")
    assert all(e["name"] != "nope" for e in index(server)), "a 404 must not add an index row"


def test_explicit_failed_load_is_400_with_the_reason_in_the_index(launch, tmp_path):
    repo = _repo(tmp_path, ["a"])
    (repo / "broken" / "1").mkdir(parents=True)
    (repo / "broken" / "config.pbtxt").write_text(
        'name: "broken"\nbackend: "identity"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]\n')  # no output
    server = launch(repo, "--model-control-mode=explicit", "--load-model=a")
    message = assert_error(load(server, "broken"), 400, "broken")
    rows = entries(server, "broken")
    assert len(rows) == 1 and rows[0]["state"] == "UNAVAILABLE", rows
    assert rows[0]["reason"] and rows[0]["reason"] in message, (rows, message)
    assert states(server, "a") == {"1": "READY"}


def test_index_ready_filter(launch, tmp_path):
    repo = _repo(tmp_path, ["a", "b"])
    (repo / "bad" / "1").mkdir(parents=True)
    (repo / "bad" / "config.pbtxt").write_text('name: "bad"\nbackend: "no_such_backend"\n')
    server = launch(repo, "--model-control-mode=explicit", "--load-model=a", "--load-model=bad",
                    "--exit-on-error=false", wait_for="live")
    everything = {e["name"] for e in index(server)}
    assert everything == {"a", "b", "bad"}
    ready = index(server, ready=True)
    assert ready == [{"name": "a", "version": "1", "state": "READY", "reason": ""}]
    assert {e["name"] for e in index(server, ready=False)} == everything
    assert_error(server.post("/v2/repository/index", json={"ready": "yes"}), 400, "ready")


@pytest.mark.parametrize("threads", [1, 3])
def test_model_load_thread_count_loads_models_in_parallel(launch, tmp_path, threads):
    # Each model's load includes a 600 ms warmup; the warmup windows show whether
    # different models loaded at the same time.
    names = ["p0", "p1", "p2"]
    records = {n: tmp_path / f"{n}.rec" for n in names}
    repo = write_repository(tmp_path / "repo", {
        n: model_config(n, record=records[n], delay_ms=600, warmup_count=1) for n in names})
    launch(repo, f"--model-load-thread-count={threads}")
    windows = []
    for n in names:
        runs = warmups(records[n])
        assert len(runs) == 1, (n, runs)
        windows.append((runs[0].start_ns, runs[0].end_ns))
    windows.sort()
    overlapping = any(windows[i + 1][0] < windows[i][1] for i in range(len(windows) - 1))
    if threads == 1:
        assert not overlapping, f"one load thread, yet loads overlapped: {windows}"
    else:
        assert overlapping, f"three load threads, yet no two loads ran together: {windows}"


def test_http_serves_other_requests_while_a_load_blocks(launch, tmp_path):
    # One HTTP thread: the slow load (a warmup run that sleeps) must not hold it.
    repo = write_repository(tmp_path / "repo", {
        "fast": model_config("fast"),
        "slow": model_config("slow", delay_ms=1500, warmup_count=1)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=fast",
                    "--http-thread-count=1")
    loading = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    pending = loading.submit(load, server, "slow")
    try:
        while not any(e.get("name") == "slow" and e.get("state") == "LOADING"
                      for e in index(server)):
            assert not pending.done(), pending.result().text
        # The load is still running, and the only HTTP thread answers anyway.
        assert infer(server, "fast").status_code == 200
        assert server.get("/v2/health/live").status_code == 200
        assert not pending.done()
        assert pending.result().status_code == 200
        assert model_ready(server, "slow")
    finally:
        loading.shutdown()
