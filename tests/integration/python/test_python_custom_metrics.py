"""Custom metrics from Python models (pb_utils.MetricFamily, Triton's API):

- a counter, a gauge and a histogram a model updates in execute() appear on
  /metrics beside the server's own, in Prometheus text that Prometheus' own
  parser reads, with their labels (escaped) and histogram buckets, and the
  values N requests over HTTP and gRPC put there; two instances asking for the
  same family and labels share one metric; value() reads it back;
- a decoupled model's metric counts the responses it sent;
- misuse (a negative counter increment, set() on a counter, a histogram
  without buckets, decreasing buckets, a label that is not a str, a family
  name taken by another kind or by the server, value() of a histogram)
  raises TritonModelException in the model, and the server serves on;
- a stub that dies releases what it held: its successor's initialize()
  starts the metric again from zero;
- finalize() may still read its metrics; after the model's unload its
  metrics are gone from /metrics.
"""

from __future__ import annotations

import json
import os
import signal

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from prometheus_client.parser import text_string_to_metric_families

import python_models as pm
from util import metrics_text, wait_until

METRICS = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.requests = pb_utils.MetricFamily(
            name="custom_requests_total",
            description="Requests this model \\\\saw\\nby instance kind",
            kind=pb_utils.MetricFamily.COUNTER)
        self.counter = self.requests.Metric(
            labels={"model": args["model_name"], "note": 'say "hi"'})
        self.last = pb_utils.MetricFamily(
            name="custom_last_sum", description="Sum of the last input",
            kind=pb_utils.MetricFamily.GAUGE).Metric(labels={"model": args["model_name"]})
        self.sizes = pb_utils.MetricFamily(
            name="custom_input_value", description="Input values",
            kind=pb_utils.MetricFamily.HISTOGRAM).Metric(
                labels={"model": args["model_name"]}, buckets=[1.0, 2.0, 4.0])

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            self.counter.increment(1)
            self.last.set(float(x.sum()))
            for v in x.flat:
                self.sizes.observe(float(v))
            count = np.array([self.counter.value()], dtype=np.float64)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("COUNT", count)]))
        return responses

    def finalize(self):
        print(f"custom metrics: finalize read {self.counter.value():g} requests", flush=True)
'''

METRICS_CONFIG = pm.config("metrics", [("X", "TYPE_FP32", [3])], [("COUNT", "TYPE_FP64", [1])],
                           extra="instance_group [ { count: 2 kind: KIND_CPU } ]\n")

STREAM = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        family = pb_utils.MetricFamily("custom_stream_responses", "Responses streamed",
                                       pb_utils.MetricFamily.COUNTER)
        self.sent = family.Metric()

    def execute(self, requests):
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "N").as_numpy()[0])
            sender = request.get_response_sender()
            for i in range(n):
                self.sent.increment(1)  # before the response: counted when it arrives
                sender.send(pb_utils.InferenceResponse(
                    [pb_utils.Tensor("I", np.array([i], dtype=np.int32))]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
'''

STREAM_CONFIG = pm.config("stream", [("N", "TYPE_INT32", [1])], [("I", "TYPE_INT32", [1])],
                          extra="model_transaction_policy { decoupled: true }\n")

