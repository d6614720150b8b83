"""Overload (docs/limits.md): far more concurrent requests than a slow model can
serve. Each one either succeeds or is refused at once with 503 (HTTP) /
UNAVAILABLE (gRPC) naming the model and --model-max-inflight-requests; the
server's memory does not grow from one wave of overload to the next; a model whose
dynamic batcher bounds its queue (max_queue_size) keeps Triton's queue policy."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from util import binary_request, single_identity, wait_until

CAP = 4
DELAY_MS = 200
ELEMENTS = 256 * 1024  # 1 MiB of FP32 per request
CONCURRENCY = 40       # ten times the cap, and far more than one instance serves
WAVES = 4

SLOW = single_identity("slow", "FP32", [-1]) + (
    'parameters { key: "execute_delay_ms" value { string_value: "%d" } }\n' % DELAY_MS)
QUEUED = single_identity("queued", "FP32", [-1], max_batch_size=4) + (
    "dynamic_batching { default_queue_policy { max_queue_size: 64 } }\n"
    'parameters { key: "execute_delay_ms" value { string_value: "20" } }\n')


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"slow": SLOW, "queued": QUEUED},
                  extra_args=[f"--model-max-inflight-requests={CAP}",
                              f"--http-max-connections={4 * CONCURRENCY}"])


def status_kib(pid: int, field: str) -> int:
    """A memory line of /proc/<pid>/status in KiB: VmRSS (resident now) or VmHWM (the
    peak of VmRSS so far)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} line")


def reset_peak(pid: int) -> int:
    """Resets the process's VmHWM to its VmRSS now (clear_refs 5) and returns that."""
    with open(f"/proc/{pid}/clear_refs", "w") as clear_refs:
        clear_refs.write("5")
    return status_kib(pid, "VmRSS")


def http_infer(url: str, model: str, shape: list[int]) -> requests.Response:
    body, headers = binary_request([("INPUT0", "FP32", np.ones(shape, np.float32))])
    return requests.post(f"{url}/v2/models/{model}/infer", data=body, headers=headers,
                         timeout=60)


def assert_served_or_refused(responses: list[requests.Response]) -> int:
    refused = 0
    for resp in responses:
        if resp.status_code == 200:
            continue
        assert resp.status_code == 503, resp.text
        message = resp.json()["error"]
        assert "model 'slow'" in message and f"--model-max-inflight-requests={CAP}" in message, \
            message
        refused += 1
    return refused


def test_http_overload_is_refused_cleanly_with_bounded_memory(server):
    pid = server.process.pid
    baseline = reset_peak(pid)
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        for _ in range(WAVES):
            responses = list(pool.map(lambda _: http_infer(server.url, "slow", [ELEMENTS]),
                                      range(CONCURRENCY)))
            refused = assert_served_or_refused(responses)
            assert 0 < refused < CONCURRENCY, f"{refused} of {CONCURRENCY} refused"
    # An HTTP connection has one request at a time, so what the bodies take is
    # bounded by the connections: at most CONCURRENCY MiB being read at once
    # (twice that for the allocator's slack), whatever the number of waves.
    growth = status_kib(pid, "VmHWM") - baseline
    assert growth <= (2 * CONCURRENCY + 32) * 1024, f"peak VmRSS grew {growth} KiB"
    assert http_infer(server.url, "slow", [4]).status_code == 200


def test_an_open_loop_grpc_flood_is_refused_with_unavailable_and_bounded_memory(server):
    # Open loop: every request sent without waiting for answers, 400 of 512 KiB
    # (200 MiB) against a model that serves five a second. Queued, they would
    # all be held at once; refused at the cap, a few are.
    count, elements = 400, 128 * 1024
    pid = server.process.pid
    client = grpcclient.InferenceServerClient(server.grpc_address)
    # gRPC loads on its first connection (~14 MiB of libraries and its own
    # protobuf): loaded before the baseline, so only the flood is measured.
    assert client.is_server_live()
    baseline = reset_peak(pid)
    results = []
    try:
        data = np.ones([elements], np.float32)
        tensor = grpcclient.InferInput("INPUT0", [elements], "FP32")
        tensor.set_data_from_numpy(data)
        for _ in range(count):
            client.async_infer("slow", [tensor],
                               lambda result, error: results.append(error or result))
        wait_until(lambda: len(results) == count, what="every gRPC answer", timeout=120)
    finally:
        client.close()
    errors = [r for r in results if isinstance(r, InferenceServerException)]
    assert 0 < len(errors) < count, f"{len(errors)} of {count} refused"
    for error in errors:
        assert "UNAVAILABLE" in str(error.status()), error
        assert "model 'slow'" in error.message(), error
    growth = status_kib(pid, "VmHWM") - baseline
    assert growth < 64 * 1024, f"peak VmRSS grew {growth} KiB for 200 MiB of requests"


def test_a_bounded_dynamic_batcher_queue_keeps_its_own_policy(server):
    # 16 requests in flight, four times --model-max-inflight-requests: the
    # model's max_queue_size (64) decides, so none is refused.
    with ThreadPoolExecutor(16) as pool:
        responses = list(pool.map(lambda _: http_infer(server.url, "queued", [1, 8]), range(16)))
    assert [r.status_code for r in responses] == [200] * 16, [r.text for r in responses]
