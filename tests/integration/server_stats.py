"""Observing a running server: its statistics, its metrics, and an identity
model's record file, to wait until a model has nothing queued or executing."""

from __future__ import annotations

from pathlib import Path

import requests

from server_process import InferdServer
from waiting import WAIT_TIMEOUT_S, wait_until


def model_stats(server: InferdServer, model: str) -> dict:
    """The one entry of /v2/models/<model>/stats."""
    resp = server.get(f"/v2/models/{model}/stats")
    assert resp.status_code == 200, f"stats: HTTP {resp.status_code}: {resp.text}"
    stats = resp.json()["model_stats"]
    assert len(stats) == 1, stats
    return stats[0]


def settled_stats(server: InferdServer, model: str,
                  timeout: float = WAIT_TIMEOUT_S) -> dict:
    """model_stats once every execution that started has been recorded whole.

    An execution's compute times and counts are recorded when the backend's
    execute returns, after its responses went out (as Triton's backends report
    them), while its queue time is counted as it starts: a client that has its
    answers may read statistics a moment before the last execution's compute
    part. Equal queue and compute_infer counts mean nothing is missing."""
    def settled():
        stats = model_stats(server, model)
        inference = stats["inference_stats"]
        return stats if inference["compute_infer"]["count"] == inference["queue"]["count"] \
            else None
    return wait_until(settled, timeout, f"statistics of {model!r} settled "
                      "(compute_infer count equal to queue count)")


def executions_started(server: InferdServer, model: str) -> int:
    """execution_count of `model`: counted as each backend execution starts."""
    return model_stats(server, model)["execution_count"]


def metrics_text(server: InferdServer, session: requests.Session | None = None) -> str:
    resp = (session or requests).get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5)
    assert resp.status_code == 200, f"metrics: HTTP {resp.status_code}: {resp.text}"
    return resp.text


def pending_count(server: InferdServer, model: str,
                  session: requests.Session | None = None) -> int:
    """nv_inference_pending_request_count{model=...}: the requests queued, not
    yet handed to an instance."""
    prefix = f'nv_inference_pending_request_count{{model="{model}",'
    for line in metrics_text(server, session).splitlines():
        if line.startswith(prefix):
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError(f"no pending count for model {model!r} in /metrics")


def record_lines(path: Path) -> list[str]:
    """The lines of an identity backend's record_file (one per finished execution)."""
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line.strip()]


def idle(server: InferdServer, model: str, record_file: Path) -> bool:
    """True when `model` (an identity model recording into `record_file`) has
    nothing queued and nothing executing: no request pending, and every
    execution that started has ended and been recorded (the backend appends
    its line when an execution ends). A request the server wrongly kept would
    still be queued, or executing, or be recorded by then. For a model without
    warmup (warmup runs are recorded but not counted as executions).

    Read in this order so that a request between its queue and its execution
    (pending already 0, execution not yet counted) cannot look idle unless that
    gap outlasts three HTTP round trips."""
    if pending_count(server, model) != 0:
        return False
    started = executions_started(server, model)
    finished = len(record_lines(record_file))
    return finished == started and executions_started(server, model) == started


def wait_idle(server: InferdServer, model: str, record_file: Path,
              timeout: float = WAIT_TIMEOUT_S) -> None:
    wait_until(lambda: idle(server, model, record_file), timeout,
               f"model {model!r} idle (nothing queued, every started execution recorded)")
