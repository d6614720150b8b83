"""The cloud endpoints take part in the bounded exit: SIGTERM with an
/invocations or predict request whose execution does not end still ends the
process soon after --exit-timeout-secs, and the request gets a 503 naming it."""

from __future__ import annotations

import signal
import subprocess
import threading

import pytest
import requests

from cloud_util import HTTP_STARTED, SAGEMAKER_STARTED, VERTEX_STARTED, get
from util import identity_config, wait_until, write_repository

EXIT_TIMEOUT_S = 2
EXIT_WAIT_S = EXIT_TIMEOUT_S + 20  # a margin for a loaded machine, far below the hang
HUNG_MS = 600_000
ROUTES = {"AIP_PREDICT_ROUTE": "/predict", "AIP_HEALTH_ROUTE": "/health"}


def executions(http_port: int) -> int:
    stats = get(http_port, "/v2/models/hung/stats").json()["model_stats"]
    return sum(entry["execution_count"] for entry in stats)


@pytest.mark.parametrize("platform", ["sagemaker", "vertex"])
def test_sigterm_answers_a_hung_cloud_request_with_503(cloud_server, tmp_path, platform):
    repo = write_repository(tmp_path / "repo", {
        "hung": identity_config("hung", [("INPUT0", "OUTPUT0", "FP32", [4])])})
    flag = "--allow-sagemaker=true" if platform == "sagemaker" else "--allow-vertex-ai=true"
    port_flag = "--sagemaker-port=0" if platform == "sagemaker" else "--vertex-ai-port=0"
    server = cloud_server([f"--model-repository={repo}", "--http-port=0", "--grpc-port=0",
                           "--metrics-port=0", flag, port_flag,
                           f"--exit-timeout-secs={EXIT_TIMEOUT_S}"], env=ROUTES)
    port = server.port(SAGEMAKER_STARTED if platform == "sagemaker" else VERTEX_STARTED)
    http = server.port(HTTP_STARTED)
    path = "/invocations" if platform == "sagemaker" else "/predict"
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4],
                        "data": [1, 2, 3, 4]}], "parameters": {"execute_delay_ms": HUNG_MS}}
    result: dict = {}

    def infer():
        try:
            resp = requests.post(f"http://127.0.0.1:{port}{path}", json=body,
                                 timeout=EXIT_WAIT_S + 10)
            result["answer"] = (resp.status_code, resp.json())
        except requests.RequestException as exc:
            result["answer"] = exc

    thread = threading.Thread(target=infer)
    thread.start()
    wait_until(lambda: executions(http) >= 1, what="the request executing")
    server.process.send_signal(signal.SIGTERM)
    try:
        code = server.process.wait(timeout=EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(server.describe(f"inferd still running {EXIT_WAIT_S}s after SIGTERM"))
    thread.join(timeout=30)
    server.nonzero_exit_expected = True  # an exit that abandoned a request is not a clean one
    assert code != 0
    status, answer = result["answer"]
    assert status == 503, (status, answer)
    assert f"--exit-timeout-secs={EXIT_TIMEOUT_S} ran out" in answer["error"]
