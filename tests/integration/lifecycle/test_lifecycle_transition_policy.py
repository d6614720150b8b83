"""--model-transition-policy: availability (default) loads the new version and
puts it in service before the old one is retired, so clients sending requests
throughout a reload never fail and the old version keeps executing requests
while the new one warms up; resource retires the old version first, so no
request executes while the new one loads (the record file shows the gap, and
requests sent in it are refused) and the two never hold resources together.

The identity backend's record file tells the two apart: the new version's
warmup (id "warmup:w", 10 runs of 30 ms) marks its load, client requests
(ids "c<thread>-<n>") show who was serving meanwhile.
"""

from __future__ import annotations

import subprocess

import pytest

from lifecycle_helpers import (ClientPool, infer_version, load, model_config, read_record,
                               ready_versions, wait_until, warmups)
from util import touch, write_repository

WARMUP_RUNS = 10
DELAY_MS = 30


def _reload_under_load(launch, tmp_path, policy):
    rec = tmp_path / "m.rec"
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", record=rec, delay_ms=DELAY_MS, warmup_count=WARMUP_RUNS,
                          instances=2)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m",
                    f"--model-transition-policy={policy}")
    assert len(warmups(rec)) == 2 * WARMUP_RUNS
    with ClientPool(server, "m", threads=4, max_seconds=30) as pool:
        wait_until(lambda: pool.count() >= 20, 10, "clients running")
        touch(repo / "m" / "config.pbtxt")  # else the load changes nothing
        resp = load(server, "m")
        after = pool.count()
        wait_until(lambda: pool.count() >= after + 20, 10, "clients running after the reload")
    assert resp.status_code == 200, resp.text
    runs = read_record(rec)
    new_warmup = [e for e in runs if "warmup:w" in e.ids][2 * WARMUP_RUNS:]
    assert len(new_warmup) == 2 * WARMUP_RUNS, "the reload warms up both new instances"
    window = (min(e.start_ns for e in new_warmup), max(e.end_ns for e in new_warmup))
    clients = [e for e in runs if not any(i.startswith("warmup:") for i in e.ids)]
    during = [e for e in clients if e.end_ns > window[0] and e.start_ns < window[1]]
    return pool, window, clients, during


def test_availability_keeps_the_old_version_serving_during_the_reload(launch, tmp_path):
    pool, window, clients, during = _reload_under_load(launch, tmp_path, "availability")
    assert pool.failures == [], pool.failures[:10]
    # The warmup window lasts ~600 ms: the old version executed requests in it.
    assert len(during) >= 3, f"only {len(during)} requests ran during the new version's load"


def test_resource_retires_the_old_version_before_loading_the_new(launch, tmp_path):
    pool, window, clients, during = _reload_under_load(launch, tmp_path, "resource")
    assert during == [], f"requests executed while the new version loaded: {during[:5]}"
    before = [e for e in clients if e.start_ns < window[0]]
    after = [e for e in clients if e.start_ns >= window[1]]
    assert before and after, "clients ran both before and after the reload"
    # Requests sent while nothing served are refused (resource preserving trades
    # availability for never holding both versions); none fail otherwise.
    assert all("HTTP 503" in f for f in pool.failures), pool.failures[:10]


def test_resource_policy_still_swaps_versions(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m",
                    "--model-transition-policy=resource")
    (repo / "m" / "2").mkdir()
    assert load(server, "m").status_code == 200
    assert ready_versions(server, "m") == [2]
    assert infer_version(server, "m") == 2


@pytest.mark.parametrize("policy", ["sideways", ""])
def test_unknown_policy_is_refused_at_start(inferd_path, tmp_path, policy):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    result = subprocess.run(
        [str(inferd_path), f"--model-repository={repo}", "--http-port=0",
         f"--model-transition-policy={policy}"],
        capture_output=True, text=True, timeout=20)
    assert result.returncode != 0
    assert "model-transition-policy" in result.stdout + result.stderr
