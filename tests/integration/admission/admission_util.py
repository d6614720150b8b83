"""Helpers for the admission control tests (docs/admission-control.md): slow
identity models, one inference over HTTP or over gRPC with the refusal's
retry advice, and the metrics the tests wait on."""

from __future__ import annotations

import re
from dataclasses import dataclass

import grpc
import numpy as np
import requests
from tritonclient.grpc import service_pb2, service_pb2_grpc

from util import REQUEST_TIMEOUT_S, binary_request, metrics_text, single_identity


def slow_identity(name: str, delay_ms: int, parameters: dict[str, str] | None = None,
                  extra: str = "") -> str:
    """An identity model (FP32 [-1], one instance) whose executions take `delay_ms`."""
    params = {"execute_delay_ms": str(delay_ms), **(parameters or {})}
    text = (single_identity(name, "FP32", [-1]) +
            "instance_group [ { count: 1 kind: KIND_CPU } ]\n" + extra)
    for key, value in params.items():
        text += f'parameters {{ key: "{key}" value {{ string_value: "{value}" }} }}\n'
    return text


def ensemble_of(name: str, step: str, parameters: dict[str, str]) -> str:
    """An ensemble of one step, `step` (a slow_identity), with `parameters`."""
    text = (f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: 0\n'
            'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
            'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
            f'ensemble_scheduling {{ step [ {{ model_name: "{step}" model_version: -1\n'
            '  input_map { key: "INPUT0" value: "INPUT0" }\n'
            '  output_map { key: "OUTPUT0" value: "OUTPUT0" } } ] }\n')
    for key, value in parameters.items():
        text += f'parameters {{ key: "{key}" value {{ string_value: "{value}" }} }}\n'
    return text


@dataclass
class Answer:
    """One request's outcome on either protocol: `code` is the HTTP status, or
    200 / 429 / 503 for gRPC OK / RESOURCE_EXHAUSTED / UNAVAILABLE (others
    keep gRPC's name); `retry_after` the Retry-After header or `retry-after`
    trailer (None: absent)."""
    code: int | str
    message: str = ""
    retry_after: str | None = None
    pushback_ms: str | None = None


def http_infer(session: requests.Session | None, url: str, model: str, elements: int = 4,
               parameters: dict | None = None) -> Answer:
    top_level = {"parameters": parameters} if parameters else {}
    body, headers = binary_request([("INPUT0", "FP32", np.ones([elements], np.float32))],
                                   **top_level)
    resp = (session or requests).post(f"{url}/v2/models/{model}/infer", data=body,
                                      headers=headers, timeout=60)
    message = "" if resp.status_code == 200 else resp.json()["error"]
    return Answer(resp.status_code, message, resp.headers.get("Retry-After"))


_GRPC_CODES = {grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.UNAVAILABLE: 503}


def grpc_request(model: str, elements: int = 4,
                 parameters: dict | None = None) -> service_pb2.ModelInferRequest:
    request = service_pb2.ModelInferRequest(model_name=model)
    request.inputs.add(name="INPUT0", datatype="FP32", shape=[elements])
    request.raw_input_contents.append(np.ones([elements], np.float32).tobytes())
    for key, value in (parameters or {}).items():
        if isinstance(value, bool):
            request.parameters[key].bool_param = value
        else:
            request.parameters[key].int64_param = value
    return request


def grpc_answer(call_or_error) -> Answer:
    """The Answer of a finished ModelInfer future (its result or its RpcError)."""
    error = call_or_error.exception() if hasattr(call_or_error, "exception") else call_or_error
    if error is None:
        return Answer(200)
    trailers = dict(error.trailing_metadata() or ())
    return Answer(_GRPC_CODES.get(error.code(), error.code().name), error.details(),
                  trailers.get("retry-after"), trailers.get("grpc-retry-pushback-ms"))


def grpc_stub(address: str) -> tuple[grpc.Channel, service_pb2_grpc.GRPCInferenceServiceStub]:
    channel = grpc.insecure_channel(address)
    return channel, service_pb2_grpc.GRPCInferenceServiceStub(channel)


def grpc_infer(stub, model: str, elements: int = 4, parameters: dict | None = None) -> Answer:
    try:
        stub.ModelInfer(grpc_request(model, elements, parameters), timeout=REQUEST_TIMEOUT_S)
    except grpc.RpcError as error:
        return grpc_answer(error)
    return Answer(200)


def _sample(text: str, family: str, model: str, extra: str = "") -> float | None:
    pattern = re.compile(re.escape(family) + r'\{model="' + re.escape(model) +
                         r'",version="\d+"' + re.escape(extra) + r'\} (\S+)')
    match = pattern.search(text)
    return None if match is None else float(match.group(1))


def in_flight(server, model: str) -> int:
    """inferd_inference_requests_in_flight of `model`: admitted, not yet released."""
    value = _sample(metrics_text(server), "inferd_inference_requests_in_flight", model)
    return 0 if value is None else int(value)


def rejected(server, model: str, reason: str) -> int:
    """inferd_admission_rejected_total of `model` for `reason` (0 before the first)."""
    value = _sample(metrics_text(server), "inferd_admission_rejected_total", model,
                    f',reason="{reason}"')
    return 0 if value is None else int(value)
