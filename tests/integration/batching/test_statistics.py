"""The statistics extension (GET /v2/models/stats, /v2/models/{m}/stats,
/v2/models/{m}/versions/{v}/stats; tritonclient.http get_inference_statistics)
must match what the backend saw, as recorded by the identity backend:

- execution_count == executions recorded; inference_count == rows recorded;
- batch_stats has one entry per batch size that ran, whose counts are the
  number of executions of that size;
- inference_stats: success counts the requests answered 200, fail the ones
  that failed after admission (timed out, cancelled); queue, compute_input,
  compute_infer and compute_output count every request that ran;
- durations are consistent with the backend's execute_delay_ms, which the
  identity backend reports as its compute span (INFERD_ModelInstanceReportComputeTimes),
  so copying outputs after it is compute_output;
- last_inference is the wall-clock time (ms since the epoch) of the last run.
"""

import collections
import socket
import time

import pytest

from util import settled_stats
from batching_util import (expect_ok, ids_in_order, pending_count, raw_infer, start_env,
                           wait_until)

DELAY_MS = 500
DURATIONS = ("success", "fail", "queue", "compute_input", "compute_infer", "compute_output",
             "cache_hit", "cache_miss", "rate_limiter_wait")


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "counted": dict(max_batch_size=8, delay_ms=DELAY_MS,
                        dynamic_batching="preferred_batch_size: [ 4 ]"),
        "idle": dict(max_batch_size=8, delay_ms=DELAY_MS),
        "loaded": dict(max_batch_size=8, delay_ms=2, instance_count=2, dynamic_batching=(
            "preferred_batch_size: [ 4, 8 ]\nmax_queue_delay_microseconds: 1000")),
        "failing": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=(
            "default_queue_policy { timeout_action: REJECT allow_timeout_override: true }")),
    })


@pytest.fixture(scope="module")
def workload(env):
    """Runs a mixed workload on 'counted' once: a blocker, then 6 queued requests
    (one of 2 rows: batches of 4 and 3 rows) behind it, then 3 sequential
    requests through tritonclient. Returns (requests run, each answered 200;
    wall-clock ms before; after; the executions of the blocker scenario)."""
    import numpy as np
    import tritonclient.http as httpclient

    start_ms = int(time.time() * 1000)
    specs = [(f"q{i}", dict(rows=2 if i == 4 else 1)) for i in range(6)]
    ex, futures, before = env.queue_behind_blocker("counted", specs)
    with ex:
        for future in futures.values():
            expect_ok(future)
    scenario = env.wait_record("counted", before + 3)[before:]
    client = env.server.client()
    try:
        for i in range(3):
            inp = httpclient.InferInput("INPUT0", [1, 4], "INT32")
            inp.set_data_from_numpy(np.full((1, 4), i, dtype=np.int32), binary_data=True)
            client.infer("counted", [inp], request_id=f"solo{i}")
    finally:
        client.close()
    # Normally 10; more when a scenario attempt on a loaded machine was redone.
    answered = len(ids_in_order(env.record("counted")))
    settled_stats(env.server, "counted")  # the last execution's compute part is in
    return answered, start_ms, int(time.time() * 1000), scenario


def test_counts_match_the_recorded_executions(env, workload):
    answered, _, _, _ = workload
    batches = env.record("counted")
    stats = env.stats("counted")
    assert stats["name"] == "counted" and stats["version"] == "1"
    assert stats["execution_count"] == len(batches), (stats, batches)
    assert stats["inference_count"] == sum(b.rows for b in batches), (stats, batches)
    requests_run = len(ids_in_order(batches))
    assert requests_run == answered >= 10
    inference = stats["inference_stats"]
    assert inference["success"]["count"] == answered
    assert inference["fail"]["count"] == 0
    for key in ("queue", "compute_input", "compute_infer", "compute_output"):
        assert inference[key]["count"] == requests_run, (key, inference[key])
    assert inference["cache_hit"] == {"count": 0, "ns": 0}
    assert inference["cache_miss"] == {"count": 0, "ns": 0}


def test_batch_stats_match_the_recorded_batch_sizes(env, workload):
    scenario = workload[3]
    assert [b.rows for b in scenario] == [1, 4, 3], f"unexpected workload shape: {scenario}"
    batches = env.record("counted")
    sizes = collections.Counter(b.rows for b in batches)
    stats = env.stats("counted")
    reported = {entry["batch_size"]: entry for entry in stats["batch_stats"]}
    assert sorted(reported) == sorted(sizes), (stats["batch_stats"], batches)
    for size, entry in reported.items():
        for key in ("compute_input", "compute_infer", "compute_output"):
            assert entry[key]["count"] == sizes[size], (size, key, entry, batches)
        # every execution slept execute_delay_ms
        assert entry["compute_infer"]["ns"] >= sizes[size] * DELAY_MS * 1e6 * 0.99, entry


