"""A Python model's life: loading, failing, dying and coming back.

- auto_complete_config fills a model that has no config.pbtxt (with
  auto-completion on, the default): max batch size, inputs, outputs, dynamic
  batching show in the config endpoint, and the model serves batched requests;
- a model whose initialize() raises is UNAVAILABLE, the Python error in the
  repository index, while the server serves the others;
- a stub SIGKILLed while it holds a request: only that request fails, saying
  the Python process died and by which signal; the requests queued behind it
  are served by a new stub (another pid), and the model stays READY.
"""

import concurrent.futures
import os
import signal

import numpy as np
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import python_models as pm
from util import executions_started, pending_count, wait_until


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    return tmp_path_factory.mktemp("gate") / "open"


@pytest.fixture(scope="module")
def server(inferd, gate):
    return inferd({
        "auto": pm.python_model(None, pm.AUTO_COMPLETE),
        "broken": pm.python_model(pm.config("broken", [("X", "TYPE_INT32", [1])],
                                            [("Y", "TYPE_INT32", [1])]), pm.FAILS_INITIALIZE),
        "pid_echo": pm.python_model(pm.pid_echo_config(gate), pm.PID_ECHO),
    }, extra_args=["--exit-on-error=false"], wait_for="live")


def infer(client, model, name, array, datatype="FP32"):
    tensor = httpclient.InferInput(name, list(array.shape), datatype)
    tensor.set_data_from_numpy(array)
    return client.infer(model, [tensor])


def test_auto_complete_config_completes_a_model_without_config(server):
    wait_until(lambda: server.get("/v2/models/auto/ready").status_code == 200,
               what="model 'auto' ready")
    config = server.get("/v2/models/auto/config").json()
    assert config["backend"] == "python"
    assert config["max_batch_size"] == 4
    assert [(t["name"], t["data_type"], [int(d) for d in t["dims"]]) for t in config["input"]] \
        == [("A", "TYPE_INT32", [2])]
    assert [(t["name"], t["data_type"]) for t in config["output"]] == [("B", "TYPE_INT32")]
    assert "dynamic_batching" in config
    result = infer(server.client(), "auto", "A", np.array([[1, 2], [3, 4]], np.int32), "INT32")
    np.testing.assert_array_equal(result.as_numpy("B"), [[2, 3], [4, 5]])


def test_initialize_failure_is_unavailable_with_the_python_error(server):
    def entry():
        index = server.post("/v2/repository/index", json={}).json()
        found = [e for e in index if e["name"] == "broken"]
        return found[0] if found and found[0].get("state") == "UNAVAILABLE" else None
    broken = wait_until(entry, what="model 'broken' UNAVAILABLE in the index")
    assert "initialize() failed" in broken["reason"]
    assert "RuntimeError: the weights file is missing" in broken["reason"]
    assert "model.py, line" in broken["reason"]
    assert server.get("/v2/models/broken/ready").status_code != 200


def test_killed_stub_fails_only_the_request_it_held_and_restarts(server, gate):
    wait_until(lambda: server.get("/v2/models/pid_echo/ready").status_code == 200,
               what="model 'pid_echo' ready")
    first_pid = int(infer(server.client(), "pid_echo", "X",
                          np.array([1], np.float32)).as_numpy("PID")[0])
    # Each request on a thread with a client of its own: tritonclient's
    # async_infer runs on gevent, which may not send at all while this test
    # polls with blocking calls on a loaded machine.
    def send(value):
        tensor = httpclient.InferInput("X", [1], "FP32")
        tensor.set_data_from_numpy(np.array([value], np.float32))
        client = httpclient.InferenceServerClient(server.address)
        try:
            return client.infer("pid_echo", [tensor])
        finally:
            client.close()

    before = executions_started(server, "pid_echo")
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        held = pool.submit(send, -1)  # executes in the stub until the gate opens (it never does)
        wait_until(lambda: executions_started(server, "pid_echo") > before,
                   what="the held request executing")
        queued = [pool.submit(send, i) for i in range(3)]
        wait_until(lambda: pending_count(server, "pid_echo") == 3, what="3 requests queued")
        os.kill(first_pid, signal.SIGKILL)

        with pytest.raises(InferenceServerException) as raised:
            held.result(timeout=60)
        message = str(raised.value)
        assert "Python stub process" in message and f"pid {first_pid}" in message
        assert "killed by signal 9 (SIGKILL)" in message
        assert "'pid_echo'" in message
        results = [q.result(timeout=60) for q in queued]
    assert [float(r.as_numpy("Y")[0]) for r in results] == [0.0, 1.0, 2.0]
    new_pids = {int(r.as_numpy("PID")[0]) for r in results}
    assert len(new_pids) == 1 and first_pid not in new_pids
    assert server.get("/v2/models/pid_echo/ready").status_code == 200
    wait_until(lambda: "starting a new one" in server.log(), what="the restart logged")
