"""Metrics and identity flags (issue 22): --id names the server in server
metadata over HTTP and gRPC; --allow-cpu-metrics and --metrics-interval-ms put
Triton's CPU gauges on /metrics, sampled from /proc; --metrics-config turns the
latency counters off, or latency summaries with quantiles on, checked by
scraping /metrics after real inferences over HTTP and gRPC; bad settings stop
the server at startup naming them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from prometheus_client.parser import text_string_to_metric_families

from util import (backend_directory, inferd_binary, metrics_text, model_stats, single_identity,
                  wait_until)

MODEL = {"m": single_identity("m", "FP32", [4])}
LATENCY_COUNTERS = ("nv_inference_request_duration_us", "nv_inference_queue_duration_us",
                    "nv_inference_compute_input_duration_us",
                    "nv_inference_compute_infer_duration_us",
                    "nv_inference_compute_output_duration_us")
SUMMARIES = ("nv_inference_request_summary_us", "nv_inference_queue_summary_us",
             "nv_inference_compute_input_summary_us", "nv_inference_compute_infer_summary_us",
             "nv_inference_compute_output_summary_us")


def samples(text: str) -> dict[str, float]:
    """{'name{labels}': value} of every sample line."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            out[series] = float(value)
    return out


def infer_http_and_grpc(server, http_count: int, grpc_count: int) -> None:
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient

    data = np.arange(4, dtype=np.float32)
    client = server.client()
    for _ in range(http_count):
        inp = httpclient.InferInput("INPUT0", [4], "FP32")
        inp.set_data_from_numpy(data)
        result = client.infer("m", [inp])
        np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)
    grpc = server.grpc_client()
    for _ in range(grpc_count):
        inp = grpcclient.InferInput("INPUT0", [4], "FP32")
        inp.set_data_from_numpy(data)
        result = grpc.infer("m", [inp])
        np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)


def mem_total_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def run_inferd(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    repo = tmp_path / "empty"
    repo.mkdir(exist_ok=True)
    return subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                           f"--backend-directory={backend_directory()}", "--http-port=0",
                           "--grpc-port=0", "--metrics-port=0", *args],
                          capture_output=True, text=True, timeout=30)


# -- --id --------------------------------------------------------------------------


def test_id_names_the_server_in_metadata_over_http_and_grpc(inferd):
    server = inferd(MODEL, extra_args=["--id=edge-7"])
    assert server.get("/v2").json()["name"] == "edge-7"
    assert server.client().get_server_metadata()["name"] == "edge-7"
    assert server.grpc_client().get_server_metadata().name == "edge-7"


# -- CPU metrics --------------------------------------------------------------------


def test_cpu_gauges_are_present_and_plausible(inferd):
    server = inferd(MODEL, extra_args=["--metrics-interval-ms=50"])
    text = metrics_text(server)
    assert "# HELP nv_cpu_utilization CPU utilization rate [0.0 - 1.0]\n" in text
    assert "# TYPE nv_cpu_memory_total_bytes gauge\n" in text
    assert "# HELP nv_cpu_memory_used_bytes CPU used memory (RAM), in bytes\n" in text
    values = samples(text)
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for family in ("nv_cpu_utilization", "nv_cpu_memory_total_bytes", "nv_cpu_memory_used_bytes"):
        assert families[family].type == "gauge", family
        assert [s.labels for s in families[family].samples] == [{}], family
    assert 0.0 <= values["nv_cpu_utilization"] <= 1.0
    total = values["nv_cpu_memory_total_bytes"]
    assert total == mem_total_bytes()  # MemTotal does not change while the machine runs
    assert 0 < values["nv_cpu_memory_used_bytes"] <= total
    # The background thread samples again every 50 ms: with this test and the
    # server running, some CPU time is busy between two samples.
    wait_until(lambda: samples(metrics_text(server))["nv_cpu_utilization"] > 0,
               what="nv_cpu_utilization never moved from its first sample's 0")


def test_cpu_gauges_are_absent_with_allow_cpu_metrics_false(inferd):
    server = inferd(MODEL, extra_args=["--allow-cpu-metrics=false"])
    text = metrics_text(server)
    assert "nv_cpu_" not in text
    assert 'nv_inference_request_success{model="m",version="1"} 0' in text
    assert "Collecting CPU metrics" not in server.log()  # no sampling thread either


def test_cpu_sampling_follows_allow_metrics(inferd):
    sampling = inferd(MODEL, extra_args=["--metrics-interval-ms=1500"])
    assert "Collecting CPU metrics every 1500 ms" in sampling.log()
    # Without metrics there is no port to scrape, and nothing is sampled.
    off = inferd(MODEL, extra_args=["--allow-metrics=false"])
    assert off.metrics_port is None
    assert "Collecting CPU metrics" not in off.log()


