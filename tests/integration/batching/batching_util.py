"""Helpers for the dynamic-batching integration tests.

The identity backend sleeps `execute_delay_ms` per execution and appends one line
per execution to `record_file`:

    <instance> <rows> <start_ns> <end_ns> <id>,<id>,...      ("-" for a request without id)

so a test sees exactly which requests ran together and in which order. The usual
pattern (Env.queue_behind_blocker does it):

    ex = env.exchange("m")                   # a thread pool sending requests
    blocker = ex.send("blocker")             # occupies the single instance
    ex.wait_executing(1)                     # it left the queue (stats: queue.count == 1)
    ex.sync_pending()                        # pending gauge now (queue is empty)
    futures = [ex.queue(f"r{i}") for i in range(4)]   # each waits until queued
    env.assert_busy("m")                     # the blocker still runs: all were queued
    ... results = [f.result() for f in futures]
    batches = env.record("m")                # [Batch(instance, rows, start, end, ids)]

Ordering relies on the pending gauge (nv_inference_pending_request_count) rising
as each request is queued; it works whether or not the gauge also counts the
executing blocker.

Every wait here is bounded in time and fails the test with what it saw last.
"""

from __future__ import annotations

import json
import socket
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import requests

from util import InferdServer, metrics_text, model_stats, pending_count, wait_idle
from util import wait_until as util_wait_until

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
    def enough():
        batches = read_record(path)
        return (batches,) if len(batches) >= executions else None

    try:
        (batches,) = util_wait_until(enough, timeout=timeout_s, interval=POLL_S)
    except AssertionError:
        batches = read_record(path)
        raise AssertionError(f"record {path} has {len(batches)} executions after {timeout_s}s, "
                             f"expected {executions}: {batches}") from None
    return batches


# ---------------------------------------------------------------------------
# Server observations (model_stats, metrics_text, pending_count come from util)


def wait_until(what: str, probe, timeout_s: float = WAIT_S):
    """Polls `probe()` until it returns a truthy value; fails naming `what`."""
    return util_wait_until(probe, timeout=timeout_s, what=what, interval=POLL_S)


# ---------------------------------------------------------------------------
# Sending requests concurrently


@dataclass
class Result:
    status: int
    body: dict

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
        self.pending = 0
        self._metrics = requests.Session()  # kept open: polling must be quick

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)
        self._metrics.close()

    def pending_now(self) -> int:
        return pending_count(self.server, self.model, self._metrics)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def body(self, request_id: str, rows: int = 1, width: int = 4, priority: int | None = None,
             timeout_us: int | None = None, execute_delay_ms: int | None = None) -> dict:
        """`execute_delay_ms` overrides the model's execute delay for this
        request (the identity backend's request parameter)."""
        parameters = {}
        if priority is not None:
            parameters["priority"] = priority
        if timeout_us is not None:
            parameters["timeout"] = timeout_us
        if execute_delay_ms is not None:
            parameters["execute_delay_ms"] = execute_delay_ms
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
        with requests.Session() as session:
            resp = session.post(f"{self.server.url}/v2/models/{self.model}/infer",
                                data=json.dumps(body), timeout=30)
        try:
            payload = resp.json()
        except ValueError:
            payload = {"raw": resp.text}
        return Result(resp.status_code, payload)

    def send(self, request_id: str, **kwargs) -> Future:
        return self.pool.submit(self.infer, request_id, **kwargs)

    def sync_pending(self) -> int:
        """Takes the model's current pending gauge as the base that queue()
        counts from (whether the gauge includes executing requests or not)."""
        self.pending = self.pending_now()
        return self.pending

    def expect_queued(self, what: str, done=lambda: False) -> None:
        """Waits until one more request than before is pending: one sent some
        other way (a raw socket, tritonclient). `done()` true ends the wait
        early (the request was answered without queuing)."""
        self.pending += 1
        want = self.pending
        wait_until(f"{what} queued ({want} pending)",
                   lambda: done() or self.pending_now() >= want)

    def queue(self, request_id: str, **kwargs) -> Future:
        """Sends one request and waits until the pending gauge shows it queued,
        so requests sent one after another are queued in that order. Call
        sync_pending() first."""
        future = self.send(request_id, **kwargs)
        self.pending += 1
        want = self.pending
        wait_until(f"request {request_id} queued ({want} pending)",
                   lambda: future.done() or self.pending_now() >= want)
        if future.done():  # refused at once: it is not in the queue
            self.pending -= 1
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


