"""Helpers for the decoupled-model tests: repeat-backend models (the repeat
backend, backends/repeat, answers a request whose input IN holds N values with
N responses, response k carrying OUT = [value k] and IDX = [k]), a
tritonclient.grpc stream that keeps every message it delivers, and the
backend's record file ("done <id> <k>", "cancelled <id> after <k> responses",
...), which the tests wait on instead of on time.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import tritonclient.grpc as grpcclient

from util import CONFIG_TYPE, NUMPY_DTYPE, record_lines, wait_until

STREAM_WAIT_S = 30.0  # bound on a stream's messages arriving; a hung server fails fast


def repeat_config(name: str, datatype: str = "INT32", index_output: bool = True,
                  decoupled: bool = True, delay_ms: int | None = None,
                  record_file: Path | None = None, extra: str = "") -> str:
    """config.pbtxt of a repeat model: input IN, output OUT of `datatype`, and IDX (INT32)."""
    outputs = [f'{{ name: "OUT" data_type: {CONFIG_TYPE[datatype]} dims: [ 1 ] }}']
    if index_output:
        outputs.append('{ name: "IDX" data_type: TYPE_INT32 dims: [ 1 ] }')
    text = (f'name: "{name}"\nbackend: "repeat"\nmax_batch_size: 0\n'
            f'input [ {{ name: "IN" data_type: {CONFIG_TYPE[datatype]} dims: [ -1 ] }} ]\n'
            f'output [ {", ".join(outputs)} ]\n')
    if decoupled:
        text += "model_transaction_policy { decoupled: true }\n"
    if delay_ms is not None:
        text += f'parameters {{ key: "delay_ms" value: {{ string_value: "{delay_ms}" }} }}\n'
    if record_file is not None:
        text += f'parameters {{ key: "record_file" value: {{ string_value: "{record_file}" }} }}\n'
    return text + extra


def repeat_input(values: Sequence, datatype: str = "INT32") -> grpcclient.InferInput:
    array = np.array(values, dtype=NUMPY_DTYPE[datatype]).reshape([len(values)])
    tensor = grpcclient.InferInput("IN", [len(values)], datatype)
    tensor.set_data_from_numpy(array)
    return tensor


_REQUEST_IN_ERROR = re.compile(r"request '([^']*)'")


@dataclass
class Message:
    """One message of a stream: a response (`result`) or an error."""

    result: grpcclient.InferResult | None
    error: Exception | None

    @property
    def request_id(self) -> str | None:
        """The request a response answers; for an error, the request its message names."""
        if self.result is not None:
            return self.result.get_response().id
        found = _REQUEST_IN_ERROR.search(str(self.error))
        return found.group(1) if found else None

    @property
    def final(self) -> bool:
        """triton_final_response (error messages carry none through tritonclient)."""
        if self.result is None:
            return False
        parameters = self.result.get_response().parameters
        return "triton_final_response" in parameters and \
            parameters["triton_final_response"].bool_param

    @property
    def empty(self) -> bool:
        return self.result is not None and not self.result.get_response().outputs

    def value(self, name: str = "OUT"):
        array = self.result.as_numpy(name)
        assert array is not None and array.shape == (1,), f"{name}: {array!r}"
        return array[0]


class Stream:
    """A tritonclient.grpc stream: every message it delivers is kept in arrival order."""

    def __init__(self, server):
        self.client = server.grpc_client()
        self._lock = threading.Lock()
        self._messages: list[Message] = []
        self.client.start_stream(callback=self._on_message)

    def _on_message(self, result, error):
        with self._lock:
            self._messages.append(Message(result, error))

    def send(self, model: str, values: Sequence, request_id: str, datatype: str = "INT32",
             enable_empty_final_response: bool = False, **parameters) -> None:
        self.client.async_stream_infer(
            model, [repeat_input(values, datatype)], request_id=request_id,
            enable_empty_final_response=enable_empty_final_response,
            parameters=parameters or None)

    def messages(self, request_id: str | None = None) -> list[Message]:
        with self._lock:
            return [m for m in self._messages
                    if request_id is None or m.request_id == request_id]

    def wait_messages(self, request_id: str, count: int) -> list[Message]:
        """The request's messages once there are at least `count` of them."""
        return wait_until(lambda: len(self.messages(request_id)) >= count and
                          self.messages(request_id), STREAM_WAIT_S,
                          lambda: f"{count} messages for {request_id!r} "
                                  f"(have {len(self.messages(request_id))})")

    def wait_final(self, request_id: str) -> list[Message]:
        """The request's messages once one marked triton_final_response has come."""
        return wait_until(lambda: any(m.final for m in self.messages(request_id)) and
                          self.messages(request_id), STREAM_WAIT_S,
                          f"the final response of {request_id!r}")

    def close(self, cancel: bool = False) -> None:
        """Ends the stream. Without `cancel`, returns once the server has answered
        every request and finished the stream, so every message has been kept."""
        self.client.stop_stream(cancel_requests=cancel)
        self.client.close()


def wait_record(path: Path, prefix: str) -> str:
    """The first line of the record file starting with `prefix`, once there is one."""
    return wait_until(lambda: next((l for l in record_lines(path) if l.startswith(prefix)), None),
                      STREAM_WAIT_S, lambda: f"a line {prefix!r} in {path}: "
                                             f"{record_lines(path)[-5:]}")


def assert_responses(messages: Sequence[Message], values: Sequence, datatype: str = "INT32",
                     index_output: bool = True) -> None:
    """Data responses 0..N-1 in order: OUT = value k, IDX = k."""
    data = [m for m in messages if not m.empty]
    assert all(m.error is None for m in data), [str(m.error) for m in data if m.error]
    got = [m.value("OUT") for m in data]
    if datatype == "BYTES":
        assert got == [v if isinstance(v, bytes) else v.encode() for v in values]
    else:
        assert np.array(got, dtype=NUMPY_DTYPE[datatype]).tolist() == \
            np.array(values, dtype=NUMPY_DTYPE[datatype]).tolist()
    if index_output:
        assert [int(m.value("IDX")) for m in data] == list(range(len(values)))
