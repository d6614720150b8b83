"""The signals autoscalers and load balancers act on (docs/observability.md):
inferd_inference_requests_in_flight and inferd_model_saturation move while a
Python model holds a request (the test waits on what /metrics shows, the
model on a file the test creates), and the latency histograms (request,
queue, compute; buckets from --metrics-config latency_buckets) agree with the
statistics extension's counts."""

from __future__ import annotations

import threading

import numpy as np
import tritonclient.http as httpclient
from prometheus_client.parser import text_string_to_metric_families

from util import Model, metrics_text, settled_stats, single_identity, wait_until

HELD_CONFIG = """name: "held"
backend: "python"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
parameters { key: "gate_file" value: { string_value: "%s" } }
"""

# Answers at once, unless X is negative: then it holds the request (at most
# 60 s) until the gate file exists.
HELD_SOURCE = """
import json
import os
import time

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.gate = json.loads(args["model_config"])["parameters"]["gate_file"]["string_value"]

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if x[0] < 0:
                deadline = time.monotonic() + 60
                while not os.path.exists(self.gate) and time.monotonic() < deadline:
                    time.sleep(0.005)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))
        return responses
"""

BUCKETS = "0.0005,0.002,0.01,0.1,1"


def gauge(text: str, name: str, model: str) -> float | None:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("model") == model:
                return sample.value
    return None


def infer(server, model: str, value: float) -> None:
    client = httpclient.InferenceServerClient(server.address, network_timeout=120)
    inp = httpclient.InferInput("X", [1], "FP32")
    inp.set_data_from_numpy(np.array([value], dtype=np.float32))
    client.infer(model, [inp])


def test_in_flight_and_saturation_move_under_a_held_request(inferd, tmp_path):
    gate = tmp_path / "gate"
    server = inferd({"held": Model(config=HELD_CONFIG % gate, files={"1/model.py": HELD_SOURCE})},
                    extra_args=["--metrics-config=saturation_window_ms=1000"])
    text = metrics_text(server)
    assert gauge(text, "inferd_inference_requests_in_flight", "held") == 0
    assert gauge(text, "inferd_model_saturation", "held") == 0
    holder = threading.Thread(target=infer, args=(server, "held", -1.0))
    holder.start()
    try:
        wait_until(lambda: gauge(metrics_text(server), "inferd_inference_requests_in_flight",
                                 "held") == 1, what="one request in flight")
        # Busy the whole time since the request began: saturation climbs to 1.
        wait_until(lambda: gauge(metrics_text(server), "inferd_model_saturation", "held") > 0.9,
                   what="saturation above 0.9 while the request is held")
    finally:
        gate.touch()
        holder.join()
    wait_until(lambda: gauge(metrics_text(server), "inferd_inference_requests_in_flight",
                             "held") == 0, what="no request in flight")
    # Idle again: the busy time leaves the one-second window.
    wait_until(lambda: gauge(metrics_text(server), "inferd_model_saturation", "held") < 0.1,
               what="saturation back below 0.1")


def histogram(text: str, name: str, model: str) -> dict:
    """{le as a float: cumulative count} plus "count" and "sum" of `name` for
    `model`."""
    values = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("model") != model:
                continue
            if sample.name == name + "_bucket":
                values[float(sample.labels["le"])] = sample.value
            elif sample.name in (name + "_count", name + "_sum"):
                values[sample.name[len(name) + 1:]] = sample.value
    return values


def test_latency_histograms_agree_with_the_statistics_extension(inferd):
    server = inferd({"m": single_identity("m", "FP32", [1])},
                    extra_args=[f"--metrics-config=latency_buckets={BUCKETS}"])
    client = httpclient.InferenceServerClient(server.address)
    for _ in range(12):
        inp = httpclient.InferInput("INPUT0", [1], "FP32")
        inp.set_data_from_numpy(np.array([1.0], dtype=np.float32))
        client.infer("m", [inp])
    stats = settled_stats(server, "m")["inference_stats"]
    text = metrics_text(server)
    expected = {"inferd_request_latency_seconds": stats["success"]["count"] + stats["fail"]["count"],
                "inferd_queue_latency_seconds": stats["queue"]["count"],
                "inferd_compute_latency_seconds": stats["compute_infer"]["count"]}
    for name, count in expected.items():
        values = histogram(text, name, "m")
        assert count == 12, stats
        assert values["count"] == count, (name, values)
        bounds = [float(b) for b in BUCKETS.split(",")]
        cumulative = [values[le] for le in [*bounds, float("inf")]]
        assert cumulative == sorted(cumulative) and cumulative[-1] == count, (name, values)
        assert 0 < values["sum"] < count * 60, (name, values)
    # The queue histogram's sum is the statistics' queue time (ns), within the
    # rounding of the text.
    queue = histogram(text, "inferd_queue_latency_seconds", "m")
    assert abs(queue["sum"] - stats["queue"]["ns"] / 1e9) < 1e-6, (queue, stats["queue"])
