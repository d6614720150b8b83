"""Prometheus metrics on --metrics-port, scraped over HTTP and parsed with
prometheus_client's text parser (the exposition format a Prometheus server
reads):

- GET /metrics answers text/plain exposition 0.0.4; every other path on that
  port is 404, and /metrics is not served on the inference port;
- per model and version (labels model, version): counters
  nv_inference_request_success, nv_inference_request_failure, nv_inference_count,
  nv_inference_exec_count, nv_inference_request_duration_us,
  nv_inference_queue_duration_us, nv_inference_compute_{input,infer,output}_duration_us;
  the gauge nv_inference_pending_request_count; the histogram
  inferd_request_latency_seconds;
- the values agree with the statistics extension and with the executions the
  identity backend recorded;
- --allow-metrics=false serves no metrics at all.
"""

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from util import settled_stats
from batching_util import (expect_ok, ids_in_order, metrics_text, pending_count, start_env,
                           wait_until)

DELAY_MS = 300
LABEL_MODELS = {"m", "other"}

COUNTERS = [
    "nv_inference_request_success",
    "nv_inference_request_failure",
    "nv_inference_count",
    "nv_inference_exec_count",
    "nv_inference_request_duration_us",
    "nv_inference_queue_duration_us",
    "nv_inference_compute_input_duration_us",
    "nv_inference_compute_infer_duration_us",
    "nv_inference_compute_output_duration_us",
]
GAUGES = ["nv_inference_pending_request_count"]
HISTOGRAM = "inferd_request_latency_seconds"


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "m": dict(max_batch_size=8, delay_ms=DELAY_MS,
                  dynamic_batching="preferred_batch_size: [ 2 ]"),
        "other": dict(max_batch_size=8, delay_ms=DELAY_MS),
    })


def scrape(env) -> dict:
    """{family name: Metric} parsed from /metrics."""
    return {f.name: f for f in text_string_to_metric_families(metrics_text(env.server))}


def value(families, name, model, suffix=""):
    """The sample of family `name` (sample name + suffix) for `model` version 1."""
    family = families[name]
    matches = [s for s in family.samples
               if s.labels.get("model") == model and s.labels.get("version") == "1"
               and s.name in (name + suffix, name + "_total")]
    assert len(matches) == 1, f"{name}{suffix} for model {model}: {matches}"
    return matches[0].value


@pytest.fixture(scope="module")
def workload(env):
    """Blocker + 3 queued requests (batches 1, 2, 1 rows) + 2 sequential ones.
    Returns how many requests ran (normally 6), each answered 200."""
    ex, futures, _ = env.queue_behind_blocker("m", [("a", {}), ("b", {}), ("c", {})])
    with ex:
        for future in futures.values():
            expect_ok(future)
        for i in range(2):
            expect_ok(ex.send(f"s{i}"))
    wait_until("nothing pending", lambda: pending_count(env.server, "m") == 0, timeout_s=5)
    ran = len(ids_in_order(env.record("m")))
    settled_stats(env.server, "m")  # the last execution's compute times are in
    return ran


def test_metrics_endpoint_serves_the_exposition_format(env):
    resp = requests.get(f"http://127.0.0.1:{env.server.metrics_port}/metrics", timeout=5)
    assert resp.status_code == 200, resp.text
    content_type = resp.headers.get("Content-Type", "")
    assert content_type.startswith("text/plain") and "version=0.0.4" in content_type, content_type
    families = {f.name: f for f in text_string_to_metric_families(resp.text)}
    for name in COUNTERS:
        assert families[name].type == "counter", name
    for name in GAUGES:
        assert families[name].type == "gauge", name
    assert families[HISTOGRAM].type == "histogram"
    for name in COUNTERS + GAUGES + [HISTOGRAM]:
        assert families[name].documentation.strip(), f"{name} has no HELP text"
        models = {s.labels.get("model") for s in families[name].samples}
        assert models == LABEL_MODELS, (name, models)
        for sample in families[name].samples:
            assert sample.labels.get("version") == "1", (name, sample)


