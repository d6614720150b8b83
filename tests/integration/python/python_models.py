"""model.py sources and configs for the Python backend's integration tests,
written the way Triton's documentation writes them (pb_utils, numpy), so
passing here means an unchanged Triton model runs on inferd."""

from __future__ import annotations

import textwrap

from util import Model


def config(name: str, inputs, outputs, max_batch_size: int = 0, extra: str = "") -> str:
    """config.pbtxt of a python-backend model; inputs/outputs are
    (name, TYPE_x, dims) triples."""
    def block(entries):
        return ",\n".join(
            f'  {{ name: "{n}" data_type: {t} dims: [ {", ".join(str(d) for d in dims)} ] }}'
            for n, t, dims in entries)
    return (f'name: "{name}"\nbackend: "python"\nmax_batch_size: {max_batch_size}\n'
            f"input [\n{block(inputs)}\n]\noutput [\n{block(outputs)}\n]\n{extra}")


def python_model(config_text: str | None, source: str, **files) -> Model:
    """A model folder: config.pbtxt (None: none) and 1/model.py."""
    all_files = {"1/model.py": textwrap.dedent(source)}
    all_files.update({k: textwrap.dedent(v) for k, v in files.items()})
    return Model(config=config_text, files=all_files)


ADD_SUB = '''
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.model_config = model_config = json.loads(args["model_config"])
        output0_config = pb_utils.get_output_config_by_name(model_config, "OUTPUT0")
        output1_config = pb_utils.get_output_config_by_name(model_config, "OUTPUT1")
        self.output0_dtype = pb_utils.triton_string_to_numpy(output0_config["data_type"])
        self.output1_dtype = pb_utils.triton_string_to_numpy(output1_config["data_type"])

    def execute(self, requests):
        responses = []
        for request in requests:
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1")
            out_0, out_1 = (in_0.as_numpy() + in_1.as_numpy(),
                            in_0.as_numpy() - in_1.as_numpy())
            out_tensor_0 = pb_utils.Tensor("OUTPUT0", out_0.astype(self.output0_dtype))
            out_tensor_1 = pb_utils.Tensor("OUTPUT1", out_1.astype(self.output1_dtype))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out_tensor_0,
                                                                        out_tensor_1]))
        return responses

    def finalize(self):
        print("Cleaning up...")
'''

ADD_SUB_CONFIG = config("add_sub",
                        [("INPUT0", "TYPE_FP32", [4]), ("INPUT1", "TYPE_FP32", [4])],
                        [("OUTPUT0", "TYPE_FP32", [4]), ("OUTPUT1", "TYPE_FP32", [4])])

# BYTES in, BYTES out: each string upper-cased, with the request's id and
# parameters echoed so tests see what reached Python.
STRINGS = '''
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            words = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            upper = np.array([w.decode("utf-8").upper().encode("utf-8") for w in words.ravel()],
                             dtype=np.object_).reshape(words.shape)
            echo = np.array([request.request_id(), request.parameters(),
                             ",".join(request.requested_output_names())], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("UPPER", upper), pb_utils.Tensor("ECHO", echo)]))
        return responses
'''

STRINGS_CONFIG = config("strings", [("TEXT", "TYPE_STRING", [-1])],
                        [("UPPER", "TYPE_STRING", [-1]), ("ECHO", "TYPE_STRING", [3])])

# Errors: input X < 0 -> an error in that request's response; X == 0 -> execute
# raises; otherwise X doubled.
ERRORS = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if (x == 0).any():
                raise ValueError("zero is not allowed here")
            if (x < 0).any():
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[],
                    error=pb_utils.TritonError("negative input", pb_utils.TritonError.INVALID_ARG)))
                continue
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x * 2)]))
        return responses
'''

ERRORS_CONFIG = config("errors", [("X", "TYPE_INT32", [2])], [("Y", "TYPE_INT32", [2])])

# Dynamic batching: every response says how many requests its execute() got
# and the stub's pid. A request whose GATE is 1 first waits (up to 20 s) for
# the file named by the model parameter gate_file, so tests can queue others
# behind it.
BATCHER = '''
import json
import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.gate = config["parameters"]["gate_file"]["string_value"]

    def execute(self, requests):
        for request in requests:
            if pb_utils.get_input_tensor_by_name(request, "GATE").as_numpy().any():
                deadline = time.monotonic() + 20
                while not os.path.exists(self.gate) and time.monotonic() < deadline:
                    time.sleep(0.005)
        seen = np.array([[len(requests), os.getpid()]], dtype=np.int64)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("SEEN", seen)])
                for _ in requests]