def test_durations_are_consistent_with_the_backend(env, workload):
    answered = workload[0]
    inference = env.stats("counted")["inference_stats"]
    floor_ns = DELAY_MS * 1e6 * 0.99
    # Each request took part in an execution of at least execute_delay_ms.
    assert inference["compute_infer"]["ns"] >= answered * floor_ns, inference
    assert inference["success"]["ns"] >= answered * floor_ns, inference
    # End-to-end time covers queueing and execution.
    assert (inference["success"]["ns"]
            >= (inference["queue"]["ns"] + inference["compute_infer"]["ns"]) * 0.99), inference
    # The 7 queued requests waited behind the blocker.
    assert inference["queue"]["ns"] > 0
    # The backend reports its delay as the computation proper: what came
    # before and after it (copying outputs) is compute_input / compute_output,
    # nonzero but far shorter.
    for key in ("compute_input", "compute_output"):
        assert 0 < inference[key]["ns"] < inference["compute_infer"]["ns"] / 10, (key, inference)


def test_last_inference_is_the_wall_clock_time_of_the_last_run(env, workload):
    _, start_ms, end_ms, _ = workload
    last = env.stats("counted")["last_inference"]
    assert start_ms - 1000 <= last <= end_ms + 1000, (start_ms, last, end_ms)


def test_every_stats_path_and_tritonclient_agree(env, workload):
    single = env.stats("counted")
    versioned = env.server.get("/v2/models/counted/versions/1/stats")
    assert versioned.status_code == 200, versioned.text
    assert versioned.json() == {"model_stats": [single]}
    everything = env.server.get("/v2/models/stats")
    assert everything.status_code == 200, everything.text
    by_name = {m["name"]: m for m in everything.json()["model_stats"]}
    assert set(by_name) == {"counted", "idle", "failing", "loaded"}
    assert by_name["counted"] == single
    client = env.server.client()
    try:
        via_client = client.get_inference_statistics("counted")
        all_via_client = client.get_inference_statistics()
    finally:
        client.close()
    assert via_client == {"model_stats": [single]}
    assert {m["name"] for m in all_via_client["model_stats"]} == set(by_name)


def test_a_model_that_never_ran_reports_zeros(env):
    stats = env.stats("idle")
    assert stats["inference_count"] == 0 and stats["execution_count"] == 0
    assert stats["last_inference"] == 0
    assert stats["batch_stats"] == []
    assert set(stats["inference_stats"]) == set(DURATIONS)
    for key in DURATIONS:
        assert stats["inference_stats"][key] == {"count": 0, "ns": 0}, key


@pytest.mark.parametrize("path", ["/v2/models/nosuch/stats",
                                  "/v2/models/nosuch/versions/1/stats",
                                  "/v2/models/idle/versions/7/stats"])
def test_stats_of_an_unknown_model_or_version_is_404(env, path):
    resp = env.server.get(path)
    assert resp.status_code == 404, f"{path}: HTTP {resp.status_code} {resp.text}"
    assert "error" in resp.json()


def test_failures_are_counted_and_never_executed(env):
    """A request rejected by its timeout and one cancelled by its client count
    as failures; neither adds to inference or execution counts."""
    model = "failing"
    # One attempt only: the counts below are absolute. The blocker executes
    # four times the model's delay, so that a loaded machine still queues the
    # three requests below (and polls the gauge) before it ends.
    ex, futures, before = env.queue_behind_blocker(model, [], attempts=1,
                                                   blocker_delay_ms=4 * DELAY_MS)
    with ex:
        # The abandoned request is queued first: the expiring one may leave the
        # queue (its 50 ms run out) before a slow machine has polled the gauge.
        sock = raw_infer(env.server.port, model, "abandoned")
        ex.expect_queued("the abandoned request")
        futures["expires"] = ex.queue("expires", timeout_us=50_000)
        futures["served"] = ex.queue("served")
        env.assert_busy(model, before)
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        expired = futures.pop("expires").result(timeout=30)
        for future in futures.values():
            expect_ok(future)
    assert expired.status == 503, expired
    batches = env.wait_record(model, 2)
    assert ids_in_order(batches) == ["blocker", "served"]
    wait_until("nothing pending", lambda: pending_count(env.server, model) == 0, timeout_s=5)
    stats = settled_stats(env.server, model)
    inference = stats["inference_stats"]
    assert stats["execution_count"] == 2 and stats["inference_count"] == 2, stats
    assert inference["success"]["count"] == 2, inference
    assert inference["fail"]["count"] == 2, inference
    assert inference["compute_infer"]["count"] == 2, inference


def test_statistics_under_concurrent_load_match_the_record(env):
    """240 concurrent requests of 1-3 rows on two instances: every counter still
    agrees with the record, and nothing stays pending."""
    with env.exchange("loaded", workers=48) as ex:
        futures = [ex.send(f"l{i}", rows=1 + i % 3) for i in range(240)]
        for future in futures:
            expect_ok(future)
    batches = env.record("loaded")
    stats = settled_stats(env.server, "loaded")
    assert len(ids_in_order(batches)) == 240
    assert stats["execution_count"] == len(batches)
    assert stats["inference_count"] == sum(b.rows for b in batches) == 480
    assert stats["inference_stats"]["success"]["count"] == 240
    sizes = collections.Counter(b.rows for b in batches)
    assert {e["batch_size"]: e["compute_infer"]["count"] for e in stats["batch_stats"]} == sizes
    assert all(b.rows <= 8 for b in batches)
    assert len({b.instance for b in batches}) == 2, "only one instance ran"
    wait_until("nothing pending", lambda: pending_count(env.server, "loaded") == 0, timeout_s=5)