# Each case: a statement that must raise TritonModelException.
MISUSE = '''
import json

import numpy as np
import triton_python_backend_utils as pb_utils

F = pb_utils.MetricFamily


def attempts(self):
    return {
        "negative_increment": lambda: self.counter.increment(-1),
        "set_counter": lambda: self.counter.set(3),
        "observe_gauge": lambda: self.gauge.observe(3),
        "increment_histogram": lambda: self.histogram.increment(1),
        "histogram_value": lambda: self.histogram.value(),
        "no_buckets": lambda: F("custom_h2", "h", F.HISTOGRAM).Metric(),
        "decreasing_buckets": lambda: F("custom_h3", "h", F.HISTOGRAM).Metric(buckets=[2, 1]),
        "counter_buckets": lambda: F("custom_c2", "c", F.COUNTER).Metric(buckets=[1]),
        "label_not_str": lambda: F("custom_c3", "c", F.COUNTER).Metric(labels={"a": 1}),
        "labels_not_dict": lambda: F("custom_c4", "c", F.COUNTER).Metric(labels=["a"]),
        "bad_label_name": lambda: F("custom_c5", "c", F.COUNTER).Metric(labels={"a-b": "x"}),
        "kind_taken": lambda: F("custom_misuse_counter", "again", F.GAUGE),
        "server_name": lambda: F("nv_inference_count", "mine", F.COUNTER),
        "bad_name": lambda: F("has space", "x", F.GAUGE),
        "bad_kind": lambda: F("custom_k", "x", 7),
        "not_a_number": lambda: self.gauge.set("high"),
    }


class TritonPythonModel:
    def initialize(self, args):
        self.counter = F("custom_misuse_counter", "c", F.COUNTER).Metric()
        self.gauge = F("custom_misuse_gauge", "g", F.GAUGE).Metric()
        self.histogram = F("custom_misuse_histogram", "h", F.HISTOGRAM).Metric(buckets=[1])

    def execute(self, requests):
        outcome = {}
        for name, attempt in attempts(self).items():
            try:
                attempt()
                outcome[name] = "no exception"
            except pb_utils.TritonModelException as e:
                outcome[name] = str(e)
        text = np.array([json.dumps(outcome)], dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", text)]) for _ in requests]
'''

MISUSE_CONFIG = pm.config("misuse", [("X", "TYPE_INT32", [1])], [("OUT", "TYPE_STRING", [1])])


RESTARTS = '''
import os

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.seen = pb_utils.MetricFamily("custom_seen", "Requests seen",
                                          pb_utils.MetricFamily.COUNTER).Metric()

    def execute(self, requests):
        self.seen.increment(len(requests))
        out = np.array([os.getpid(), self.seen.value()], dtype=np.float64)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", out)]) for _ in requests]
'''

RESTARTS_CONFIG = pm.config("restarts", [("X", "TYPE_INT32", [1])], [("OUT", "TYPE_FP64", [2])])


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        "metrics": pm.python_model(METRICS_CONFIG, METRICS),
        "stream": pm.python_model(STREAM_CONFIG, STREAM),
        "misuse": pm.python_model(MISUSE_CONFIG, MISUSE),
        "restarts": pm.python_model(RESTARTS_CONFIG, RESTARTS),
    }, extra_args=("--model-control-mode=explicit", "--load-model=*"))


def families(server) -> dict:
    """{family name: prometheus_client Metric} of what /metrics shows."""
    return {f.name: f for f in text_string_to_metric_families(metrics_text(server))}


def sample(family, name, **labels) -> float:
    for s in family.samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise AssertionError(f"no sample {name}{labels} in {family.samples}")


def infer_metrics(server, protocol, x):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    tensor = module.InferInput("X", [3], "FP32")
    tensor.set_data_from_numpy(np.array(x, dtype=np.float32))
    return float(client.infer("metrics", [tensor]).as_numpy("COUNT")[0])


def test_counter_gauge_and_histogram_after_requests_over_http_and_grpc(server):
    seen = [infer_metrics(server, protocol, [0.5, 3.0, 9.0])
            for protocol in ("http", "grpc", "http", "grpc")]
    # value() read back the shared counter after each increment (both
    # instances' handles name the same metric).
    assert seen == [1.0, 2.0, 3.0, 4.0]
    text = metrics_text(server)
    # The server's own metrics are still there, and the custom ones follow.
    assert text.index("nv_inference_count") < text.index("custom_requests_total")
    assert '# HELP custom_requests_total Requests this model \\\\saw\\nby instance kind' in text
    assert '# TYPE custom_input_value histogram' in text
    found = families(server)
    counter = found["custom_requests"]  # the parser drops a counter's _total
    assert counter.type == "counter"
    assert counter.documentation == "Requests this model \\saw\nby instance kind"
    assert sample(counter, "custom_requests_total", model="metrics", note='say "hi"') == 4
    assert sample(found["custom_last_sum"], "custom_last_sum", model="metrics") == 12.5
    histogram = found["custom_input_value"]
    assert histogram.type == "histogram"
    buckets = {float(s.labels["le"]): s.value
               for s in histogram.samples if s.name.endswith("_bucket")}
    assert buckets == {1.0: 4, 2.0: 4, 4.0: 8, float("inf"): 12}
    assert 'custom_input_value_bucket{model="metrics",le="2"} 4' in text
    assert sample(histogram, "custom_input_value_count", model="metrics") == 12
    assert sample(histogram, "custom_input_value_sum", model="metrics") == 50


