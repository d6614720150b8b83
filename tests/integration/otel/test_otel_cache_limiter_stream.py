"""The spans only some requests have, received by the real collector: a
response-cache lookup (a miss that then computes, a hit that does not), the
wait for rate-limiter resources (--rate-limit=execution_count), and the
requests of a decoupled model sent over a gRPC stream whose call metadata
carries the caller's traceparent (every request of the stream joins it)."""

from __future__ import annotations

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from otel_collector import assert_request_spans, new_caller, otel_args, trace_of
from util import model_stats, single_identity

CACHED = single_identity("cached", "FP32", [4], extra="response_cache { enable: true }\n")
# One instance that must hold resource R before each execution.
LIMITED = single_identity(
    "limited", "FP32", [4],
    extra='instance_group [ { count: 1 kind: KIND_CPU '
          'rate_limiter { resources [ { name: "R" count: 1 } ] } } ]\n')
# The repeat backend answers IN = [v0, v1, ...] with one response per value.
REPEAT = ('name: "repeat"\nbackend: "repeat"\nmax_batch_size: 0\n'
          'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]\n'
          'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },'
          ' { name: "IDX" data_type: TYPE_INT32 dims: [ 1 ] } ]\n'
          'model_transaction_policy { decoupled: true }\n')


@pytest.fixture(scope="module")
def server(inferd, collector):
    return inferd({"cached": CACHED, "limited": LIMITED, "repeat": REPEAT},
                  extra_args=otel_args(collector.url, "--cache-config=local,size=1048576",
                                       "--rate-limit=execution_count"))


def infer(server, model: str, traceparent: str, data: np.ndarray) -> None:
    client = httpclient.InferenceServerClient(server.address)
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(data)
    result = client.infer(model, [tensor], headers={"traceparent": traceparent})
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)


def nanos(span: dict, which: str) -> int:
    return int(span[f"{which}TimeUnixNano"])


def assert_within(inner: dict, outer: dict) -> None:
    assert nanos(outer, "start") <= nanos(inner, "start") <= nanos(inner, "end") \
        <= nanos(outer, "end"), (inner, outer)


def test_a_cache_miss_and_a_hit_each_have_a_cache_lookup_span(server, collector):
    data = np.array([1.5, 2.5, 3.5, 4.5], dtype=np.float32)  # this test's own: a miss first
    miss_parent, miss_trace, miss_caller = new_caller()
    infer(server, "cached", miss_parent, data)
    named = trace_of(collector, miss_trace, 7)  # request, cache_lookup, queue, compute + 3
    request = assert_request_spans(named, "cached", miss_caller)
    [lookup] = named["cache_lookup"]
    assert lookup["parentSpanId"] == request["spanId"]
    assert_within(lookup, request)

    hit_parent, hit_trace, hit_caller = new_caller()
    infer(server, "cached", hit_parent, data)
    named = trace_of(collector, hit_trace, 2)
    [request] = named["cached"]
    assert request["parentSpanId"] == hit_caller
    [lookup] = named["cache_lookup"]
    assert lookup["parentSpanId"] == request["spanId"]
    assert_within(lookup, request)
    # Answered from the cache: nothing was computed for it. A trace's spans
    # travel in one batch, so none can still be on its way.
    assert "compute" not in named and "compute_infer" not in named, named
    stats = model_stats(server, "cached")["inference_stats"]
    assert stats["cache_hit"]["count"] == 1 and stats["cache_miss"]["count"] == 1, stats


def test_the_wait_for_rate_limiter_resources_is_a_span_in_the_queue(server, collector):
    traceparent, trace_id, caller = new_caller()
    infer(server, "limited", traceparent, np.arange(4, dtype=np.float32))
    named = trace_of(collector, trace_id, 7)
    request = assert_request_spans(named, "limited", caller)
    [queued] = [s for s in named["queue"] if s["parentSpanId"] == request["spanId"]]
    [wait] = named["rate_limiter_wait"]
    assert wait["parentSpanId"] == queued["spanId"]
    assert_within(wait, queued)
    assert model_stats(server, "limited")["inference_stats"]["rate_limiter_wait"]["count"] >= 1


def test_a_grpc_streams_requests_join_the_trace_of_its_metadata(server, collector):
    traceparent, trace_id, caller = new_caller()
    client = grpcclient.InferenceServerClient(server.grpc_address)
    messages: queue.Queue = queue.Queue()
    client.start_stream(callback=lambda result, error: messages.put((result, error)),
                        headers={"traceparent": traceparent})
    try:
        for request_id in ("a", "b"):
            tensor = grpcclient.InferInput("IN", [3], "INT32")
            tensor.set_data_from_numpy(np.array([7, 8, 9], dtype=np.int32))
            client.async_stream_infer("repeat", [tensor], request_id=request_id)
        for _ in range(6):  # three responses to each request
            result, error = messages.get(timeout=30)
            assert error is None, error
    finally:
        client.stop_stream()
        client.close()
    named = trace_of(collector, trace_id, 12)  # six spans per request
    requests = [s for s in named["repeat"] if s["parentSpanId"] == caller]
    assert len(requests) == 2, named["repeat"]
    for request in requests:
        queued = [s for s in named["queue"] if s["parentSpanId"] == request["spanId"]]
        compute = [s for s in named["compute"] if s["parentSpanId"] == request["spanId"]]
        assert len(queued) == 1 and len(compute) == 1, named
        assert_within(compute[0], request)
