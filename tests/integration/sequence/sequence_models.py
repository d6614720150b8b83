"""Sequence models for the sequence batcher's tests, and what their backend saw.

`accumulate_config(...)` is the config.pbtxt of a model of the accumulate test
backend (backends/accumulate): OUTPUT is the running sum of the sequence's
INPUT values; CONTROLS, BATCH and ROW report the control values, the rows of
the execution and the request's row. Its record file has one line per row
executed (`records(path)` parses them). `onnx_state_model()` is an ONNX model
whose running sum lives in the server as implicit state.

Client helpers send one step of a sequence over HTTP, gRPC, or a gRPC stream
and return the OUTPUT value (or raise tritonclient's InferenceServerException).
"""

from __future__ import annotations

import queue
import re
from pathlib import Path
from typing import Sequence

import numpy as np
import onnx
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper

from util import REQUEST_TIMEOUT_S, wait_until

CONTROLS = """    {{ name: "START" control [ {{ kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] }} ] }},
    {{ name: "END" control [ {{ kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] }} ] }},
    {{ name: "READY" control [ {{ kind: CONTROL_SEQUENCE_READY bool_false_true: [ false, true ] }} ] }},
    {{ name: "CORRID" control [ {{ kind: CONTROL_SEQUENCE_CORRID data_type: {corrid_type} }} ] }}"""

STATE = """  state [ {
    input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT32 dims: [ 1 ]
    initial_state: [ { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true name: "zero" } ]
  } ]
"""

ALL_OUTPUTS = ("OUTPUT", "CONTROLS", "BATCH", "ROW")
OUTPUT_DIMS = {"OUTPUT": ("TYPE_INT32", 1), "CONTROLS": ("TYPE_INT64", 4),
               "BATCH": ("TYPE_INT32", 1), "ROW": ("TYPE_INT32", 1)}


# Longer than any test: a sequence is released as idle only where a test asks
# for it (the default, 1 s, could pass between two requests on a busy machine).
NEVER_IDLE_US = 60_000_000


def accumulate_config(name: str, record_file: Path | None = None, max_batch_size: int = 4,
                      strategy: str = "", idle_us: int | None = NEVER_IDLE_US, instances: int = 1,
                      corrid_type: str = "TYPE_UINT64", state: bool = False,
                      outputs: Sequence[str] = ALL_OUTPUTS) -> str:
    """An accumulate model. `strategy` is the text of `direct { ... }` or
    `oldest { ... }` ("" for the default); `idle_us` the
    max_sequence_idle_microseconds (None: the server's default); `state`: the sum lives
    in the server as implicit state STATE_IN/STATE_OUT."""
    outs = ",\n".join(f'  {{ name: "{o}" data_type: {OUTPUT_DIMS[o][0]} '
                      f"dims: [ {OUTPUT_DIMS[o][1]} ] }}" for o in outputs)
    text = (f'name: "{name}"\nbackend: "accumulate"\nmax_batch_size: {max_batch_size}\n'
            'input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]\n'
            f"output [\n{outs}\n]\n"
            f"instance_group [ {{ count: {instances} kind: KIND_CPU }} ]\n")
    if record_file is not None:
        text += (f'parameters {{ key: "record_file" value: {{ string_value: "{record_file}" }} }}\n')
    text += "sequence_batching {\n"
    if idle_us is not None:
        text += f"  max_sequence_idle_microseconds: {idle_us}\n"
    if strategy:
        text += f"  {strategy}\n"
    text += f"  control_input [\n{CONTROLS.format(corrid_type=corrid_type)}\n  ]\n"
    if state:
        text += STATE
    return text + "}\n"