def test_counters_match_statistics_and_the_record(env, workload):
    families = scrape(env)
    stats = env.stats("m")
    batches = env.record("m")
    inference = stats["inference_stats"]
    assert value(families, "nv_inference_request_success", "m") == inference["success"]["count"] \
        == workload
    assert value(families, "nv_inference_request_failure", "m") == inference["fail"]["count"] == 0
    assert value(families, "nv_inference_count", "m") == stats["inference_count"] \
        == sum(b.rows for b in batches)
    assert value(families, "nv_inference_exec_count", "m") == stats["execution_count"] \
        == len(batches)
    assert len(ids_in_order(batches)) == workload

    def close_us(metric, ns):
        got = value(families, metric, "m")
        assert abs(got - ns / 1000) <= 2, f"{metric} = {got}, statistics say {ns} ns"

    close_us("nv_inference_request_duration_us",
             inference["success"]["ns"] + inference["fail"]["ns"])
    close_us("nv_inference_queue_duration_us", inference["queue"]["ns"])
    close_us("nv_inference_compute_input_duration_us", inference["compute_input"]["ns"])
    close_us("nv_inference_compute_infer_duration_us", inference["compute_infer"]["ns"])
    close_us("nv_inference_compute_output_duration_us", inference["compute_output"]["ns"])
    # Every request ran in an execution of at least execute_delay_ms.
    assert value(families, "nv_inference_compute_infer_duration_us", "m") >= \
        workload * DELAY_MS * 1000 * 0.99
    # The idle model reports zeros.
    for name in COUNTERS:
        assert value(families, name, "other") == 0, name


def test_latency_histogram_is_consistent(env, workload):
    families = scrape(env)
    samples = [s for s in families[HISTOGRAM].samples if s.labels.get("model") == "m"]
    buckets = [(float(s.labels["le"]), s.value) for s in samples if s.name.endswith("_bucket")]
    assert buckets == sorted(buckets, key=lambda b: b[0]), "buckets out of order"
    counts = [count for _, count in buckets]
    assert counts == sorted(counts), f"bucket counts are not cumulative: {buckets}"
    assert buckets[-1][0] == float("inf")
    total = value(families, HISTOGRAM, "m", "_count")
    assert buckets[-1][1] == total == workload
    # Every request took at least execute_delay_ms (200 ms).
    for bound, count in buckets:
        if bound < DELAY_MS / 1000:
            assert count == 0, f"{count} requests faster than {bound}s: {buckets}"
    latency_sum = value(families, HISTOGRAM, "m", "_sum")
    duration_us = value(families, "nv_inference_request_duration_us", "m")
    assert abs(latency_sum - duration_us / 1e6) < 0.001, (latency_sum, duration_us)
    assert latency_sum >= workload * DELAY_MS / 1000 * 0.99


def test_pending_gauge_counts_requests_awaiting_execution(env, workload):
    """Triton's nv_inference_pending_request_count is "the number of inference
    requests awaiting execution by the backend": incremented when a request is
    enqueued and decremented when the backend is about to execute it. While the
    blocker executes and 3 requests wait, it must read 3."""
    ex, futures, before = env.queue_behind_blocker("m", [("p1", {}), ("p2", {}), ("p3", {})])
    with ex:
        during = value(scrape(env), "nv_inference_pending_request_count", "m")
        env.assert_busy("m", before)
        for future in futures.values():
            expect_ok(future)
    wait_until("pending back to 0", lambda: pending_count(env.server, "m") == 0, timeout_s=5)
    assert during == 3, (
        f"nv_inference_pending_request_count read {during} with 3 requests queued and 1 "
        "executing; Triton counts only requests awaiting execution")


@pytest.mark.parametrize("path", ["/", "/metrics/extra", "/metricsx", "/v2/health/live",
                                  "/v2/models/stats", "/v2"])
def test_other_paths_on_the_metrics_port_are_404(env, path):
    resp = requests.get(f"http://127.0.0.1:{env.server.metrics_port}{path}", timeout=5)
    assert resp.status_code == 404, f"{path}: HTTP {resp.status_code} {resp.text[:200]}"


def test_metrics_are_not_served_on_the_inference_port(env):
    assert env.server.get("/metrics").status_code == 404


def test_allow_metrics_false_serves_no_metrics(inferd, tmp_path_factory):
    env = start_env(inferd, tmp_path_factory, {"m": dict(max_batch_size=8)},
                    extra_args=("--allow-metrics=false",))
    assert env.server.metrics_port is None
    assert "Metrics Service" not in env.server.log()
    assert env.server.get("/v2/health/ready").status_code == 200
    assert env.server.get("/metrics").status_code == 404
