"""Overload (docs/admission-control.md): ten times what a slow model serves,
over HTTP and gRPC at once, open loop for 30 s. With admission control on
every request is answered, at once with 429 / RESOURCE_EXHAUSTED and retry
advice or within the queue time target; the server's memory stays flat.
With it off the queue grows as before: nobody is refused, and the last
requests wait for all the others."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
import requests

from admission_util import (Answer, grpc_answer, grpc_request, grpc_stub, http_infer,
                            rejected, slow_identity)
from util import metrics_text

COMPUTE_MS = 50         # one execution; one instance: 20 requests a second
CAPACITY_RPS = 1000 / COMPUTE_MS
RATE_RPS = 10 * CAPACITY_RPS
TARGET_MS = 250         # --admission-queue-target-ms
DURATION_S = 30
WORKERS = 24            # client threads per protocol; a request holds one
ELEMENTS = 16 * 1024    # 64 KiB per request, so queued requests would show in RSS


def rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")


class RssSampler:
    """Samples the server's VmRSS every 0.2 s from a thread until stopped."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, rss_kib(self.pid))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def open_loop(send, rate: float, duration: float, workers: int) -> list[tuple[Answer, float]]:
    """Calls send() `rate` times a second for `duration` seconds from `workers`
    threads, each on its own schedule (a late answer delays only its thread's
    next request); returns each (answer, latency in s)."""
    count = int(rate * duration)
    start = time.monotonic() + 0.2
    results: list[tuple[Answer, float]] = []
    lock = threading.Lock()

    def worker(first: int):
        mine = []
        for index in range(first, count, workers):
            delay = start + index / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the load, not waiting for state
            sent = time.monotonic()
            mine.append((send(), time.monotonic() - sent))
        with lock:
            results.extend(mine)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(worker, range(workers)))
    assert len(results) == count
    return results


def http_sender(url: str):
    local = threading.local()

    def send() -> Answer:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        return http_infer(local.session, url, "slow", ELEMENTS)
    return send


def grpc_sender(address: str):
    channel, stub = grpc_stub(address)
    request = grpc_request("slow", ELEMENTS)

    def send() -> Answer:
        try:
            stub.ModelInfer(request, timeout=60)
        except grpc.RpcError as error:
            return grpc_answer(error)
        return Answer(200)
    return send, channel


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


@pytest.fixture(scope="module")
def shedding(inferd):
    return inferd({"slow": slow_identity("slow", COMPUTE_MS)},
                  extra_args=[f"--admission-queue-target-ms={TARGET_MS}"])


@pytest.fixture(scope="module")
def queueing(inferd):
    return inferd({"slow": slow_identity("slow", COMPUTE_MS)})


def test_ten_times_capacity_is_shed_and_accepted_requests_stay_near_the_target(shedding):
    send_grpc, channel = grpc_sender(shedding.grpc_address)
    send_http = http_sender(shedding.url)
    # Both protocols loaded and the estimate taught before the baseline.
    for _ in range(3):
        assert send_http().code == 200 and send_grpc().code == 200
    baseline = rss_kib(shedding.process.pid)
    sampler = RssSampler(shedding.process.pid)
    try:
        with ThreadPoolExecutor(2) as pool:
            loads = [pool.submit(open_loop, send, RATE_RPS / 2, DURATION_S, WORKERS)
                     for send in (send_http, send_grpc)]
            answers = loads[0].result() + loads[1].result()
    finally:
        peak = sampler.stop()
        channel.close()
    accepted = [latency for answer, latency in answers if answer.code == 200]
    refused = [answer for answer, _ in answers if answer.code == 429]
    others = [answer for answer, _ in answers if answer.code not in (200, 429)]
    summary = (f"{len(answers)} sent, {len(accepted)} accepted (p99 {p99(accepted):.3f} s), "
               f"{len(refused)} refused, RSS +{peak - baseline} KiB")
    print(summary)
    assert not others, f"{summary}; unexpected: {others[:3]}"
    for answer in refused:
        assert answer.retry_after is not None and int(answer.retry_after) >= 1, answer
        assert "model 'slow' is overloaded" in answer.message, answer
    # The model served about what it can (half of it would mean shedding too
    # much) and most of the load was refused.
    assert len(accepted) >= 0.5 * CAPACITY_RPS * DURATION_S, summary
    assert len(refused) >= 0.5 * len(answers), summary
    # The contract: queue time within the target. End to end that is the
    # target, an execution, and as much again for a noisy shared machine.
    assert p99(accepted) < (2 * TARGET_MS + COMPUTE_MS) / 1000, summary
    assert peak - baseline < 64 * 1024, summary
    assert rejected(shedding, "slow", "queue_target") == len(refused)


def test_without_admission_control_the_queue_grows_and_nothing_is_refused(queueing):
    # Ten times capacity for one second, without waiting for answers: every
    # request queues (none refused, no 429) and the last wait for the others.
    count = int(RATE_RPS)
    channel, stub = grpc_stub(queueing.grpc_address)
    request = grpc_request("slow", ELEMENTS)
    futures = []
    start = time.monotonic()
    try:
        for index in range(count):
            delay = start + index / RATE_RPS - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the load
            futures.append(stub.ModelInfer.future(request, timeout=120))
        last_sent = time.monotonic()
        answers = [grpc_answer(f) for f in futures]
        done_at = time.monotonic()
    finally:
        channel.close()
    assert [a.code for a in answers] == [200] * count, [a for a in answers if a.code != 200][:3]
    # count executions of COMPUTE_MS each: the last answer came after all of
    # them, far past what admission control would have let it wait.
    assert done_at - last_sent > 5 * TARGET_MS / 1000
    assert "inferd_admission_rejected_total{" not in metrics_text(queueing)
