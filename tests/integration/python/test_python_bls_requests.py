"""Business logic scripting with the request arguments of Triton's
pb_utils.InferenceRequest beyond inputs and outputs:

- timeout= (microseconds) reaches the called model's queue: while its only
  instance is held, a call with a 100 ms timeout comes back with the queue's
  UNAVAILABLE error; once it is free, the same call with no timeout answers;
- correlation_id= and flags= (SEQUENCE_START / SEQUENCE_END) drive stateful
  models through their sequence batcher: two sequences interleaved step by
  step keep their own running sums, in the accumulate backend (numeric ids)
  and in a Python sequence model, which sees each id as Triton gives it
  (int or str, string ids included);
- exec() without decoupled=True into a decoupled model is refused with
  UNSUPPORTED saying to pass decoupled=True, as Triton refuses it.
"""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import async_models as am
import python_models as pm
from util import EXAMPLES_MODELS, REQUEST_TIMEOUT_S, wait_until

UNAVAILABLE = 4  # pb_utils.TritonError.UNAVAILABLE

RUNNING_SUM = (EXAMPLES_MODELS / "running_sum" / "config.pbtxt").read_text().replace(
    'name: "running_sum"', 'name: "acc"')


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("held")
    return folder / "started", folder / "release"


@pytest.fixture(scope="module")
def server(inferd, files):
    started, release = files
    return inferd({
        "held": pm.python_model(am.held_config(started, release), am.HELD),
        "bls_timeout": pm.python_model(am.BLS_TIMEOUT_CONFIG, am.BLS_TIMEOUT),
        "seq_driver": pm.python_model(am.SEQ_DRIVER_CONFIG, am.SEQ_DRIVER),
        "py_acc": pm.python_model(am.PY_ACC_CONFIG, am.PY_ACC),
        "acc": RUNNING_SUM,
        "repeat": pm.python_model(pm.REPEAT_CONFIG, pm.REPEAT),
        "exec_into_decoupled": pm.python_model(am.EXEC_INTO_DECOUPLED_CONFIG,
                                               am.EXEC_INTO_DECOUPLED),
    })


def client_and_module(server, protocol):
    if protocol == "http":
        return server.client(), httpclient
    return server.grpc_client(), grpcclient


def call_with_timeout(client, module, timeout_us):
    t = module.InferInput("TIMEOUT_US", [1], "INT64")
    t.set_data_from_numpy(np.array([timeout_us], dtype=np.int64))
    result = client.infer("bls_timeout", [t])
    return int(result.as_numpy("CODE")[0]), result.as_numpy("ERROR")[0].decode()


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_bls_timeout_expires_in_the_called_models_queue(server, files, protocol):
    started, release = files
    started.unlink(missing_ok=True)
    release.unlink(missing_ok=True)
    # gRPC's async_infer sends at once (HTTP's waits for get_result).
    x = grpcclient.InferInput("X", [1, 1], "INT32")
    x.set_data_from_numpy(np.array([[1]], dtype=np.int32))
    held = queue.Queue()
    server.grpc_client().async_infer("held", [x], lambda result, error: held.put((result, error)))
    try:
        wait_until(started.exists, what="held's instance holding a request")
        client, module = client_and_module(server, protocol)
        code, error = call_with_timeout(client, module, 100_000)
        assert code == UNAVAILABLE, (code, error)
        assert "held" in error and "timed out" in error, error
    finally:
        release.touch()
    result, error = held.get(timeout=REQUEST_TIMEOUT_S)
    assert error is None, error
    assert result.as_numpy("Y").tolist() == [[1]]
    assert call_with_timeout(client, module, 0) == (-1, "")


def drive(client, module, target, ids, values):
    inputs = [module.InferInput("TARGET", [1], "BYTES"), module.InferInput("IDS", [2], "BYTES"),
              module.InferInput("VALUES", [2, 3], "INT32")]
    inputs[0].set_data_from_numpy(np.array([target.encode()], dtype=np.object_))
    inputs[1].set_data_from_numpy(np.array([i.encode() for i in ids], dtype=np.object_))
    inputs[2].set_data_from_numpy(np.array(values, dtype=np.int32))
    result = client.infer("seq_driver", inputs)
    corrs = [[c.decode() for c in row] for row in result.as_numpy("CORRS")]
    return result.as_numpy("SUMS").tolist(), corrs


VALUES = [[1, 2, 3], [10, 20, 30]]
SUMS = [[1, 3, 6], [10, 30, 60]]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_bls_drives_two_interleaved_sequences_of_the_accumulate_backend(server, protocol):
    client, module = client_and_module(server, protocol)
    sums, _ = drive(client, module, "acc", ["41", "42"], VALUES)
    assert sums == SUMS


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("ids, seen", [
    (["7", "8"], ["int:7", "int:8"]),
    (["session-a", "session-b"], ["str:session-a", "str:session-b"]),
])
def test_bls_drives_two_interleaved_sequences_of_a_python_model(server, protocol, ids, seen):
    client, module = client_and_module(server, protocol)
    sums, corrs = drive(client, module, "py_acc", ids, VALUES)
    assert sums == SUMS
    assert corrs == [[seen[0]] * 3, [seen[1]] * 3]


UNSUPPORTED = 5  # pb_utils.TritonError.UNSUPPORTED


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_exec_without_decoupled_true_is_refused_by_a_decoupled_model(server, protocol):
    client, module = client_and_module(server, protocol)
    x = module.InferInput("X", [1], "INT32")
    x.set_data_from_numpy(np.array([0], dtype=np.int32))
    result = client.infer("exec_into_decoupled", [x])
    error = result.as_numpy("ERROR")[0].decode()
    assert int(result.as_numpy("CODE")[0]) == UNSUPPORTED, error
    assert "model 'repeat' is decoupled" in error and "exec(decoupled=True)" in error, error
