"""Overload (README "Limits"): far more concurrent requests than a slow model can
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


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM, the high-water mark of VmRSS)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM line")


def http_infer(url: str, model: str, shape: list[int]) -> requests.Response:
    body, headers = binary_request([("INPUT0", "FP32", np.ones(shape, np.float32))])
    return requests.post(f"{url}/v2/models/{model}/infer", data=body, headers=headers,
                         timeout=60)


def one_http_wave(server) -> list[requests.Response]:
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        return list(pool.map(lambda _: http_infer(server.url, "slow", [ELEMENTS]),
                             range(CONCURRENCY)))


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
    peaks = []
    for _ in range(WAVES):
        responses = one_http_wave(server)
        refused = assert_served_or_refused(responses)
        assert 0 < refused < CONCURRENCY, f"{refused} of {CONCURRENCY} refused"
        peaks.append(peak_rss_kib(pid))
    # Unbounded queueing would keep every wave's 40 MiB of inputs; the first
    # wave's memory (allocator pools, buffers) is reused by the later ones.
    assert peaks[-1] <= peaks[0] + 24 * 1024, f"peak VmRSS after each wave (KiB): {peaks}"
    assert http_infer(server.url, "slow", [4]).status_code == 200


def test_grpc_overload_is_refused_with_unavailable(server):
    client = grpcclient.InferenceServerClient(server.grpc_address)
    results = []
    try:
        def callback(result, error):
            results.append(error if error is not None else result)

        data = np.ones([ELEMENTS // 16], np.float32)
        for _ in range(CONCURRENCY):
            tensor = grpcclient.InferInput("INPUT0", list(data.shape), "FP32")
            tensor.set_data_from_numpy(data)
            client.async_infer("slow", [tensor], callback)
        wait_until(lambda: len(results) == CONCURRENCY, what="every gRPC answer")
        errors = [r for r in results if isinstance(r, InferenceServerException)]
        assert 0 < len(errors) < CONCURRENCY, f"{len(errors)} of {CONCURRENCY} refused"
        for error in errors:
            assert "UNAVAILABLE" in str(error.status()), error
            assert "model 'slow'" in error.message(), error
    finally:
        client.close()


def test_a_bounded_dynamic_batcher_queue_keeps_its_own_policy(server):
    # 16 requests in flight, four times --model-max-inflight-requests: the
    # model's max_queue_size (64) decides, so none is refused.
    with ThreadPoolExecutor(16) as pool:
        responses = list(pool.map(lambda _: http_infer(server.url, "queued", [1, 8]), range(16)))
    assert [r.status_code for r in responses] == [200] * 16, [r.text for r in responses]
