"""model.py sources for the tests of coroutine execute (async def execute) and
of the newer BLS arguments (timeout, correlation_id, flags), written as
Triton's Python-backend documentation writes them."""

from __future__ import annotations

from python_models import config

# Gates: a called model that answers only once PARTIES requests of one ROUND
# are in flight at once (or after 20 s, with the count it saw), so a caller's
# concurrency is observable in its answer, not in a timing.

# Decoupled, async def execute: each request waits on the event loop for its
# round to fill, which only happens if Triton's rule holds, that the next
# batch starts while earlier coroutines of the instance still wait.
ASYNC_GATE = '''
import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.rounds = {}

    async def execute(self, requests):
        await asyncio.gather(*(self.pass_gate(request) for request in requests))

    async def pass_gate(self, request):
        key = int(pb_utils.get_input_tensor_by_name(request, "ROUND").as_numpy()[0])
        parties = int(pb_utils.get_input_tensor_by_name(request, "PARTIES").as_numpy()[0])
        state = self.rounds.setdefault(key, {"seen": 0, "full": asyncio.Event()})
        state["seen"] += 1
        if state["seen"] >= parties:
            state["full"].set()
        try:
            await asyncio.wait_for(state["full"].wait(), 20)
        except asyncio.TimeoutError:
            pass
        seen = np.array([state["seen"]], dtype=np.int32)
        request.get_response_sender().send(
            pb_utils.InferenceResponse([pb_utils.Tensor("SEEN", seen)]),
            flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
'''

ASYNC_GATE_CONFIG = config("async_gate",
                           [("ROUND", "TYPE_INT64", [1]), ("PARTIES", "TYPE_INT32", [1])],
                           [("SEEN", "TYPE_INT32", [1])],
                           extra="model_transaction_policy { decoupled: true }\n")

# Not decoupled: the dynamic batcher holds requests until 8 are queued (a
# 20 s delay bounds the wait); each answer is the size of its batch.
BATCH_GATE = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        seen = np.array([[len(requests)]], dtype=np.int32)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("SEEN", seen)]) for _ in requests]
'''

BATCH_GATE_CONFIG = config(
    "batch_gate", [("X", "TYPE_INT32", [1])], [("SEEN", "TYPE_INT32", [1])], max_batch_size=8,
    extra="dynamic_batching { preferred_batch_size: [ 8 ] "
          "max_queue_delay_microseconds: 20000000 }\n")

# Default mode, async def execute: awaits CALLS async_exec() calls together
# to batch_gate and answers what each saw.
FAN_OUT = '''
import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def execute(self, requests):
        responses = []
        for request in requests:
            calls = int(pb_utils.get_input_tensor_by_name(request, "CALLS").as_numpy()[0])
            x = pb_utils.Tensor("X", np.array([[1]], dtype=np.int32))
            infer_response_awaits = []
            for _ in range(calls):
                inference_request = pb_utils.InferenceRequest(
                    model_name="batch_gate", requested_output_names=["SEEN"], inputs=[x])
                infer_response_awaits.append(inference_request.async_exec())
            infer_responses = await asyncio.gather(*infer_response_awaits)
            seen = []
            for infer_response in infer_responses:
                if infer_response.has_error():
                    raise pb_utils.TritonModelException(infer_response.error().message())
                seen.append(int(pb_utils.get_output_tensor_by_name(
                    infer_response, "SEEN").as_numpy().reshape(-1)[0]))
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("SEEN", np.array(seen, dtype=np.int32))]))
        return responses
