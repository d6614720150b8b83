"""Admission control's caps and shedding, one scheduler at a time
(docs/admission-control.md). Each refusal is checked for its status on HTTP
and gRPC: Triton's 503 / UNAVAILABLE for a full queue while admission control
is off, 429 / RESOURCE_EXHAUSTED with Retry-After (the `retry-after` trailer
on gRPC) while it is on; and for its count in inferd_admission_rejected_total.
Queues are filled with requests sent from a pool and the tests wait until the
metrics show them in flight before the request that must be refused."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from admission_util import (ensemble_of, grpc_infer, grpc_stub, http_infer, in_flight,
                            rejected, slow_identity)
from util import pending_count, wait_until

SHED = {"inferd.admission_control": "true"}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        # A dynamic batcher's own max_queue_size, admission control off and on.
        "batched": slow_identity("batched", 2000, extra=(
            "dynamic_batching { default_queue_policy { max_queue_size: 1 } }\n")),
        "batched_shed": slow_identity("batched_shed", 2000, SHED, extra=(
            "dynamic_batching { default_queue_policy { max_queue_size: 1 } }\n")),
        # inferd.max_queue_size on a model without a batcher.
        "direct": slow_identity("direct", 2000, {"inferd.max_queue_size": "1"}),
        # Shedding by the request's timeout (no target).
        "paced": slow_identity("paced", 1000, SHED),
        "step": slow_identity("step", 1500),
        "ens": ensemble_of("ens", "step", {"inferd.max_queue_size": "1"}),
        "ens_shed": ensemble_of("ens_shed", "step",
                                {"inferd.max_queue_size": "1", **SHED}),
    })


def fill(pool, server, model: str, count: int):
    """Sends `count` requests to `model` from `pool`, one by one, and waits
    until each is in flight (the first executing, none queued, before the
    next); returns their futures."""
    before = in_flight(server, model)
    futures = []
    for sent in range(1, count + 1):
        futures.append(pool.submit(http_infer, None, server.url, model))
        wait_until(lambda: in_flight(server, model) >= before + sent and
                   (sent > 1 or pending_count(server, model) == 0),
                   what=f"{sent} requests of {model} in flight")
    return futures


def assert_refused(answer, code: int, *needles: str, retry: bool):
    assert answer.code == code, answer
    for needle in needles:
        assert needle in answer.message, answer
    if retry:
        assert answer.retry_after is not None and int(answer.retry_after) >= 1, answer
    else:
        assert answer.retry_after is None, answer


def both_protocols(server, model: str):
    """One request over HTTP and one over gRPC, refused or not."""
    channel, stub = grpc_stub(server.grpc_address)
    try:
        return http_infer(None, server.url, model), grpc_infer(stub, model)
    finally:
        channel.close()


@pytest.mark.parametrize("model,code,retry", [("batched", 503, False),
                                              ("batched_shed", 429, True)])
def test_dynamic_batcher_max_queue_size(server, model, code, retry):
    with ThreadPoolExecutor(2) as pool:
        # One executing, one queued: the queue of one is full.
        futures = fill(pool, server, model, 2)
        for answer in both_protocols(server, model):
            assert_refused(answer, code, f"model '{model}'", "max_queue_size 1", retry=retry)
        assert [f.result().code for f in futures] == [200, 200]
    assert rejected(server, model, "queue_full") == 2


def test_max_queue_size_parameter_without_a_batcher(server):
    with ThreadPoolExecutor(2) as pool:
        futures = fill(pool, server, "direct", 2)
        for answer in both_protocols(server, "direct"):
            assert_refused(answer, 503, "model 'direct'", "inferd.max_queue_size=1",
                           retry=False)
        assert [f.result().code for f in futures] == [200, 200]
    assert rejected(server, "direct", "queue_full") == 2


@pytest.mark.parametrize("model,code,retry", [("ens", 503, False), ("ens_shed", 429, True)])
def test_ensemble_counts_its_own_requests(server, model, code, retry):
    # The ensemble request itself is what its max_queue_size counts: one in
    # flight (its step executing or queued) fills it.
    with ThreadPoolExecutor(1) as pool:
        futures = fill(pool, server, model, 1)
        for answer in both_protocols(server, model):
            assert_refused(answer, code, f"model '{model}'", "inferd.max_queue_size=1",
                           retry=retry)
        assert futures[0].result().code == 200
    assert rejected(server, model, "queue_full") == 2
    assert rejected(server, "step", "queue_full") == 0  # steps are never refused


def test_a_request_is_shed_when_its_timeout_is_shorter_than_the_expected_queue(server):
    # One execution teaches the estimate (1 s); then one executing and two
    # queued: the next would wait about two seconds.
    assert http_infer(None, server.url, "paced").code == 200
    with ThreadPoolExecutor(3) as pool:
        futures = fill(pool, server, "paced", 3)
        answer = http_infer(None, server.url, "paced", parameters={"timeout": 100_000})
        assert_refused(answer, 429, "model 'paced'", "exceeds the request's timeout of 100 ms",
                       retry=True)
        channel, stub = grpc_stub(server.grpc_address)
        try:
            answer = grpc_infer(stub, "paced", parameters={"timeout": 100_000})
        finally:
            channel.close()
        assert_refused(answer, 429, "model 'paced'", retry=True)
        assert answer.pushback_ms is not None and int(answer.pushback_ms) > 0, answer
        assert [f.result().code for f in futures] == [200] * 3
    assert rejected(server, "paced", "timeout") == 2
    # Without a timeout (and no target) nothing is shed.
    assert http_infer(None, server.url, "paced").code == 200

