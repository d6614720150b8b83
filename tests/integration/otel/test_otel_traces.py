"""OpenTelemetry traces (--trace-config mode=opentelemetry) received by a real
OpenTelemetry Collector (otel_collector.py): the spans of an HTTP and a gRPC
request, of an ensemble and of a Python model's BLS call, nested as
docs/observability.md says and joined to the caller's trace by its W3C
traceparent; and a collector that is down costs requests nothing while the
drop counter on /metrics rises."""

from __future__ import annotations

import re

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from otel_collector import (assert_request_spans, attributes, free_port, new_caller, otel_args,
                            trace_of)
from util import metrics_text, single_identity, wait_until

DATA = np.arange(4, dtype=np.float32)

ENSEMBLE = """name: "ens"
platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [
  { model_name: "simple" model_version: -1
    input_map { key: "INPUT0" value: "IN" } output_map { key: "OUTPUT0" value: "MID" } },
  { model_name: "other" model_version: -1
    input_map { key: "INPUT0" value: "MID" } output_map { key: "OUTPUT0" value: "OUT" } }
] }
"""

BLS_CONFIG = """name: "bls"
backend: "python"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""

# A BLS model as Triton's documentation writes one that traces its calls.
BLS_SOURCE = """
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            call = pb_utils.InferenceRequest(
                model_name="simple", requested_output_names=["OUTPUT0"],
                inputs=[pb_utils.get_input_tensor_by_name(request, "INPUT0")],
                trace=request.trace())
            answer = call.exec()
            if answer.has_error():
                raise pb_utils.TritonModelException(answer.error().message())
            out = pb_utils.get_output_tensor_by_name(answer, "OUTPUT0")
            responses.append(pb_utils.InferenceResponse([out]))
        return responses