'''

FAN_OUT_CONFIG = config("fan_out", [("CALLS", "TYPE_INT32", [1])], [("SEEN", "TYPE_INT32", [-1])])

# Decoupled, async def execute: awaits CALLS async_exec(decoupled=True) calls
# together to async_gate (round ROUND of PARTIES), reads each stream with a
# plain `for` as Triton's documentation does (with `async for` when the
# request parameter async_for is true), and sends what each saw.
STREAM_FAN_OUT = '''
import asyncio
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            calls = int(pb_utils.get_input_tensor_by_name(request, "CALLS").as_numpy()[0])
            inputs = [pb_utils.get_input_tensor_by_name(request, "ROUND"),
                      pb_utils.get_input_tensor_by_name(request, "PARTIES")]
            awaits = [pb_utils.InferenceRequest(
                model_name="async_gate", requested_output_names=["SEEN"],
                inputs=inputs).async_exec(decoupled=True) for _ in range(calls)]
            streams = await asyncio.gather(*awaits)
            how = "async for" if json.loads(request.parameters()).get("async_for") else "for"
            if how == "async for":
                infer_responses = [r for stream in streams for r in await self.read(stream)]
            else:
                infer_responses = [r for stream in streams for r in stream]
            seen = []
            for infer_response in infer_responses:
                if infer_response.has_error():
                    raise pb_utils.TritonModelException(infer_response.error().message())
                if len(infer_response.output_tensors()) > 0:
                    seen.append(int(pb_utils.get_output_tensor_by_name(
                        infer_response, "SEEN").as_numpy()[0]))
            sender.send(pb_utils.InferenceResponse(
                [pb_utils.Tensor("SEEN", np.array(seen, dtype=np.int32)),
                 pb_utils.Tensor("READ", np.array([how.encode()], dtype=np.object_))]),
                flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    async def read(self, stream):
        return [infer_response async for infer_response in stream]
'''

STREAM_FAN_OUT_CONFIG = config(
    "stream_fan_out",
    [("CALLS", "TYPE_INT32", [1]), ("ROUND", "TYPE_INT64", [1]), ("PARTIES", "TYPE_INT32", [1])],
    [("SEEN", "TYPE_INT32", [-1]), ("READ", "TYPE_STRING", [1])],
    extra="model_transaction_policy { decoupled: true }\n")

# async def execute that raises for a negative X after an await; doubles X
# otherwise. The same source serves a default and a decoupled model.
ASYNC_RAISES = '''
import asyncio
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.decoupled = pb_utils.using_decoupled_model_transaction_policy(
            json.loads(args["model_config"]))

    async def execute(self, requests):
        await asyncio.sleep(0)
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if x[0] < 0:
                raise ValueError(f"negative input {x[0]}")
            response = pb_utils.InferenceResponse([pb_utils.Tensor("Y", x * 2)])
            if self.decoupled:
                request.get_response_sender().send(
                    response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            responses.append(response)
        return None if self.decoupled else responses
'''


def async_raises_config(name: str, decoupled: bool) -> str:
    return config(name, [("X", "TYPE_INT32", [1])], [("Y", "TYPE_INT32", [1])],
                  extra="model_transaction_policy { decoupled: true }\n" if decoupled else "")


# Answers pb_utils.get_model_dir(), as seen from execute.
MODEL_DIR = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        where = np.array([pb_utils.get_model_dir().encode()], dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("DIR", where)]) for _ in requests]
'''

ASYNC_INITIALIZE = '''
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def initialize(self, args):
        self.ready = True

    def execute(self, requests):
        return [pb_utils.InferenceResponse([]) for _ in requests]
'''

# BLS with a timeout: "held" runs one request at a time and holds one whose X
# is 1 until the test creates its release file (it creates its started file
# first); its queue lets a request shorten the timeout. "bls_timeout" calls it
# with timeout=TIMEOUT_US and answers the error's code and text (code -1: none).
HELD = '''
import json
import os
import time

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        parameters = json.loads(args["model_config"])["parameters"]
        self.started = parameters["started_file"]["string_value"]
        self.release = parameters["release_file"]["string_value"]

    def execute(self, requests):
        for request in requests:
            if pb_utils.get_input_tensor_by_name(request, "X").as_numpy().reshape(-1)[0] == 1:
                open(self.started, "w").close()
                deadline = time.monotonic() + 30
                while not os.path.exists(self.release) and time.monotonic() < deadline:
                    time.sleep(0.01)
        return [pb_utils.InferenceResponse(
            [pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(request, "X").as_numpy())])
            for request in requests]
'''


def held_config(started_file, release_file) -> str:
    return config("held", [("X", "TYPE_INT32", [1])], [("Y", "TYPE_INT32", [1])],
                  max_batch_size=1, extra=f"""dynamic_batching {{
  default_queue_policy {{ allow_timeout_override: true timeout_action: REJECT }}
}}
parameters {{ key: "started_file" value: {{ string_value: "{started_file}" }} }}
parameters {{ key: "release_file" value: {{ string_value: "{release_file}" }} }}
""")


BLS_TIMEOUT = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            timeout = int(pb_utils.get_input_tensor_by_name(request, "TIMEOUT_US").as_numpy()[0])
            inference_request = pb_utils.InferenceRequest(
                model_name="held", requested_output_names=["Y"],
                inputs=[pb_utils.Tensor("X", np.array([[0]], dtype=np.int32))], timeout=timeout)
            inference_response = inference_request.exec()
            code, text = -1, ""
            if inference_response.has_error():
                code = inference_response.error().code()
                text = inference_response.error().message()
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("CODE", np.array([code], dtype=np.int32)),
                pb_utils.Tensor("ERROR", np.array([text.encode()], dtype=np.object_))]))
        return responses
