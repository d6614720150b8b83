"""API keys meeting admission control (docs/security.md,
docs/admission-control.md): a refusal on a gRPC stream is an in-band error
with retry advice and the stream goes on; a stream counts its requests, not
its opening, in inferd_auth_requests_total; a key's quota and admission
control refusing the same key's requests give one answer each, counted once in
each metric that applies; the OpenAI routes' 429 carries Retry-After and
OpenAI's error shape, which the `openai` client's RateLimitError and its
retries honour.

A model is held by a request of a long execution (the identity backend's
execute_delay_ms) while its in-flight cap of 1 refuses the next; the tests
wait on the in-flight gauge, never on a sleep."""

from __future__ import annotations

import queue
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import grpc
import numpy as np
import openai
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException

from auth_keys import key_entry, write_keys
from toy_llm import toy_llm
from util import REQUEST_TIMEOUT_S, metrics_text, single_identity, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "admission"))
from admission_util import slow_identity  # noqa: E402

HOLD_MS = 5000  # a holding execution: long beside the few requests a test sends meanwhile
HELD = {"inferd.max_inflight_requests": "1", "inferd.admission_control": "true"}
SLOW_QUOTA = {"rate_limit_rps": 0.01, "burst": 1}  # no token comes back during a test
KEYS = {  # name -> (scopes, extra fields)
    "client": (["infer"], {}),
    "watch": (["metrics"], {}),
    "streamer": (["infer"], {}),
    "stream-quota": (["infer"], SLOW_QUOTA),
    "both-http": (["infer"], SLOW_QUOTA),
    "both-grpc": (["infer"], SLOW_QUOTA),
    "openai-quota": (["infer"], SLOW_QUOTA),
}


def secret(name: str) -> str:
    return f"{name}-secret-77"


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    path = tmp_path_factory.mktemp("auth_admission") / "keys.json"
    write_keys(path, [key_entry(name, secret(name), scopes, **extra)
                      for name, (scopes, extra) in KEYS.items()])
    llm = toy_llm("held_llm", delay_ms=400)
    for key, value in HELD.items():
        llm.config += f'parameters {{ key: "{key}" value: {{ string_value: "{value}" }} }}\n'
    return inferd({
        "held": slow_identity("held", 0, HELD),
        "echo": single_identity("echo", "FP32", [-1]),
        "toy_llm": toy_llm(),
        "held_llm": llm,
    }, extra_args=[f"--auth-file={path}"])


@pytest.fixture(scope="module")
def watch():
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {secret('watch')}"
    return session


def sample(text: str, pattern: str) -> int:
    match = re.search(pattern + r" (\S+)", text)
    return 0 if match is None else int(float(match.group(1)))


def auth_count(server, watch, key: str, result: str) -> int:
    return sample(metrics_text(server, watch),
                  re.escape(f'inferd_auth_requests_total{{key="{key}",result="{result}"}}'))


def rejected(server, watch, model: str) -> int:
    return sample(metrics_text(server, watch), re.escape(
        'inferd_admission_rejected_total{model="' + model + '",') +
        r'version="\d+",reason="model_inflight"\}')


def in_flight(server, watch, model: str) -> int:
    return sample(metrics_text(server, watch), re.escape(
        'inferd_inference_requests_in_flight{model="' + model + '",') + r'version="\d+"\}')


def tensor(elements: int = 4) -> list:
    data = grpcclient.InferInput("INPUT0", [elements], "FP32")
    data.set_data_from_numpy(np.ones([elements], np.float32))
    return [data]


