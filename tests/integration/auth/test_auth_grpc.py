"""API keys on the gRPC port (--auth-file): each RPC needs a key with its scope
in the call's `authorization` metadata (PERMISSION_DENIED otherwise), a
missing or unknown key is UNAUTHENTICATED, infer and each request of a stream
are limited to the key's model globs, health stays open. With tritonclient.grpc."""

import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from auth_keys import KEYS


def metadata(name):
    return {"authorization": f"Bearer {KEYS[name][0]}"}


def infer_inputs():
    tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    return [tensor]


# (call, scope): one RPC of each group.
RPCS = [
    (lambda c, h: c.get_server_metadata(headers=h), "metadata"),
    (lambda c, h: c.get_model_metadata("identity", headers=h), "metadata"),
    (lambda c, h: c.get_model_config("identity", headers=h), "metadata"),
    (lambda c, h: c.infer("identity", infer_inputs(), headers=h), "infer"),
    (lambda c, h: c.get_model_repository_index(headers=h), "repository"),
    (lambda c, h: c.get_inference_statistics("identity", headers=h), "metrics"),
    (lambda c, h: c.get_system_shared_memory_status(headers=h), "shared-memory"),
    (lambda c, h: c.get_trace_settings(headers=h), "trace"),
    (lambda c, h: c.get_log_settings(headers=h), "logging"),
]


@pytest.fixture(scope="module")
def client(server):
    client = server.grpc_client()
    yield client
    client.close()


def status_of(call):
    try:
        call()
    except InferenceServerException as exc:
        return exc.status(), exc.message()
    return "OK", ""


@pytest.mark.parametrize("key", [k for k in KEYS if k != "fraud"])
def test_each_scope_allows_what_it_names_and_refuses_the_rest(client, key):
    scopes = KEYS[key][1]
    for rpc, scope in RPCS:
        status, message = status_of(lambda: rpc(client, metadata(key)))
        if scope in scopes or "admin" in scopes:
            assert status == "OK", (key, scope, message)
        else:
            assert status == "StatusCode.PERMISSION_DENIED", (key, scope, status)
            assert f"API key '{key}' does not have the '{scope}' scope" in message


def test_a_missing_or_unknown_key_is_unauthenticated(client):
    for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": KEYS["admin"][0]}):
        for rpc, _ in RPCS:
            status, _ = status_of(lambda: rpc(client, headers))
            assert status == "StatusCode.UNAUTHENTICATED", headers


def test_tritons_restricted_protocol_form_carries_the_key_too(client):
    headers = {"triton-grpc-protocol-authorization": f"Bearer {KEYS['admin'][0]}"}
    assert client.get_model_repository_index(headers=headers) is not None


def test_health_needs_no_key(client):
    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("identity")


def test_infer_is_limited_to_the_keys_model_globs(client):
    result = client.infer("fraud_v1", infer_inputs(), headers=metadata("fraud"))
    assert result.as_numpy("OUTPUT0").tolist() == [1, 2, 3, 4]
    status, message = status_of(
        lambda: client.infer("identity", infer_inputs(), headers=metadata("fraud")))
    assert status == "StatusCode.PERMISSION_DENIED"
    assert message == "API key 'fraud' may not infer with model 'identity' (its models: fraud_*)"


def test_each_request_of_a_stream_is_checked_against_the_models(server):
    client = server.grpc_client()
    answers = queue.Queue()
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)),
                            headers=metadata("fraud"))
        client.async_stream_infer("fraud_v1", infer_inputs(), request_id="allowed")
        client.async_stream_infer("identity", infer_inputs(), request_id="refused")
        # The refusal may overtake the answer: it is sent without executing.
        got = [answers.get(timeout=10) for _ in range(2)]
        results = [result for result, error in got if error is None]
        errors = [str(error) for result, error in got if error is not None]
        assert [r.as_numpy("OUTPUT0").tolist() for r in results] == [[1, 2, 3, 4]]
        assert len(errors) == 1 and "may not infer with model 'identity'" in errors[0]
    finally:
        client.stop_stream()
        client.close()


def test_a_stream_without_a_key_is_refused(server):
    client = server.grpc_client()
    answers = queue.Queue()
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)))
        try:
            client.async_stream_infer("fraud_v1", infer_inputs())
        except InferenceServerException:
            pass  # the stream already ended; the callback has why
        result, error = answers.get(timeout=10)
        assert result is None and "requires an API key" in str(error)
    finally:
        client.stop_stream()
        client.close()