'''


def batcher_config(gate_file, instances: int = 1) -> str:
    return config("batcher", [("GATE", "TYPE_INT32", [1])], [("SEEN", "TYPE_INT64", [2])],
                  max_batch_size=8, extra=f"""dynamic_batching {{ }}
instance_group [ {{ kind: KIND_CPU count: {instances} }} ]
parameters {{ key: "gate_file" value: {{ string_value: "{gate_file}" }} }}
""")


# Two instances: each execute() marks itself running in a shared folder and
# waits (up to 20 s) until another instance is running too, then answers how
# many instances it saw running at once and its instance name.
PARALLEL = '''
import json
import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.folder = config["parameters"]["folder"]["string_value"]
        self.name = args["model_instance_name"]

    def execute(self, requests):
        mark = os.path.join(self.folder, self.name)
        open(mark, "w").close()
        deadline = time.monotonic() + 20
        while len(os.listdir(self.folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        running = len(os.listdir(self.folder))
        out = np.array([running], dtype=np.int32)
        who = np.array([self.name.encode()], dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("RUNNING", out),
                                            pb_utils.Tensor("INSTANCE", who)])
                for _ in requests]
'''


def parallel_config(folder) -> str:
    return config("parallel", [("X", "TYPE_INT32", [1])],
                  [("RUNNING", "TYPE_INT32", [1]), ("INSTANCE", "TYPE_STRING", [1])],
                  extra=f"""instance_group [ {{ kind: KIND_CPU count: 2 }} ]
parameters {{ key: "folder" value: {{ string_value: "{folder}" }} }}
""")


# Decoupled: each request gets COUNT responses (OUT = 0..COUNT-1) from a
# thread, then FINAL alone; execute() returns None at once.
REPEAT = '''
import threading

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.threads = []

    def execute(self, requests):
        for request in requests:
            count = int(pb_utils.get_input_tensor_by_name(request, "COUNT").as_numpy()[0])
            sender = request.get_response_sender()
            thread = threading.Thread(target=self.stream, args=(sender, count))
            thread.start()
            self.threads.append(thread)
        return None

    def stream(self, sender, count):
        for i in range(count):
            if sender.is_cancelled():
                break
            out = pb_utils.Tensor("OUT", np.array([i], dtype=np.int32))
            sender.send(pb_utils.InferenceResponse(output_tensors=[out]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    def finalize(self):
        for thread in self.threads:
            thread.join()
'''

REPEAT_CONFIG = config("repeat", [("COUNT", "TYPE_INT32", [1])], [("OUT", "TYPE_INT32", [1])],
                       extra="model_transaction_policy { decoupled: true }\n")

# Returns its input and the stub's pid (to find the process to kill). A
# request whose X starts negative holds the instance (up to 20 s) until the
# file named by the model parameter gate_file exists.
PID_ECHO = '''
import json
import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.gate = config["parameters"]["gate_file"]["string_value"]

    def execute(self, requests):
        pid = np.array([os.getpid()], dtype=np.int64)
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if x[0] < 0:
                deadline = time.monotonic() + 20
                while not os.path.exists(self.gate) and time.monotonic() < deadline:
                    time.sleep(0.005)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x),
                                                         pb_utils.Tensor("PID", pid)]))
        return responses
'''


def pid_echo_config(gate_file) -> str:
    return config("pid_echo", [("X", "TYPE_FP32", [-1])],
                  [("Y", "TYPE_FP32", [-1]), ("PID", "TYPE_INT64", [1])],
                  extra=f'parameters {{ key: "gate_file" value: {{ string_value: "{gate_file}" }} }}\n')

# No config.pbtxt: auto_complete_config says everything.
AUTO_COMPLETE = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        auto_complete_model_config.set_max_batch_size(4)
        auto_complete_model_config.add_input({"name": "A", "data_type": "TYPE_INT32", "dims": [2]})
        auto_complete_model_config.add_output({"name": "B", "data_type": "TYPE_INT32",
                                               "dims": [2]})
        auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor(
            "B", pb_utils.get_input_tensor_by_name(r, "A").as_numpy() + 1)]) for r in requests]
'''

FAILS_INITIALIZE = '''
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        raise RuntimeError("the weights file is missing")

    def execute(self, requests):
        return []
'''

