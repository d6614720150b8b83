"""Requests that break a sequence's rules get clear errors naming the model
and the sequence, over HTTP (status 400, {"error": ...}) and gRPC
(INVALID_ARGUMENT); the sequences around them go on unharmed.

- a request without sequence_id (or with sequence_id 0) to a sequence model;
- a request without sequence_start for an id that never started, or whose
  sequence ended;
- sequence_id, sequence_start or sequence_end on a model without a sequence
  batcher (Triton ignores them there; inferd refuses them, so that a client
  that thinks it talks to a stateful model learns it does not);
- a control input sent by the client (the scheduler fills them).

A START for an id already active is not an error (Triton ends the old
sequence early): the new sequence follows the requests already queued for the
old one, in the same slot, and its sum restarts.
"""

import json

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from sequence_models import accumulate_config, grpc_step, http_step, records
from util import assert_error, single_identity


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, record_dir):
    return inferd({
        "acc": accumulate_config("acc", record_dir / "acc.txt"),
        "acc_string": accumulate_config("acc_string", corrid_type="TYPE_STRING"),
        "plain": single_identity("plain", "INT32", [1], max_batch_size=4),
    })


def body(parameters, name="INPUT", value=1):
    return json.dumps({"parameters": parameters, "inputs": [
        {"name": name, "datatype": "INT32", "shape": [1, 1], "data": [value]}]})


def post(server, model, parameters, **kwargs):
    return server.post(f"/v2/models/{model}/infer", data=body(parameters, **kwargs))


@pytest.mark.parametrize("parameters", [{}, {"sequence_start": True}, {"sequence_id": 0},
                                        {"sequence_id": ""}],
                         ids=["none", "start-only", "zero", "empty-string"])
def test_a_sequence_model_needs_a_sequence_id(server, parameters):
    assert_error(post(server, "acc", parameters), 400, "'acc'", "sequence_id")


def test_a_sequence_model_needs_a_sequence_id_grpc(server):
    client = server.grpc_client()
    try:
        with pytest.raises(InferenceServerException) as error:
            grpc_step(client, "acc", 0, 1)
    finally:
        client.close()
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
    assert "'acc'" in error.value.message() and "sequence_id" in error.value.message()


def test_a_request_for_an_unknown_sequence_needs_start(server, record_dir):
    assert_error(post(server, "acc", {"sequence_id": 9001}), 400, "'acc'", "9001",
                 "sequence_start")
    assert_error(post(server, "acc", {"sequence_id": 9002, "sequence_end": True}), 400, "'acc'",
                 "9002")
    assert_error(post(server, "acc_string", {"sequence_id": "nope"}), 400, "'acc_string'",
                 "nope")
    client = server.grpc_client()
    try:
        with pytest.raises(InferenceServerException) as error:
            grpc_step(client, "acc", 9003, 1)
    finally:
        client.close()
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
    assert "'acc'" in error.value.message() and "9003" in error.value.message()
    # None of them reached the backend.
    assert not [r for r in records(record_dir / "acc.txt")
                if r["corrid"] in ("9001", "9002", "9003")]


def test_a_request_after_the_end_needs_start(server):
    client = server.client()
    assert http_step(client, "acc", 9101, 4, start=True) == {"OUTPUT": [4]}
    assert http_step(client, "acc", 9101, 1, end=True) == {"OUTPUT": [5]}
    assert_error(post(server, "acc", {"sequence_id": 9101}), 400, "'acc'", "9101")
    assert http_step(client, "acc", 9101, 8, start=True, end=True) == {"OUTPUT": [8]}


@pytest.mark.parametrize("parameters", [{"sequence_id": 5}, {"sequence_id": "five"},
                                        {"sequence_id": 5, "sequence_start": True},
                                        {"sequence_end": True}],
                         ids=["id", "string-id", "id-start", "end-only"])
def test_sequence_parameters_on_a_model_without_a_sequence_batcher(server, parameters):
    resp = server.post("/v2/models/plain/infer", data=json.dumps({
        "parameters": parameters,
        "inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [1, 1], "data": [1]}]}))
    assert_error(resp, 400, "'plain'", "sequence")


def test_sequence_id_on_a_model_without_a_sequence_batcher_grpc(server):
    client = server.grpc_client()
    inp = grpcclient.InferInput("INPUT0", [1, 1], "INT32")
    inp.set_data_from_numpy(np.array([[1]], dtype=np.int32))
    try:
        with pytest.raises(InferenceServerException) as error:
            client.infer("plain", [inp], sequence_id=5, sequence_start=True)
        # Without sequence parameters the model answers as always.
        assert client.infer("plain", [inp]).as_numpy("OUTPUT0").tolist() == [[1]]
    finally:
        client.close()
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
    assert "'plain'" in error.value.message() and "sequence" in error.value.message()


@pytest.mark.parametrize("control", ["START", "CORRID"])
def test_a_client_may_not_send_a_control_input(server, control):
    resp = server.post("/v2/models/acc/infer", data=json.dumps({
        "parameters": {"sequence_id": 9201, "sequence_start": True},
        "inputs": [{"name": "INPUT", "datatype": "INT32", "shape": [1, 1], "data": [1]},
                   {"name": control, "datatype": "FP32" if control == "START" else "UINT64",
                    "shape": [1, 1], "data": [1]}]}))
    assert_error(resp, 400, "'acc'", control)


def test_start_for_an_active_id_restarts_the_sequence(server):
    # Triton's behaviour: the running sequence ends early, the new one starts.
    client = server.client()
    assert http_step(client, "acc", 9301, 5, start=True) == {"OUTPUT": [5]}
    assert http_step(client, "acc", 9301, 3) == {"OUTPUT": [8]}
    assert http_step(client, "acc", 9301, 2, start=True) == {"OUTPUT": [2]}
    assert http_step(client, "acc", 9301, 4) == {"OUTPUT": [6]}
    assert http_step(client, "acc", 9301, 1, end=True) == {"OUTPUT": [7]}
    assert_error(post(server, "acc", {"sequence_id": 9301}), 400, "'acc'", "9301")


def test_errors_leave_other_sequences_alone(server):
    client = server.client()
    assert http_step(client, "acc", 9401, 10, start=True) == {"OUTPUT": [10]}
    assert_error(post(server, "acc", {"sequence_id": 9402}), 400, "9402")
    assert_error(post(server, "acc", {}), 400, "sequence_id")
    assert http_step(client, "acc", 9401, 1, end=True) == {"OUTPUT": [11]}
