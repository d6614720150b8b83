"""Implicit state (sequence_batching.state): the server keeps each sequence's
state between its requests, so a backend can be stateful without memory.

Two models whose running sum lives only in the server: the accumulate
backend in its state mode (it reads STATE_IN, adds INPUT, writes OUTPUT and
STATE_OUT) and an ONNX model through ONNX Runtime (STATE_OUT = STATE_IN +
INPUT, OUTPUT = STATE_OUT). Checked: interleaved sequences each get their own
sum; START feeds the initial state (zeros), also for an id used before; the
padding rows of a batch leave every sequence's state alone; several
sequences batched into one execution keep theirs apart.
"""

import concurrent.futures

import numpy as np
import pytest

from sequence_models import (accumulate_config, grpc_step, http_step, onnx_state_config,
                             onnx_state_model, records, running_sums)
from util import Model, write_repository

RNG = np.random.default_rng(21)
MODELS = ["acc_state", "onnx_state"]


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def acc_server(inferd, record_dir):
    return inferd({"acc_state": accumulate_config(
        "acc_state", record_dir / "acc_state.txt", state=True, outputs=("OUTPUT", "ROW"))})


@pytest.fixture(scope="module")
def onnx_server(inferd, tmp_path_factory):
    root = write_repository(tmp_path_factory.mktemp("repo"),
                            {"onnx_state": Model(onnx_state_config("onnx_state"))})
    (root / "onnx_state" / "1" / "model.onnx").write_bytes(onnx_state_model())
    return inferd(root)


@pytest.fixture(params=MODELS)
def model(request):
    """(server, model name) for each model, its server started on first use."""
    fixture = "acc_server" if request.param == "acc_state" else "onnx_server"
    return request.getfixturevalue(fixture), request.param


def run_sequence(server, protocol, model, sid, values):
    client = server.client() if protocol == "http" else server.grpc_client()
    step = http_step if protocol == "http" else grpc_step
    try:
        return [step(client, model, sid, v, start=i == 0, end=i == len(values) - 1)["OUTPUT"][0]
                for i, v in enumerate(values)]
    finally:
        client.close()


def test_each_sequence_keeps_its_own_state(model):
    server, model = model
    base = 100 if model == "acc_state" else 200
    sequences = {base + s: RNG.integers(-20, 50, size=7).tolist() for s in range(12)}
    with concurrent.futures.ThreadPoolExecutor(len(sequences)) as pool:
        futures = {sid: pool.submit(run_sequence, server, "http" if sid % 2 else "grpc", model,
                                    sid, values) for sid, values in sequences.items()}
        for sid, future in futures.items():
            assert future.result(timeout=60) == running_sums(sequences[sid]), f"sequence {sid}"


def test_start_feeds_the_initial_state(model):
    server, model = model
    client = server.client()
    sid = 300 if model == "acc_state" else 301
    assert run_sequence(server, "http", model, sid, [5, 6, 7]) == [5, 11, 18]
    # The same id again: START resets the state to zeros.
    assert run_sequence(server, "grpc", model, sid, [1, 1]) == [1, 2]
    # And a START for an id still active restarts it too.
    assert http_step(client, model, sid, 40, start=True) == {"OUTPUT": [40]}
    assert http_step(client, model, sid, 2, start=True) == {"OUTPUT": [2]}
    assert http_step(client, model, sid, 3, end=True) == {"OUTPUT": [5]}


def test_padding_rows_leave_the_state_alone(acc_server, record_dir):
    # Two sequences in two slots, each run alone in turn: the other's slot is
    # padded (READY false) and its state must not move.
    client = acc_server.client()
    a, b = 400, 401
    ra = http_step(client, "acc_state", a, 1, start=True, outputs=("OUTPUT", "ROW"))
    rb = http_step(client, "acc_state", b, 1000, start=True, outputs=("OUTPUT", "ROW"))
    assert ra["ROW"] != rb["ROW"]
    for i in range(3):
        assert http_step(client, "acc_state", a, 1)["OUTPUT"] == [2 + i]
        assert http_step(client, "acc_state", b, 1000)["OUTPUT"] == [2000 + 1000 * i]
    assert http_step(client, "acc_state", a, 0, end=True)["OUTPUT"] == [4]
    assert http_step(client, "acc_state", b, 0, end=True)["OUTPUT"] == [4000]
    rows = [r for r in records(record_dir / "acc_state.txt") if r["corrid"] in ("400", "401")]
    assert all(r["ready"] == 1 for r in rows)
    padded = [r for r in records(record_dir / "acc_state.txt") if r["ready"] == 0]
    assert padded, "the sequence in the higher slot ran with a padded row below it"