def test_a_decoupled_models_counter_counts_its_streamed_responses(server):
    client = server.grpc_client()
    results = []
    client.start_stream(callback=lambda result, error: results.append(error or result))
    for n in (3, 4):
        tensor = grpcclient.InferInput("N", [1], "INT32")
        tensor.set_data_from_numpy(np.array([n], dtype=np.int32))
        client.async_stream_infer("stream", [tensor])
    client.stop_stream()
    assert len(results) == 7 and not any(isinstance(r, Exception) for r in results), results
    assert "\ncustom_stream_responses 7\n" in metrics_text(server)  # no labels
    streamed = families(server)["custom_stream_responses"]
    assert sample(streamed, "custom_stream_responses_total") == 7  # as the parser names it


def test_misuse_raises_triton_model_exception_and_the_server_serves_on(server):
    tensor = httpclient.InferInput("X", [1], "INT32")
    tensor.set_data_from_numpy(np.array([1], dtype=np.int32))
    out = json.loads(server.client().infer("misuse", [tensor]).as_numpy("OUT")[0])
    expected = {
        "negative_increment": "a counter only goes up",
        "set_counter": "a counter cannot set",
        "observe_gauge": "a gauge cannot observe",
        "increment_histogram": "a histogram cannot increment",
        "histogram_value": "a histogram has no single value",
        "no_buckets": "a histogram needs buckets",
        "decreasing_buckets": "strictly increasing",
        "counter_buckets": "a counter takes no buckets",
        "label_not_str": "must be a str, not int",
        "labels_not_dict": "labels must be a dict",
        "bad_label_name": "'a-b' is not a Prometheus label name",
        "kind_taken": "already exists as a counter, not a gauge",
        "server_name": "are the server's own",
        "bad_name": "is not a Prometheus metric name",
        "bad_kind": "kind must be MetricFamily.COUNTER, GAUGE or HISTOGRAM",
        "not_a_number": "the value must be a number",
    }
    for case, words in expected.items():
        assert words in out[case], (case, out[case])
    # Nothing of it reached /metrics, and the server still serves.
    assert "custom_h2" not in metrics_text(server)
    assert infer_metrics(server, "http", [1, 1, 1]) >= 1


def test_a_restarted_stub_starts_its_metrics_again(server):
    def pid_and_seen():
        tensor = httpclient.InferInput("X", [1], "INT32")
        tensor.set_data_from_numpy(np.array([0], dtype=np.int32))
        pid, seen = server.client().infer("restarts", [tensor]).as_numpy("OUT")
        return int(pid), seen

    first, _ = pid_and_seen()
    assert pid_and_seen() == (first, 2)
    os.kill(first, signal.SIGKILL)
    # Requests during the restart may fail with the dead stub; the next stub answers.
    pid, seen = wait_until(lambda: (lambda r: r if r[0] != first else None)(pid_and_seen()),
                           ignore=(Exception,), what="an answer from a new stub")
    assert seen == 1, "the dead stub's handle kept the old count alive"
    assert "\ncustom_seen 1\n" in metrics_text(server)


def test_unloading_a_model_removes_its_metrics(server):
    infer_metrics(server, "grpc", [1, 2, 3])
    assert "custom_requests_total{" in metrics_text(server)
    response = server.post("/v2/repository/models/metrics/unload")
    assert response.status_code == 200, response.text
    wait_until(lambda: "custom_requests_total" not in metrics_text(server))
    text = metrics_text(server)
    for name in ("custom_last_sum", "custom_input_value"):
        assert name not in text
    assert "custom_stream_responses" in text  # another model's stay
    # finalize() could still read its counter: the server answered it.
    assert wait_until(lambda: "custom metrics: finalize read" in server.log())
    # Loaded again, the model starts from zero.
    assert server.post("/v2/repository/models/metrics/load").status_code == 200
    assert infer_metrics(server, "http", [1, 1, 1]) == 1.0