# ---------------------------------------------------------------------------
# One server with several batching models, each with its own record file


class Env:
    """A started server whose models (built with batching_config) each record
    into `<records>/<model>.txt`."""

    def __init__(self, server: InferdServer, records: Path):
        self.server = server
        self.records = records

    def record_path(self, model: str) -> Path:
        return self.records / f"{model}.txt"

    def record(self, model: str) -> list[Batch]:
        return read_record(self.record_path(model))

    def wait_record(self, model: str, executions: int) -> list[Batch]:
        return wait_record(self.record_path(model), executions)

    def wait_idle(self, model: str) -> None:
        """Waits until nothing of `model` is queued or executing (util.idle):
        a request the server wrongly kept has run, and is recorded, by then."""
        wait_idle(self.server, model, self.record_path(model))

    def exchange(self, model: str, workers: int = 32) -> Exchange:
        return Exchange(self.server, model, workers=workers)

    def stats(self, model: str) -> dict:
        return model_stats(self.server, model)

    def queue_behind_blocker(self, model: str, specs, blocker_rows: int = 1,
                             attempts: int = 3, blocker_delay_ms: int | None = None):
        """Occupies the model's single instance with request 'blocker' (executing
        for `blocker_delay_ms` when given, else the model's delay), then
        queues `specs` — [(id, request keyword arguments)] — one after another in
        that order, while the blocker executes. Returns (exchange, {id: future}
        with the blocker first, executions recorded before the blocker).

        On a loaded machine the blocker may end before everything is queued;
        such an attempt is let finish and discarded, and the scenario is run
        again (at most `attempts` times in all)."""
        for attempt in range(1, attempts + 1):
            before = len(self.record(model))
            queued_before = self.stats(model)["inference_stats"]["queue"]["count"]
            ex = self.exchange(model)
            futures = {"blocker": ex.send("blocker", rows=blocker_rows,
                                          execute_delay_ms=blocker_delay_ms)}
            ex.wait_executing(queued_before + 1)
            ex.sync_pending()
            for request_id, kwargs in specs:
                futures[request_id] = ex.queue(request_id, **kwargs)
            if self.busy(model, before):
                return ex, futures, before
            with ex:  # discard this attempt once it is over
                if attempt == attempts:
                    self.assert_busy(model, before)  # fails, saying why
                for future in futures.values():
                    future.result(timeout=60)
                wait_until("nothing pending", lambda: ex.pending_now() == 0)
        raise AssertionError("unreachable")

    def busy(self, model: str, executions: int) -> bool:
        return len(self.record(model)) == executions

    def assert_busy(self, model: str, executions: int = 0) -> None:
        """The test's premise: the instance is still busy with the blocker, so
        everything sent so far is queued behind it (no execution has ended since
        `executions`). Fails loudly rather than judging a different schedule."""
        done = self.record(model)
        assert len(done) == executions, (
            f"premise broken: the blocking execution of {model!r} ended before every "
            f"request was queued (machine too slow?): {done[executions:]}")


def start_env(inferd, tmp_path_factory, models: dict, extra_args=()) -> Env:
    """`models` maps a model name to batching_config keyword arguments."""
    records = tmp_path_factory.mktemp("records")
    configs = {name: batching_config(name, records / f"{name}.txt", **kwargs)
               for name, kwargs in models.items()}
    return Env(inferd(configs, extra_args=extra_args), records)


def ids_in_order(batches: list[Batch]) -> list[str]:
    return [i for b in batches for i in b.ids]


def raw_infer(port: int, model: str, request_id: str) -> socket.socket:
    """Opens a connection and writes one complete inference request; returns
    the socket without reading the answer."""
    body = json.dumps({"id": request_id, "inputs": [
        {"name": "INPUT0", "datatype": "INT32", "shape": [1, 4], "data": [1, 2, 3, 4]}]})
    head = (f"POST /v2/models/{model}/infer HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(head.encode() + body.encode())
    return sock
