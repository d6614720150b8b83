"""Helpers for the dynamic-batching integration tests.

The identity backend sleeps `execute_delay_ms` per execution and appends one line
per execution to `record_file`:

    <instance> <rows> <start_ns> <end_ns> <id>,<id>,...      ("-" for a request without id)

so a test sees exactly which requests ran together and in which order. The usual
pattern:

    ex = Exchange(server, "m")               # a thread pool sending requests
    blocker = ex.send("blocker")             # occupies the single instance
    ex.wait_executing(1)                     # it left the queue (stats: queue.count == 1)
    futures = [ex.send(f"r{i}") for i in range(4)]
    ex.wait_pending(5)                       # all queued (metrics: pending gauge)
    ... results = [f.result() for f in futures]
    batches = read_record(path)              # [Batch(instance, rows, start, end, ids)]

Every wait here is bounded in time and fails the test with what it saw last.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import requests

from util import InferdServer

WAIT_S = 10.0  # bound of every polling loop
POLL_S = 0.01


# ---------------------------------------------------------------------------
# Model configurations


def batching_config(name: str, record_file: Path, *, max_batch_size: int = 8,
                    delay_ms: int = 0, dims: Sequence[int] = (4,), datatype: str = "TYPE_INT32",
                    dynamic_batching: str = "", instance_count: int = 1,
                    ragged: bool = False) -> str:
    """An identity model INPUT0 -> OUTPUT0 with a dynamic batcher. `dynamic_batching`
    is the text inside `dynamic_batching { ... }`."""
    dims_text = ", ".join(str(d) for d in dims)
    return (
        f'name: "{name}"\n'
        'backend: "identity"\n'
        f"max_batch_size: {max_batch_size}\n"
        "input [ {\n"
        '  name: "INPUT0"\n'
        f"  data_type: {datatype}\n"
        f"  dims: [ {dims_text} ]\n"
        + ("  allow_ragged_batch: true\n" if ragged else "")
        + "} ]\n"
        "output [ {\n"
        '  name: "OUTPUT0"\n'
        f"  data_type: {datatype}\n"
        f"  dims: [ {dims_text} ]\n"
        "} ]\n"
        f"instance_group [ {{ count: {instance_count} kind: KIND_CPU }} ]\n"
        f"dynamic_batching {{\n{dynamic_batching}\n}}\n"
        'parameters { key: "execute_delay_ms" value { string_value: "'
        f'{delay_ms}" }} }}\n'
        f'parameters {{ key: "record_file" value {{ string_value: "{record_file}" }} }}\n'
    )


# ---------------------------------------------------------------------------
# The record file


@dataclass
class Batch:
    instance: str
    rows: int
    start_ns: int
    end_ns: int
    ids: list[str]


def read_record(path: Path) -> list[Batch]:
    """The executions recorded so far, in the order they were appended."""
    if not path.exists():
        return []
    batches = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        instance, rows, start, end, ids = line.split(" ")
        batches.append(Batch(instance, int(rows), int(start), int(end),
                             [] if ids == "-" else ids.split(",")))
    return batches


def wait_record(path: Path, executions: int, timeout_s: float = WAIT_S) -> list[Batch]:
    """Waits until the record holds at least `executions` lines."""
    deadline = time.monotonic() + timeout_s
    batches = read_record(path)
    while len(batches) < executions and time.monotonic() < deadline:
        time.sleep(POLL_S)
        batches = read_record(path)
    assert len(batches) >= executions, (
        f"record {path} has {len(batches)} executions after {timeout_s}s, expected "
        f"{executions}: {batches}")
    return batches


def batch_of(batches: list[Batch], request_id: str) -> int:
    """Index of the execution that ran `request_id`."""
    found = [i for i, b in enumerate(batches) if request_id in b.ids]
    assert len(found) == 1, f"request {request_id!r} ran in executions {found}: {batches}"
    return found[0]


# ---------------------------------------------------------------------------
# Server observations


def model_stats(server: InferdServer, model: str) -> dict:
    resp = server.get(f"/v2/models/{model}/stats")
    assert resp.status_code == 200, f"stats: HTTP {resp.status_code}: {resp.text}"
    stats = resp.json()["model_stats"]
    assert len(stats) == 1, stats
    return stats[0]


def metrics_text(server: InferdServer) -> str:
    resp = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5)
    assert resp.status_code == 200, f"metrics: HTTP {resp.status_code}: {resp.text}"
    return resp.text


def pending_count(server: InferdServer, model: str) -> int:
    """nv_inference_pending_request_count{model=...} (queued + executing)."""
    prefix = f'nv_inference_pending_request_count{{model="{model}",'
    for line in metrics_text(server).splitlines():
        if line.startswith(prefix):
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError(f"no pending count for model {model!r} in /metrics")


def wait_until(what: str, probe, timeout_s: float = WAIT_S):
    """Polls `probe()` until it returns a truthy value; fails naming `what`."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(POLL_S)
    raise AssertionError(f"{what} not reached within {timeout_s}s (last: {last!r})")


# ---------------------------------------------------------------------------
# Sending requests concurrently


@dataclass
class Result:
    status: int
    body: dict
    elapsed_s: float  # from send to answer

    @property
    def error(self) -> str:
        return self.body.get("error", "") if isinstance(self.body, dict) else ""


class Exchange:
    """Sends inference requests for one model from a thread pool; each request
    has its own connection so they are truly concurrent."""

    def __init__(self, server: InferdServer, model: str, workers: int = 32):
        self.server = server
        self.model = model
        self.pool = ThreadPoolExecutor(max_workers=workers)

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def body(self, request_id: str, rows: int = 1, width: int = 4, priority: int | None = None,
             timeout_us: int | None = None) -> dict:
        parameters = {}
        if priority is not None:
            parameters["priority"] = priority
        if timeout_us is not None:
            parameters["timeout"] = timeout_us
        body = {
            "id": request_id,
            "inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [rows, width],
                        "data": list(range(rows * width))}],
        }
        if parameters:
            body["parameters"] = parameters
        return body

    def infer(self, request_id: str, **kwargs) -> Result:
        body = self.body(request_id, **kwargs)
        start = time.monotonic()
        with requests.Session() as session:
            resp = session.post(f"{self.server.url}/v2/models/{self.model}/infer",
                                data=json.dumps(body), timeout=30)
        try:
            payload = resp.json()
        except ValueError:
            payload = {"raw": resp.text}
        return Result(resp.status_code, payload, time.monotonic() - start)

    def send(self, request_id: str, **kwargs) -> Future:
        return self.pool.submit(self.infer, request_id, **kwargs)

    def send_queued(self, request_id: str, pending: int, **kwargs) -> Future:
        """Sends one request and waits until the model has `pending` requests
        (so requests sent one after another are queued in that order)."""
        future = self.send(request_id, **kwargs)
        wait_until(f"{pending} pending requests after {request_id}",
                   lambda: future.done() or pending_count(self.server, self.model) >= pending)
        return future

    def wait_executing(self, executions: int):
        """Waits until `executions` requests have left the queue for an instance
        (statistics queue.count counts requests handed to an instance)."""
        wait_until(f"{executions} requests handed to an instance",
                   lambda: model_stats(self.server, self.model)["inference_stats"]["queue"]
                   ["count"] >= executions)


def expect_ok(future: Future, timeout_s: float = 30) -> Result:
    result = future.result(timeout=timeout_s)
    assert result.status == 200, f"HTTP {result.status}: {result.body}"
    return result