def http_post(server, key: str, model: str = "held", delay_ms: int = 0) -> requests.Response:
    body = {"parameters": {"execute_delay_ms": delay_ms},
            "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]}]}
    return requests.post(f"{server.url}/v2/models/{model}/infer", json=body,
                         headers={"Authorization": f"Bearer {secret(key)}"},
                         timeout=REQUEST_TIMEOUT_S)


class Held:
    """The model `held` executing one request of HOLD_MS (sent by 'client')."""

    def __init__(self, server, watch):
        self.server, self.watch = server, watch
        self.pool = ThreadPoolExecutor(max_workers=1)

    def __enter__(self):
        wait_until(lambda: in_flight(self.server, self.watch, "held") == 0,
                   what="nothing in flight on 'held'")
        self.future = self.pool.submit(http_post, self.server, "client", "held", HOLD_MS)
        wait_until(lambda: in_flight(self.server, self.watch, "held") == 1,
                   what="the holding request in flight")
        return self

    def assert_still_held(self):
        assert not self.future.done(), (
            f"premise broken: the holding execution ({HOLD_MS} ms) ended before the test's "
            "requests were refused (machine too slow?)")

    def __exit__(self, *exc):
        assert self.future.result(timeout=REQUEST_TIMEOUT_S).status_code == 200
        self.pool.shutdown()
        wait_until(lambda: in_flight(self.server, self.watch, "held") == 0,
                   what="the holding request released")


def stream_request(model: str, request_id: str, delay_ms: int = 0):
    request = service_pb2.ModelInferRequest(model_name=model, id=request_id)
    request.inputs.add(name="INPUT0", datatype="FP32", shape=[4])
    request.raw_input_contents.append(np.ones([4], np.float32).tobytes())
    if delay_ms:
        request.parameters["execute_delay_ms"].int64_param = delay_ms
    return request


class RawStream:
    """ModelStreamInfer through grpcio with tritonclient's stubs: each response
    whole, parameters of an error included (which tritonclient does not show)."""

    def __init__(self, server, key: str):
        self.channel = grpc.insecure_channel(server.grpc_address)
        self.requests = queue.Queue()
        stub = service_pb2_grpc.GRPCInferenceServiceStub(self.channel)
        self.responses = stub.ModelStreamInfer(iter(self.requests.get, None),
                                               metadata=[("authorization",
                                                          f"Bearer {secret(key)}")])

    def send(self, request) -> None:
        self.requests.put(request)

    def next(self):
        return next(self.responses)

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


def assert_retry_advice(response, request_id: str, needle: str) -> int:
    """`response` is the in-band refusal of `request_id`; returns its retry_after_ms."""
    assert needle in response.error_message, response
    assert re.search(r"retry after \d+ s", response.error_message), response
    infer = response.infer_response
    assert infer.id == request_id, response
    assert infer.parameters["error_code"].string_param == "RESOURCE_EXHAUSTED", response
    retry_ms = infer.parameters["retry_after_ms"].int64_param
    assert retry_ms >= 1000, response
    return retry_ms


def test_an_admission_refusal_on_a_stream_is_in_band_and_the_stream_goes_on(server, watch):
    """With tritonclient: the refused request's error names the retry, the
    request in flight and a later one are answered on the same stream."""
    client = server.grpc_client()
    answers = queue.Queue()
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)),
                            headers={"authorization": f"Bearer {secret('client')}"})
        client.async_stream_infer("held", tensor(), request_id="holding",
                                  parameters={"execute_delay_ms": 2000})
        client.async_stream_infer("held", tensor(), request_id="refused")
        result, error = answers.get(timeout=REQUEST_TIMEOUT_S)  # refused when it came
        assert result is None and isinstance(error, InferenceServerException), (result, error)
        assert "in flight" in error.message(), error.message()
        assert re.search(r"retry after \d+ s", error.message()), error.message()
        result, error = answers.get(timeout=REQUEST_TIMEOUT_S)
        assert error is None and result.get_response().id == "holding", error
        client.async_stream_infer("held", tensor(), request_id="later")
        result, error = answers.get(timeout=REQUEST_TIMEOUT_S)
        assert error is None and result.get_response().id == "later", error
    finally:
        client.stop_stream()
        client.close()


def test_a_stream_refusal_carries_its_code_and_retry_after_ms_as_parameters(server, watch):
    stream = RawStream(server, "client")
    try:
        stream.send(stream_request("held", "holding", delay_ms=2000))
        stream.send(stream_request("held", "refused"))
        refused = stream.next()
        assert_retry_advice(refused, "refused", "in flight")
        answered = stream.next()
        assert answered.error_message == "" and answered.infer_response.id == "holding"
    finally:
        stream.close()


def test_a_keys_quota_on_a_stream_is_in_band_with_retry_advice(server, watch):
    stream = RawStream(server, "stream-quota")
    try:
        stream.send(stream_request("echo", "first"))
        assert stream.next().error_message == ""
        stream.send(stream_request("echo", "over"))
        retry_ms = assert_retry_advice(stream.next(), "over", "over its quota")
        assert retry_ms >= 50_000  # a token every 100 s
    finally:
        stream.close()
    assert auth_count(server, watch, "stream-quota", "allowed") == 1
    assert auth_count(server, watch, "stream-quota", "rate_limited") == 1


def test_a_stream_counts_its_requests_not_its_opening(server, watch):
    client = server.grpc_client()
    answers = queue.Queue()
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)),
                            headers={"authorization": f"Bearer {secret('streamer')}"})
        for i in range(3):
            client.async_stream_infer("echo", tensor(), request_id=f"r{i}")
        assert all(answers.get(timeout=REQUEST_TIMEOUT_S)[1] is None for _ in range(3))
    finally:
        client.stop_stream()
        client.close()
    assert auth_count(server, watch, "streamer", "allowed") == 3
    # A stream its key may not open is refused, and counted, once.
    client = server.grpc_client()
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)),
                            headers={"authorization": f"Bearer {secret('watch')}"})
        try:
            client.async_stream_infer("echo", tensor())
        except InferenceServerException:
            pass  # the stream already ended; the callback has why
        result, error = answers.get(timeout=REQUEST_TIMEOUT_S)
        assert result is None and "does not have the 'infer' scope" in str(error)
    finally:
        client.stop_stream()
        client.close()
    assert auth_count(server, watch, "watch", "forbidden") == 1