"""


def models():
    from util import Model
    return {"simple": single_identity("simple", "FP32", [4]),
            "other": single_identity("other", "FP32", [4]),
            "ens": ENSEMBLE,
            "bls": Model(config=BLS_CONFIG, files={"1/model.py": BLS_SOURCE})}


@pytest.fixture(scope="module")
def server(inferd, collector):
    return inferd(models(), extra_args=otel_args(collector.url))


def http_infer(server, model: str, traceparent: str) -> None:
    client = httpclient.InferenceServerClient(server.address)
    inp = httpclient.InferInput("INPUT0" if model != "ens" else "IN", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    result = client.infer(model, [inp], headers={"traceparent": traceparent,
                                                 "tracestate": "vendor=1"})
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0" if model != "ens" else "OUT"), DATA)


def test_an_http_requests_spans_join_the_callers_trace(server, collector):
    traceparent, trace_id, caller_span = new_caller()
    http_infer(server, "simple", traceparent)
    named = trace_of(collector, trace_id, 6)
    request = assert_request_spans(named, "simple", caller_span)
    assert request["kind"] in (2, "SPAN_KIND_SERVER"), request
    assert request.get("traceState") == "vendor=1"
    assert request["resource"]["service.name"] == "inferd"
    assert request["resource"]["deployment.environment"] == "test"
    # The batch the request ran in links to it, from a trace of its own.
    batches = collector.wait_for_spans(
        lambda spans: [s for s in spans if s["name"] == "batch" and any(
            link["spanId"] == request["spanId"] for link in s.get("links", []))],
        "the batch span linked to the request")
    assert batches


def test_the_response_names_the_requests_span(server, collector):
    traceparent, trace_id, _ = new_caller()
    body = {"inputs": [{"name": "INPUT0", "shape": [4], "datatype": "FP32",
                        "data": DATA.tolist()}]}
    resp = requests.post(f"{server.url}/v2/models/simple/infer", json=body,
                         headers={"traceparent": traceparent}, timeout=30)
    assert resp.status_code == 200, resp.text
    match = re.fullmatch(r"00-([0-9a-f]{32})-([0-9a-f]{16})-01", resp.headers["traceresponse"])
    assert match and match.group(1) == trace_id, resp.headers
    named = trace_of(collector, trace_id, 6)
    assert named["simple"][0]["spanId"] == match.group(2)
    # Without a traceparent the request starts a trace of its own (rate 1).
    plain = requests.post(f"{server.url}/v2/models/simple/infer", json=body, timeout=30)
    assert plain.headers["traceresponse"][3:35] != trace_id


def test_a_grpc_requests_spans_join_the_callers_trace(server, collector):
    traceparent, trace_id, caller_span = new_caller()
    client = grpcclient.InferenceServerClient(server.grpc_address)
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    result = client.infer("simple", [inp], headers={"traceparent": traceparent})
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), DATA)
    assert_request_spans(trace_of(collector, trace_id, 6), "simple", caller_span)


def test_a_grpc_response_names_the_requests_span_in_its_metadata(server, collector):
    import grpc
    from tritonclient.grpc import service_pb2, service_pb2_grpc

    traceparent, trace_id, _ = new_caller()
    request = service_pb2.ModelInferRequest(model_name="simple")
    tensor = request.inputs.add(name="INPUT0", datatype="FP32")
    tensor.shape.extend([4])
    request.raw_input_contents.append(DATA.tobytes())
    with grpc.insecure_channel(server.grpc_address) as channel:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        _, call = stub.ModelInfer.with_call(request, metadata=(("traceparent", traceparent),),
                                            timeout=30)
        metadata = dict(call.initial_metadata())
    match = re.fullmatch(r"00-([0-9a-f]{32})-([0-9a-f]{16})-01", metadata["traceresponse"])
    assert match and match.group(1) == trace_id, metadata
    assert trace_of(collector, trace_id, 6)["simple"][0]["spanId"] == match.group(2)


def test_ensemble_steps_are_children_of_the_ensembles_span(server, collector):
    traceparent, trace_id, caller_span = new_caller()
    http_infer(server, "ens", traceparent)
    named = trace_of(collector, trace_id, 13)
    [ensemble] = named["ens"]
    assert ensemble["parentSpanId"] == caller_span
    for step in ("simple", "other"):
        child = assert_request_spans(named, step, ensemble["spanId"])
        assert child["kind"] in (1, "SPAN_KIND_INTERNAL"), child


def test_a_bls_call_is_a_child_of_the_calling_request(server, collector):
    traceparent, trace_id, caller_span = new_caller()
    http_infer(server, "bls", traceparent)
    named = trace_of(collector, trace_id, 12)
    bls = assert_request_spans(named, "bls", caller_span)
    assert_request_spans(named, "simple", bls["spanId"])


def dropped(server) -> float:
    match = re.search(r"^inferd_trace_spans_dropped_total (\S+)$", metrics_text(server), re.M)
    assert match, "no drop counter on /metrics"
    return float(match.group(1))


def test_a_collector_that_is_down_costs_requests_nothing(inferd):
    # Nothing listens on this port: every export is refused.
    server = inferd({"simple": single_identity("simple", "FP32", [4])},
                    extra_args=otel_args(f"http://127.0.0.1:{free_port()}/v1/traces"))
    assert dropped(server) == 0
    for _ in range(20):
        http_infer(server, "simple", new_caller()[0])
    wait_until(lambda: dropped(server) >= 20 * 6, what="the dropped spans counted")
    assert re.search(r"^inferd_trace_spans_exported_total 0$", metrics_text(server), re.M)


def test_the_json_protocol_carries_the_same_spans(inferd, collector):
    # OTLP/protobuf is the default; protocol=http/json sends OTLP/JSON.
    server = inferd({"simple": single_identity("simple", "FP32", [4])},
                    extra_args=otel_args(collector.url,
                                         "--trace-config=opentelemetry,protocol=http/json"))
    traceparent, trace_id, caller_span = new_caller()
    http_infer(server, "simple", traceparent)
    request = assert_request_spans(trace_of(collector, trace_id, 6), "simple", caller_span)
    assert request.get("traceState") == "vendor=1"
    assert request["resource"]["service.name"] == "inferd"