def onnx_state_model() -> bytes:
    """STATE_OUT = STATE_IN + INPUT, OUTPUT = STATE_OUT; INT32 [batch, 1]."""
    def value(name):
        return helper.make_tensor_value_info(name, TensorProto.INT32, ["batch", 1])

    graph = helper.make_graph(
        [helper.make_node("Add", ["STATE_IN", "INPUT"], ["STATE_OUT"]),
         helper.make_node("Identity", ["STATE_OUT"], ["OUTPUT"])],
        "running_sum", [value("INPUT"), value("STATE_IN")], [value("OUTPUT"), value("STATE_OUT")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def onnx_state_config(name: str, max_batch_size: int = 8) -> str:
    return (f'name: "{name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: {max_batch_size}\n'
            'input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]\n'
            'output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]\n'
            "instance_group [ { count: 1 kind: KIND_CPU } ]\n"
            f"sequence_batching {{\n  max_sequence_idle_microseconds: {NEVER_IDLE_US}\n"
            f"{STATE}}}\n")


# ---------------------------------------------------------------------------
# The record file

_FIELD_RE = re.compile(r"(\w+)=(\S*)")


def records(path: Path) -> list[dict]:
    """Each line of an accumulate record file as a dict: corrid (str), start,
    end, ready, input, batch, row (int), output (int, None for an error row),
    instance (str), error (str, only on error rows)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        head, _, error = line.partition(" error=")
        row = dict(_FIELD_RE.findall(head))
        for key in ("start", "end", "ready", "input", "batch", "row"):
            row[key] = int(row[key])
        row["output"] = None if row["output"] == "-" else int(row["output"])
        if error:
            row["error"] = error
        rows.append(row)
    return rows


def wait_for_record(path: Path, predicate, what: str) -> dict:
    """The first record row matching `predicate`, once the backend wrote it."""
    def find():
        return next((r for r in records(path) if predicate(r)), None)
    return wait_until(find, what=lambda: f"{what}; record so far: {records(path)}")


# ---------------------------------------------------------------------------
# Clients


def _value(values: int, batched: bool) -> np.ndarray:
    return np.array([[values]] if batched else [values], dtype=np.int32)


def http_inputs(value: int, batched: bool = True):
    data = _value(value, batched)
    inp = httpclient.InferInput("INPUT", list(data.shape), "INT32")
    inp.set_data_from_numpy(data, binary_data=True)
    return [inp]


def grpc_inputs(value: int, batched: bool = True):
    data = _value(value, batched)
    inp = grpcclient.InferInput("INPUT", list(data.shape), "INT32")
    inp.set_data_from_numpy(data)
    return [inp]


def http_step(client, model: str, sequence_id, value: int, start: bool = False,
              end: bool = False, batched: bool = True, outputs=("OUTPUT",)) -> dict:
    """One request of a sequence over HTTP; {output name: flat list}."""
    result = client.infer(model, http_inputs(value, batched), sequence_id=sequence_id,
                          sequence_start=start, sequence_end=end,
                          outputs=[httpclient.InferRequestedOutput(o) for o in outputs])
    return {o: result.as_numpy(o).flatten().tolist() for o in outputs}


def grpc_step(client, model: str, sequence_id, value: int, start: bool = False,
              end: bool = False, batched: bool = True, outputs=("OUTPUT",)) -> dict:
    """One request of a sequence over gRPC ModelInfer; {output name: flat list}."""
    result = client.infer(model, grpc_inputs(value, batched), sequence_id=sequence_id,
                          sequence_start=start, sequence_end=end,
                          outputs=[grpcclient.InferRequestedOutput(o) for o in outputs],
                          client_timeout=REQUEST_TIMEOUT_S)
    return {o: result.as_numpy(o).flatten().tolist() for o in outputs}


class GrpcStream:
    """One gRPC ModelStreamInfer stream; responses matched to requests by id."""

    def __init__(self, server):
        self.client = server.grpc_client()
        self.results: queue.Queue = queue.Queue()
        self.client.start_stream(callback=lambda result, error: self.results.put((result, error)))

    def send(self, model: str, request_id: str, sequence_id, value: int, start=False, end=False,
             outputs=("OUTPUT",)):
        self.client.async_stream_infer(
            model, grpc_inputs(value), request_id=request_id, sequence_id=sequence_id,
            sequence_start=start, sequence_end=end,
            outputs=[grpcclient.InferRequestedOutput(o) for o in outputs])

    def collect(self, count: int, outputs=("OUTPUT",)) -> dict:
        """The next `count` responses: {request id: {output: list} or the error}."""
        got = {}
        for _ in range(count):
            result, error = self.results.get(timeout=3 * REQUEST_TIMEOUT_S)
            if error is not None:
                # An error response names no request id in tritonclient's
                # callback; the test counts it.
                got.setdefault("errors", []).append(str(error))
                continue
            response = result.get_response()
            got[response.id] = {o: result.as_numpy(o).flatten().tolist() for o in outputs}
        return got

    def close(self):
        self.client.stop_stream()
        self.client.close()


def running_sums(values: Sequence[int]) -> list[int]:
    return np.cumsum(np.asarray(values, dtype=np.int64)).tolist()