def one_header(resp: requests.Response, name: str) -> int:
    """The header's one value (requests joins repeated headers with ', ')."""
    value = resp.headers[name]
    assert "," not in value, f"{name} sent more than once: {value!r}"
    return int(value)


def test_over_http_admission_and_quota_refusals_are_one_answer_each(server, watch):
    before = rejected(server, watch, "held")
    with Held(server, watch) as held:
        first = http_post(server, "both-http")  # within its quota, refused by admission
        second = http_post(server, "both-http")  # over its quota: never reaches admission
        held.assert_still_held()
    assert first.status_code == 429 and "in flight" in first.json()["error"], first.text
    assert one_header(first, "Retry-After") >= 1
    assert second.status_code == 429 and "over its quota" in second.json()["error"], second.text
    assert one_header(second, "Retry-After") >= 50
    assert rejected(server, watch, "held") == before + 1
    assert auth_count(server, watch, "both-http", "allowed") == 1
    assert auth_count(server, watch, "both-http", "rate_limited") == 1


def test_over_grpc_admission_and_quota_refusals_are_one_answer_each(server, watch):
    before = rejected(server, watch, "held")
    metadata = [("authorization", f"Bearer {secret('both-grpc')}")]
    errors = []
    with grpc.insecure_channel(server.grpc_address) as channel, Held(server, watch) as held:
        stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
        for _ in range(2):
            with pytest.raises(grpc.RpcError) as error:
                stub.ModelInfer(stream_request("held", "x"), metadata=metadata,
                                timeout=REQUEST_TIMEOUT_S)
            errors.append(error.value)
        held.assert_still_held()
    for error, needle in zip(errors, ("in flight", "over its quota")):
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
        assert needle in error.details(), error.details()
        trailers = [key for key, _ in error.trailing_metadata()]
        assert trailers.count("retry-after") == 1, error.trailing_metadata()
    assert rejected(server, watch, "held") == before + 1
    assert auth_count(server, watch, "both-grpc", "allowed") == 1
    assert auth_count(server, watch, "both-grpc", "rate_limited") == 1


def openai_client(server, key: str, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=secret(key), max_retries=retries,
                         timeout=REQUEST_TIMEOUT_S)


def error_object(error: openai.APIStatusError) -> dict:
    """The answer's {"error": {...}} object (its client versions keep the body
    whole or only its error object)."""
    body = error.body
    assert isinstance(body, dict), body
    return body.get("error", body)


def test_openai_admission_429_is_a_rate_limit_error_whose_retry_after_is_honoured(
        server, watch, monkeypatch):
    waits = []
    # The client's wait before a retry, recorded instead of slept.
    monkeypatch.setattr(openai._base_client, "time", SimpleNamespace(sleep=waits.append,
                                                                      time=time.time))
    before = sample(metrics_text(server, watch), re.escape(
        'inferd_admission_rejected_total{model="held_llm",') +
        r'version="\d+",reason="model_inflight"\}')
    holding = openai_client(server, "client").completions.create(
        model="held_llm", prompt="hold", stream=True)
    try:
        next(iter(holding))  # its first word: the model is busy with it
        with pytest.raises(openai.RateLimitError) as refused:
            openai_client(server, "client", retries=2).completions.create(
                model="held_llm", prompt="refused")
    finally:
        holding.close()
    headers = refused.value.response.headers
    retry_after_s, retry_after_ms = int(headers["retry-after"]), int(headers["retry-after-ms"])
    assert retry_after_s >= 1 and retry_after_ms >= 1000
    assert waits == [retry_after_ms / 1000] * 2  # both retries waited what the server said
    body = error_object(refused.value)
    assert body["type"] == "requests" and body["code"] == "rate_limit_exceeded", body
    assert "in flight" in body["message"], body
    after = sample(metrics_text(server, watch), re.escape(
        'inferd_admission_rejected_total{model="held_llm",') +
        r'version="\d+",reason="model_inflight"\}')
    assert after == before + 3  # the request and its two retries


def test_openai_quota_429_has_openais_shape_and_retry_after(server):
    client = openai_client(server, "openai-quota")
    assert client.completions.create(model="toy_llm", prompt="hi", max_tokens=2).choices
    with pytest.raises(openai.RateLimitError) as refused:
        client.chat.completions.create(model="toy_llm",
                                       messages=[{"role": "user", "content": "hi"}])
    assert refused.value.status_code == 429
    assert int(refused.value.response.headers["retry-after"]) >= 50
    assert int(refused.value.response.headers["retry-after-ms"]) >= 50_000
    body = error_object(refused.value)
    assert body["code"] == "rate_limit_exceeded" and "over its quota" in body["message"], body
