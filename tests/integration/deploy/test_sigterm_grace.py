"""SIGTERM as Kubernetes sends it (docs/deploying.md, "Kubernetes probes and shutdown"):
with --exit-grace-secs the server turns not ready at once (HTTP 503, gRPC ServerReady and
ModelReady UNAVAILABLE, as Triton while exiting) while live stays true and every request is still answered;
a second signal ends the grace period; then the drain of --exit-timeout-secs answers what
is in flight and the process exits 0."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "flags"))

from test_triton_flags import run_inferd  # noqa: E402
from util import (InferdServer, executions_started, identity_config, wait_until,  # noqa: E402
                  write_repository)

MODEL = "m"
EXIT_TIMEOUT_S = 30
# Far longer than the test needs: the grace period ends by a second signal, or
# in test_the_grace_period_ends_then_in_flight_requests_drain, by itself.
LONG_GRACE_S = 600
# How long the test waits for the process to exit: the exit timeout plus a
# margin for a loaded machine, far below LONG_GRACE_S.
EXIT_WAIT_S = EXIT_TIMEOUT_S + 30
# A slow request: executing still when the grace period of 1 s has ended.
SLOW_MS = 8000


def model_config() -> str:
    # Two instances: a request during the grace period runs beside a slow one.
    return identity_config(MODEL, [("INPUT0", "OUTPUT0", "FP32", [4])],
                           extra="instance_group [ { count: 2 kind: KIND_CPU } ]\n")


def start(tmp_path, grace_s: int | None) -> InferdServer:
    """`grace_s` None: the flag's default."""
    repo = write_repository(tmp_path / "repo", {MODEL: model_config()})
    grace = [] if grace_s is None else [f"--exit-grace-secs={grace_s}"]
    return InferdServer([repo], tmp_path / "inferd.log",
                        extra_args=[*grace, f"--exit-timeout-secs={EXIT_TIMEOUT_S}"])


@pytest.fixture
def cleanup():
    servers: list[InferdServer] = []
    yield servers.append
    for server in servers:
        server.kill()


def http_infer(server: InferdServer) -> None:
    client = server.client()
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    data = np.arange(4, dtype=np.float32)
    tensor.set_data_from_numpy(data)
    result = client.infer(MODEL, [tensor])
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)
    client.close()


def grpc_infer(server: InferdServer) -> None:
    client = server.grpc_client()
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    data = np.arange(4, dtype=np.float32) * 2
    tensor.set_data_from_numpy(data)
    result = client.infer(MODEL, [tensor])
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)
    client.close()


def slow_http_infer(server: InferdServer, results: dict) -> None:
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4],
                        "data": [1, 2, 3, 4]}],
            "parameters": {"execute_delay_ms": SLOW_MS}}
    try:
        resp = requests.post(f"{server.url}/v2/models/{MODEL}/infer", data=json.dumps(body),
                             timeout=EXIT_WAIT_S)
        results["slow"] = (resp.status_code, resp.json())
    except requests.RequestException as exc:
        results["slow"] = exc


def wait_exit(server: InferdServer) -> int:
    try:
        return server.process.wait(timeout=EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"inferd still running {EXIT_WAIT_S}s after the signals:\n"
                    f"{server.log_tail()}")


def test_not_ready_at_once_live_and_serving_until_a_second_signal(tmp_path, cleanup):
    server = start(tmp_path, LONG_GRACE_S)
    cleanup(server)
    grpc = server.grpc_client()
    assert grpc.is_server_ready() and grpc.is_model_ready(MODEL)

    server.process.send_signal(signal.SIGTERM)
    wait_until(lambda: server.get("/v2/health/ready").status_code == 503,
               what="/v2/health/ready 503 after SIGTERM")
    assert server.get("/v2/health/live").status_code == 200
    assert "exiting" in server.get("/v2/health/ready").json()["error"]
    assert server.get(f"/v2/models/{MODEL}/ready").status_code == 503
    assert server.get("/v2/models/nobody/ready").status_code == 404
    assert grpc.is_server_live()
    for query in (grpc.is_server_ready, lambda: grpc.is_model_ready(MODEL)):
        with pytest.raises(InferenceServerException) as raised:
            query()
        assert raised.value.status() == "StatusCode.UNAVAILABLE", raised.value
        assert "exiting" in raised.value.message()
    # Still serving: new connections and requests, over both protocols.
    http_infer(server)
    grpc_infer(server)
    assert server.get(f"/v2/models/{MODEL}").status_code == 200
    grpc.close()
    assert server.process.poll() is None, "premise: still in the grace period"

    server.process.send_signal(signal.SIGTERM)  # the second: stop now
    assert wait_exit(server) == 0, server.log_tail()
    log = server.log()
    assert "during the grace period; stopping now" in log
    assert "ran out" not in log


