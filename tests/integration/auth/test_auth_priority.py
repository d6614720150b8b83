"""A key's priority (the auth file's "priority", docs/security.md) applies to
every request made with the key that names no priority of its own: HTTP infer,
gRPC infer and streams, and generate (the OpenAI routes go through generate's
path). The model's one instance is held by a blocking request while a request
of a low-priority key and then one of a high-priority key are queued; once
the blocker ends, the high one executes first. Without the keys' priorities
both would be of the model's default level and run in arrival order.

Observed through the identity backend's record file (which request ids each
execution held, in order) and the pending gauge; nothing waits on a sleep."""

from __future__ import annotations

import queue
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient

from auth_keys import key_entry, write_keys
from util import REQUEST_TIMEOUT_S, pending_count, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "batching"))
from batching_util import batching_config, read_record  # noqa: E402

BLOCK_MS = 4000  # the blocker's execution: long beside queueing two requests
SECRETS = {"high": "high-secret", "low": "low-secret", "watch": "watch-secret"}


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    folder = tmp_path_factory.mktemp("priority")
    keys = folder / "keys.json"
    write_keys(keys, [
        key_entry("high", SECRETS["high"], ["infer"], priority=1),
        key_entry("low", SECRETS["low"], ["infer"], priority=3),
        key_entry("watch", SECRETS["watch"], ["metrics"]),
    ])
    record = folder / "prio.record"
    # One instance, one request per execution, three levels with 2 the default.
    config = batching_config("prio", record, max_batch_size=1, datatype="TYPE_FP32",
                             dynamic_batching="priority_levels: 3\ndefault_priority_level: 2")
    server = inferd({"prio": config}, extra_args=[f"--auth-file={keys}"])
    watch = requests.Session()
    watch.headers["Authorization"] = f"Bearer {SECRETS['watch']}"
    pool = ThreadPoolExecutor(max_workers=8)
    yield server, watch, record, pool
    pool.shutdown(wait=True)


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {SECRETS[key]}"}


def http_infer(server, key: str, request_id: str, delay_ms: int = 0) -> str:
    body = {"id": request_id, "parameters": {"execute_delay_ms": delay_ms},
            "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 4],
                        "data": [1, 2, 3, 4]}]}
    resp = requests.post(f"{server.url}/v2/models/prio/infer", json=body, headers=bearer(key),
                         timeout=REQUEST_TIMEOUT_S)
    assert resp.status_code == 200, resp.text
    return resp.json()["id"]


def http_generate(server, key: str, request_id: str) -> str:
    resp = requests.post(f"{server.url}/v2/models/prio/generate",
                         json={"id": request_id, "INPUT0": [1, 2, 3, 4]}, headers=bearer(key),
                         timeout=REQUEST_TIMEOUT_S)
    assert resp.status_code == 200, resp.text
    return request_id


def grpc_inputs() -> list:
    tensor = grpcclient.InferInput("INPUT0", [1, 4], "FP32")
    tensor.set_data_from_numpy(np.array([[1, 2, 3, 4]], dtype=np.float32))
    return [tensor]


def grpc_infer(server, key: str, request_id: str):
    """tritonclient's async_infer; returns a wait for its answer's id."""
    answers = queue.Queue()
    client = server.grpc_client()
    client.async_infer("prio", grpc_inputs(), lambda result, error: answers.put((result, error)),
                       request_id=request_id,
                       headers={"authorization": f"Bearer {SECRETS[key]}"})

    def wait() -> str:
        result, error = answers.get(timeout=REQUEST_TIMEOUT_S)
        client.close()
        assert error is None, error
        return result.get_response().id
    return wait


class Streams:
    """One tritonclient gRPC stream per key; each request's answer in a queue."""

    def __init__(self, server):
        self.clients, self.answers = {}, queue.Queue()
        for key in ("high", "low"):
            client = server.grpc_client()
            client.start_stream(callback=lambda result, error: self.answers.put((result, error)),
                                headers={"authorization": f"Bearer {SECRETS[key]}"})
            self.clients[key] = client

    def send(self, key: str, request_id: str) -> None:
        self.clients[key].async_stream_infer("prio", grpc_inputs(), request_id=request_id)

    def close(self) -> list[str]:
        got = [self.answers.get(timeout=REQUEST_TIMEOUT_S) for _ in range(2)]
        for client in self.clients.values():
            client.stop_stream()
            client.close()
        assert all(error is None for _, error in got), got
        return [result.get_response().id for result, _ in got]


def executions(server, watch) -> int:
    resp = watch.get(f"{server.url}/v2/models/prio/stats", timeout=REQUEST_TIMEOUT_S)
    assert resp.status_code == 200, resp.text
    return resp.json()["model_stats"][0]["execution_count"]


def run_behind_blocker(env, send_low, send_high, attempts: int = 3) -> list[str]:
    """Holds the instance with a blocker (over HTTP), queues the low-priority
    request, then the high-priority one, and returns the ids of the executions
    from the blocker on, in the order they ran. An attempt whose blocker ended
    before both were queued (a loaded machine) is let finish and run again."""
    server, watch, record, pool = env
    for _ in range(attempts):
        before = len(read_record(record))
        started = executions(server, watch)
        blocker = pool.submit(http_infer, server, "low", "blocker", BLOCK_MS)
        wait_until(lambda: executions(server, watch) > started, what="the blocker executing")
        pending = pending_count(server, "prio", watch)
        waits = [send_low()]
        wait_until(lambda: pending_count(server, "prio", watch) == pending + 1,
                   what="the low-priority request queued")
        waits.append(send_high())
        wait_until(lambda: pending_count(server, "prio", watch) == pending + 2,
                   what="the high-priority request queued")
        busy = len(read_record(record)) == before
        blocker.result(timeout=REQUEST_TIMEOUT_S)
        for wait in waits:
            wait()
        wait_until(lambda: len(read_record(record)) >= before + 3, what="three executions")
        if busy:
            return [batch.ids[0] for batch in read_record(record)[before:]]
    raise AssertionError(f"the blocker ({BLOCK_MS} ms) ended before two requests were queued "
                         f"in {attempts} attempts: machine too slow")


def http_sender(env, call, key: str):
    """What sends `key`'s request (its id the key's name) when called: it
    returns the wait for its answer."""
    def send():
        future = env[3].submit(call, env[0], key, key)
        return lambda: future.result(timeout=REQUEST_TIMEOUT_S)
    return send


def test_over_http_the_high_priority_key_is_served_first(env):
    order = run_behind_blocker(env, http_sender(env, http_infer, "low"),
                               http_sender(env, http_infer, "high"))
    assert order == ["blocker", "high", "low"]


def test_over_generate_the_high_priority_key_is_served_first(env):
    order = run_behind_blocker(env, http_sender(env, http_generate, "low"),
                               http_sender(env, http_generate, "high"))
    assert order == ["blocker", "high", "low"]


def test_over_grpc_the_high_priority_key_is_served_first(env):
    order = run_behind_blocker(env, lambda: grpc_infer(env[0], "low", "low"),
                               lambda: grpc_infer(env[0], "high", "high"))
    assert order == ["blocker", "high", "low"]


def test_over_a_grpc_stream_the_high_priority_key_is_served_first(env):
    streams = []

    def sender(key):
        if key == "low":
            streams.append(Streams(env[0]))
        streams[-1].send(key, key)
        return (lambda: None) if key == "low" else (lambda: streams[-1].close())

    order = run_behind_blocker(env, lambda: sender("low"), lambda: sender("high"))
    assert order == ["blocker", "high", "low"]
