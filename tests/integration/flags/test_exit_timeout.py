"""--exit-timeout-secs bounds the whole exit: SIGTERM with executions that do not
end (the identity backend's execute_delay_ms, here ten minutes) still ends the
process soon after the timeout, and the requests in flight get an error."""

from __future__ import annotations

import json
import signal
import subprocess
import threading

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from util import (InferdServer, executions_started, identity_config, tensor_block, wait_until,
                  write_repository)

EXIT_TIMEOUT_S = 2
# How long the test waits for the process after SIGTERM: the timeout plus a
# margin for a loaded machine, far below the executions' ten minutes.
EXIT_WAIT_S = EXIT_TIMEOUT_S + 20
HUNG_MS = 600_000
MODEL = "hung"


def hung_model_config() -> str:
    # Two instances: the HTTP and the gRPC request execute at once.
    return identity_config(MODEL, [("INPUT0", "OUTPUT0", "FP32", [4])],
                           extra="instance_group [ { count: 2 kind: KIND_CPU } ]\n")


@pytest.fixture
def server(tmp_path):
    repo = write_repository(tmp_path / "repo", {MODEL: hung_model_config()})
    started = InferdServer([repo], tmp_path / "inferd.log",
                           extra_args=[f"--exit-timeout-secs={EXIT_TIMEOUT_S}"])
    yield started
    started.kill()


def http_infer(server: InferdServer, results: dict) -> None:
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4],
                        "data": [1, 2, 3, 4]}],
            "parameters": {"execute_delay_ms": HUNG_MS}}
    try:
        resp = requests.post(f"{server.url}/v2/models/{MODEL}/infer", data=json.dumps(body),
                             timeout=EXIT_WAIT_S + 10)
        results["http"] = (resp.status_code, resp.json())
    except requests.RequestException as exc:
        results["http"] = exc


def grpc_infer(server: InferdServer, results: dict) -> None:
    client = grpcclient.InferenceServerClient(server.grpc_address)
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.arange(4, dtype=np.float32))
    try:
        client.infer(MODEL, [tensor], parameters={"execute_delay_ms": HUNG_MS},
                     client_timeout=EXIT_WAIT_S + 10)
        results["grpc"] = "answered"
    except InferenceServerException as exc:
        results["grpc"] = exc
    finally:
        client.close()


def test_sigterm_exits_within_the_timeout_while_executions_hang(server):
    results: dict = {}
    threads = [threading.Thread(target=fn, args=(server, results))
               for fn in (http_infer, grpc_infer)]
    for thread in threads:
        thread.start()
    wait_until(lambda: executions_started(server, MODEL) >= 2, what="both requests executing")

    server.process.send_signal(signal.SIGTERM)
    try:
        code = server.process.wait(timeout=EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"inferd still running {EXIT_WAIT_S}s after SIGTERM with "
                    f"--exit-timeout-secs={EXIT_TIMEOUT_S}:\n{server.log_tail()}")
    for thread in threads:
        thread.join(timeout=30)

    assert code != 0, "an exit that abandoned requests is not a clean one"
    status, body = results["http"]
    assert status == 503, (status, body)
    assert f"--exit-timeout-secs={EXIT_TIMEOUT_S} ran out" in body["error"], body
    # gRPC: the connection closes as the process exits.
    assert isinstance(results["grpc"], InferenceServerException), results["grpc"]
    assert results["grpc"].status() == "StatusCode.UNAVAILABLE", results["grpc"]
    assert f"exit timeout of {EXIT_TIMEOUT_S}s ran out" in server.log()


def test_sigterm_with_nothing_in_flight_exits_cleanly(server):
    assert server.stop() == 0
    assert "ran out" not in server.log()