def test_the_grace_period_ends_then_in_flight_requests_drain(tmp_path, cleanup):
    server = start(tmp_path, 1)
    cleanup(server)
    results: dict = {}
    slow = threading.Thread(target=slow_http_infer, args=(server, results))
    slow.start()
    wait_until(lambda: executions_started(server, MODEL) >= 1, what="the slow request executing")

    server.process.send_signal(signal.SIGTERM)
    wait_until(lambda: "waiting up to" in server.log(), what="the grace period over")
    assert "the grace period of 1s is over" in server.log()
    assert not results, "premise: the slow request is still in flight when the drain begins"
    wait_until(lambda: server.get("/v2/health/ready").status_code == 503
               and server.get("/v2/health/live").status_code == 200,
               what="not ready and live while draining",
               ignore=(requests.RequestException,))
    assert wait_exit(server) == 0, server.log_tail()
    slow.join(timeout=30)
    status, body = results["slow"]
    assert status == 200, body
    assert body["outputs"][0]["data"] == [1, 2, 3, 4]


def slow_grpc_infer(server: InferdServer, results: dict) -> None:
    client = server.grpc_client()
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([5, 6, 7, 8], dtype=np.float32))
    try:
        result = client.infer(MODEL, [tensor], parameters={"execute_delay_ms": SLOW_MS * 3 // 2},
                              client_timeout=EXIT_WAIT_S)
        results["slow"] = result.as_numpy("OUTPUT0").tolist()
    except InferenceServerException as exc:
        results["slow"] = exc
    client.close()


def test_the_drain_sends_grpc_clients_elsewhere_and_answers_calls_in_flight(tmp_path, cleanup):
    server = start(tmp_path, 0)
    cleanup(server)
    # An open stream, idle after one answer.
    stream_events: list = []
    streaming = server.grpc_client()
    streaming.start_stream(callback=lambda result, error: stream_events.append((result, error)))
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.ones(4, dtype=np.float32))
    streaming.async_stream_infer(MODEL, [tensor])
    wait_until(lambda: len(stream_events) == 1, what="the stream's first answer")
    assert stream_events[0][1] is None, stream_events[0][1]
    # A slow call in flight when the drain begins.
    results: dict = {}
    slow = threading.Thread(target=slow_grpc_infer, args=(server, results))
    slow.start()
    wait_until(lambda: executions_started(server, MODEL) >= 2, what="the slow call executing")

    server.process.send_signal(signal.SIGTERM)
    # The idle stream ends at once, UNAVAILABLE: its client may reconnect elsewhere.
    wait_until(lambda: len(stream_events) == 2, what="the open stream ended by the drain")
    error = stream_events[1][1]
    assert error is not None and error.status() == "StatusCode.UNAVAILABLE", error
    assert "exiting" in error.message(), error
    assert not results, "premise: the slow call is still in flight"
    # The gRPC port is closed: a new connection is refused, which a proxy retries
    # on another replica, while HTTP still answers (503 for new inference).
    fresh = grpcclient.InferenceServerClient(server.grpc_address)
    with pytest.raises(InferenceServerException) as refused:
        fresh.is_server_live(client_timeout=5)
    assert refused.value.status() == "StatusCode.UNAVAILABLE", refused.value
    fresh.close()
    assert not results, "premise: the slow call was still in flight while the port was closed"
    assert wait_exit(server) == 0, server.log_tail()
    slow.join(timeout=30)
    assert results["slow"] == [5, 6, 7, 8], results
    streaming.stop_stream()
    streaming.close()


def test_sigint_with_no_grace_stops_at_once(tmp_path, cleanup):
    server = start(tmp_path, 0)
    cleanup(server)
    assert server.stop(signal.SIGINT) == 0
    log = server.log()
    assert "grace period" not in log
    assert "waiting up to" in log


def test_in_a_kubernetes_pod_the_default_grace_is_five_seconds(tmp_path, cleanup, monkeypatch):
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")  # what every pod has
    server = start(tmp_path, None)
    cleanup(server)
    server.process.send_signal(signal.SIGTERM)
    wait_until(lambda: "before stopping" in server.log(), what="the grace period begun")
    assert ("serving for 5s (--exit-grace-secs: the default in a Kubernetes pod)"
            in server.log()), server.log_tail()
    assert server.get("/v2/health/ready").status_code == 503
    assert server.get("/v2/health/live").status_code == 200
    http_infer(server)
    server.process.send_signal(signal.SIGTERM)  # do not wait the five seconds out
    assert wait_exit(server) == 0, server.log_tail()


def test_elsewhere_the_default_is_no_grace_as_triton(tmp_path, cleanup, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    server = start(tmp_path, None)
    cleanup(server)
    assert server.stop(signal.SIGTERM) == 0
    log = server.log()
    assert "grace period" not in log and "before stopping" not in log
    assert "waiting up to" in log


@pytest.mark.parametrize("value", ["-1", "soon"])
def test_a_bad_grace_is_refused_naming_the_flag(tmp_path, value):
    done = run_inferd(tmp_path, f"--exit-grace-secs={value}")
    assert done.returncode != 0
    assert "--exit-grace-secs" in done.stderr, done.stderr