# Business logic scripting: X goes through the ONNX model "onnx_add_sub"
# (X + 1, X - 1) with exec(), twice more at once with async_exec(), and its
# first element sets how many responses the decoupled "repeat" model streams
# back through exec(decoupled=True). A call to a model that does not exist
# answers with an error in its response, which the model passes on as text.
BLS = '''
import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


def add_sub_request(x):
    return pb_utils.InferenceRequest(
        model_name="onnx_add_sub",
        inputs=[pb_utils.Tensor("INPUT0", x), pb_utils.Tensor("INPUT1", np.ones_like(x))],
        requested_output_names=["OUTPUT0", "OUTPUT1"])


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            added = add_sub_request(x).exec()
            if added.has_error():
                raise pb_utils.TritonModelException(added.error().message())
            plus = pb_utils.get_output_tensor_by_name(added, "OUTPUT0").as_numpy()

            async def both():
                return await asyncio.gather(add_sub_request(x).async_exec(),
                                            add_sub_request(x * 2).async_exec())
            first, second = asyncio.run(both())
            minus = pb_utils.get_output_tensor_by_name(first, "OUTPUT1").as_numpy()
            double_minus = pb_utils.get_output_tensor_by_name(second, "OUTPUT1").as_numpy()

            count = np.array([int(x.reshape(-1)[0])], dtype=np.int32)
            stream = pb_utils.InferenceRequest(
                model_name="repeat", inputs=[pb_utils.Tensor("COUNT", count)],
                requested_output_names=["OUT"])
            streamed = [int(pb_utils.get_output_tensor_by_name(r, "OUT").as_numpy()[0])
                        for r in stream.exec(decoupled=True) if r.output_tensors()]

            missing = pb_utils.InferenceRequest(
                model_name="no_such_model", inputs=[pb_utils.Tensor("X", x)],
                requested_output_names=["Y"]).exec()
            error = missing.error().message() if missing.has_error() else ""

            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("PLUS", plus),
                pb_utils.Tensor("MINUS", np.concatenate([minus, double_minus])),
                pb_utils.Tensor("STREAMED", np.array(streamed, dtype=np.int32)),
                pb_utils.Tensor("ERROR", np.array([error.encode()], dtype=np.object_))]))
        return responses
'''

BLS_CONFIG = config("bls", [("X", "TYPE_FP32", [4])],
                    [("PLUS", "TYPE_FP32", [4]), ("MINUS", "TYPE_FP32", [8]),
                     ("STREAMED", "TYPE_INT32", [-1]), ("ERROR", "TYPE_STRING", [1])])

# Reports which interpreter runs it and whether a module only its virtual
# environment has can be imported.
WHICH_PYTHON = '''
import sys

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        import venv_only_module
        answer = np.array([sys.executable.encode(), venv_only_module.WHO.encode()],
                          dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("WHICH", answer)])
                for _ in requests]
'''

WHICH_PYTHON_CONFIG = config(
    "which_python", [("X", "TYPE_INT32", [1])], [("WHICH", "TYPE_STRING", [2])],
    extra='parameters { key: "EXECUTION_ENV_PATH" '
          'value: { string_value: "$$TRITON_MODEL_DIRECTORY/venv" } }\n')

# Decoupled, streams until its client goes away: one response every 5 ms
# while the sender is not cancelled, then FINAL; writes how it stopped to the
# file named by the model parameter stop_file.
ENDLESS = '''
import json
import threading
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.stop_file = config["parameters"]["stop_file"]["string_value"]

    def execute(self, requests):
        for request in requests:
            threading.Thread(target=self.stream, args=(request.get_response_sender(),)).start()
        return None

    def stream(self, sender):
        sent = 0
        deadline = time.monotonic() + 20
        while not sender.is_cancelled() and time.monotonic() < deadline:
            sender.send(pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUT", np.array([sent], dtype=np.int32))]))
            sent += 1
            time.sleep(0.005)
        how = "cancelled" if sender.is_cancelled() else "deadline"
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        with open(self.stop_file, "w") as f:
            f.write(f"{how} {sent}")
'''


def endless_config(stop_file) -> str:
    return config("endless", [("X", "TYPE_INT32", [1])], [("OUT", "TYPE_INT32", [1])],
                  extra=f"""model_transaction_policy {{ decoupled: true }}
parameters {{ key: "stop_file" value: {{ string_value: "{stop_file}" }} }}
""")