'''

BLS_TIMEOUT_CONFIG = config("bls_timeout", [("TIMEOUT_US", "TYPE_INT64", [1])],
                            [("CODE", "TYPE_INT32", [1]), ("ERROR", "TYPE_STRING", [1])])

# BLS into stateful models: "seq_driver" runs two sequences, IDS[0] and IDS[1]
# (a number when all digits, else a string), interleaved step by step through
# the model TARGET: VALUES[s][0] with SEQUENCE_START, VALUES[s][1], then
# VALUES[s][2] with SEQUENCE_END; SUMS[s][i] is the running sum the target
# answered. "py_acc" is a Python sequence model keeping a sum per
# correlation_id(), which it also answers (CORR: its type and value).
SEQ_DRIVER = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            target = pb_utils.get_input_tensor_by_name(request, "TARGET").as_numpy()[0].decode()
            ids = [i.decode() for i in pb_utils.get_input_tensor_by_name(request, "IDS").as_numpy()]
            ids = [int(i) if i.isdigit() else i for i in ids]
            values = pb_utils.get_input_tensor_by_name(request, "VALUES").as_numpy()
            wanted = ["OUTPUT", "CORR"] if target.startswith("py_") else ["OUTPUT"]
            sums = np.zeros((2, 3), dtype=np.int32)
            corrs = np.full((2, 3), b"", dtype=np.object_)
            for step in range(3):
                for s in range(2):
                    flags = 0
                    if step == 0:
                        flags |= pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START
                    if step == 2:
                        flags |= pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END
                    x = np.array([[values[s][step]]], dtype=np.int32)
                    inference_response = pb_utils.InferenceRequest(
                        model_name=target, requested_output_names=wanted,
                        inputs=[pb_utils.Tensor("INPUT", x)], request_id=f"{s}-{step}",
                        correlation_id=ids[s], flags=flags).exec()
                    if inference_response.has_error():
                        raise pb_utils.TritonModelException(inference_response.error().message())
                    out = pb_utils.get_output_tensor_by_name(inference_response, "OUTPUT")
                    sums[s][step] = out.as_numpy().reshape(-1)[0]
                    corr = pb_utils.get_output_tensor_by_name(inference_response, "CORR")
                    if corr is not None:
                        corrs[s][step] = corr.as_numpy().reshape(-1)[0]
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("SUMS", sums), pb_utils.Tensor("CORRS", corrs)]))
        return responses
'''

SEQ_DRIVER_CONFIG = config(
    "seq_driver",
    [("TARGET", "TYPE_STRING", [1]), ("IDS", "TYPE_STRING", [2]), ("VALUES", "TYPE_INT32", [2, 3])],
    [("SUMS", "TYPE_INT32", [2, 3]), ("CORRS", "TYPE_STRING", [2, 3])])

PY_ACC = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.sums = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            key = request.correlation_id()
            if request.flags() & pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START:
                self.sums[key] = 0
            x = pb_utils.get_input_tensor_by_name(request, "INPUT").as_numpy()
            self.sums[key] += int(x.reshape(-1)[0])
            total = np.array([[self.sums[key]]], dtype=np.int32)
            if request.flags() & pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END:
                del self.sums[key]
            corr = np.array([[f"{type(key).__name__}:{key}".encode()]], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUTPUT", total), pb_utils.Tensor("CORR", corr)]))
        return responses
'''

PY_ACC_CONFIG = config(
    "py_acc", [("INPUT", "TYPE_INT32", [1])],
    [("OUTPUT", "TYPE_INT32", [1]), ("CORR", "TYPE_STRING", [1])], max_batch_size=4,
    extra="sequence_batching {\n  max_sequence_idle_microseconds: 60000000\n"
          "  oldest { max_candidate_sequences: 4 }\n}\n")

# exec() without decoupled=True into the decoupled "repeat" model: refused, as
# Triton refuses it; answers the error's code and text.
EXEC_INTO_DECOUPLED = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            inference_response = pb_utils.InferenceRequest(
                model_name="repeat", requested_output_names=["OUT"],
                inputs=[pb_utils.Tensor("COUNT", np.array([2], dtype=np.int32))]).exec()
            error = inference_response.error()
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("CODE", np.array([error.code() if error else -1], np.int32)),
                pb_utils.Tensor("ERROR", np.array([error.message().encode() if error else b""],
                                                  dtype=np.object_))]))
        return responses
'''

EXEC_INTO_DECOUPLED_CONFIG = config("exec_into_decoupled", [("X", "TYPE_INT32", [1])],
                                    [("CODE", "TYPE_INT32", [1]), ("ERROR", "TYPE_STRING", [1])])