def test_metrics_interval_of_zero_fails_naming_the_flag(tmp_path):
    result = run_inferd(tmp_path, "--metrics-interval-ms=0")
    assert result.returncode != 0
    assert "--metrics-interval-ms" in result.stderr, result.stderr


# -- --metrics-config ---------------------------------------------------------------


def test_default_has_latency_counters_and_no_summaries(inferd):
    server = inferd(MODEL)
    infer_http_and_grpc(server, 2, 1)
    wait_until(lambda: samples(metrics_text(server)).get(
        'nv_inference_request_success{model="m",version="1"}') == 3)
    text = metrics_text(server)
    for family in LATENCY_COUNTERS:
        assert f'{family}{{model="m",version="1"}}' in text, family
    assert "_summary_us" not in text


def test_summaries_with_configured_quantiles_and_no_latency_counters(inferd):
    server = inferd(MODEL, extra_args=[
        "--metrics-config=summary_latencies=true",
        "--metrics-config", "summary_quantiles=0.5:0.05,0.9:0.01",
        "--metrics-config=counter_latencies=false"])
    infer_http_and_grpc(server, 12, 8)
    labels = 'model="m",version="1"'
    # Compute times are recorded as each execution ends, which may be just
    # after its response reached the client.
    wait_until(lambda: all(samples(metrics_text(server)).get(f"{family}_count{{{labels}}}") == 20
                           for family in SUMMARIES),
               what=lambda: metrics_text(server))
    text = metrics_text(server)
    values = samples(text)
    # Prometheus' own parser reads the summaries as summaries.
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for family in SUMMARIES:
        assert families[family].type == "summary", family
    assert values[f"nv_inference_request_success{{{labels}}}"] == 20
    for family in LATENCY_COUNTERS:
        assert family not in text, family
    for family in SUMMARIES:
        assert f"# TYPE {family} summary\n" in text, family
        assert values[f"{family}_count{{{labels}}}"] == 20, family
        assert values[f"{family}_sum{{{labels}}}"] >= 0, family
        quantiles = re.findall(rf'^{family}{{{labels},quantile="([0-9.]+)"}} (\S+)$', text, re.M)
        assert [q for q, _ in quantiles] == ["0.5", "0.9"], (family, quantiles)
        for _, value in quantiles:
            assert float(value) >= 0, (family, value)  # a number, not NaN: the window has data
    assert (values[f'nv_inference_request_summary_us{{{labels},quantile="0.9"}}'] >=
            values[f'nv_inference_request_summary_us{{{labels},quantile="0.5"}}'])
    # The sums are the statistics extension's durations, in whole microseconds
    # per request (each of the 20 requests truncates less than 1 us).
    inference = model_stats(server, "m")["inference_stats"]
    for family, key in (("nv_inference_request_summary_us", "success"),
                        ("nv_inference_queue_summary_us", "queue"),
                        ("nv_inference_compute_input_summary_us", "compute_input"),
                        ("nv_inference_compute_infer_summary_us", "compute_infer"),
                        ("nv_inference_compute_output_summary_us", "compute_output")):
        total_us = inference[key]["ns"] / 1000
        assert total_us - 20 <= values[f"{family}_sum{{{labels}}}"] <= total_us, family


def test_default_quantiles_are_tritons(inferd):
    server = inferd(MODEL, extra_args=["--metrics-config=summary_latencies=true"])
    infer_http_and_grpc(server, 1, 0)
    labels = 'model="m",version="1"'
    wait_until(lambda: samples(metrics_text(server)).get(
        f"nv_inference_queue_summary_us_count{{{labels}}}") == 1)
    text = metrics_text(server)
    found = re.findall(rf'^nv_inference_queue_summary_us{{{labels},quantile="([0-9.]+)"}}', text,
                       re.M)
    assert found == ["0.5", "0.9", "0.95", "0.99", "0.999"]
    assert "nv_inference_request_duration_us" in text  # counters stay unless turned off


@pytest.mark.parametrize("setting,needle", [
    ("summary_latency=true", "unknown setting 'summary_latency'"),
    ("counter_latencies=maybe", "counter_latencies='maybe'"),
    ("summary_quantiles=0.5", "summary_quantiles='0.5'"),
    ("summary_quantiles=0.5:0.05,1.2:0.01", "'1.2:0.01'"),
    ("histogram_latencies=1", "histogram_latencies='1'"),
    ("summary_latencies", "expected <setting>=<value>"),
])
def test_bad_metrics_config_fails_at_startup_naming_it(tmp_path, setting, needle):
    result = run_inferd(tmp_path, f"--metrics-config={setting}")
    assert result.returncode != 0
    assert "--metrics-config" in result.stderr and needle in result.stderr, result.stderr
