"""The model loading API from a Python model (pb_utils.load_model,
unload_model, is_model_ready; Triton's BLS model loading), in EXPLICIT model
control mode, driven by a model that runs the command each request carries:

- is_model_ready says False for a model not loaded (or unknown), True once
  load_model loaded it, and the loaded model serves clients over HTTP and gRPC;
- load_model with a config override (JSON) and with files ({"file:1/model.py":
  bytes} plus that config) loads what they say;
- unload_model unloads; is_model_ready says False again;
- errors (an unknown model, a broken config override, a files key without
  "file:", loading in NONE mode) raise TritonModelException in the model,
  naming the model and the cause, and the server serves on;
- a model that unloads itself gets its answer at once and is unloaded once
  that request ended (no deadlock on its own drain).
"""

from __future__ import annotations

import base64
import json
import textwrap

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import python_models as pm
from util import wait_until

LOADER = '''
import base64
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            command = json.loads(pb_utils.get_input_tensor_by_name(request, "COMMAND").as_numpy()[0])
            try:
                result = self.run(command)
            except pb_utils.TritonModelException as e:
                result = "TritonModelException: " + str(e)
            out = np.array([result], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("RESULT", out)]))
        return responses

    def run(self, command):
        op, name = command["op"], command["name"]
        if op == "ready":
            return str(pb_utils.is_model_ready(model_name=name,
                                               model_version=command.get("version", "")))
        if op == "load":
            files = command.get("files")
            if files is not None:
                files = {key: base64.b64decode(value) for key, value in files.items()}
            pb_utils.load_model(model_name=name, config=command.get("config", ""), files=files)
            return "ok"
        pb_utils.unload_model(model_name=name,
                              unload_dependents=command.get("unload_dependents", False))
        return "ok"
'''

LOADER_CONFIG = pm.config("loader", [("COMMAND", "TYPE_STRING", [1])],
                          [("RESULT", "TYPE_STRING", [1])])

ADD = '''
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor(
            "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy() + {step})])
            for r in requests]
'''

TARGET_CONFIG = pm.config("target", [("INPUT0", "TYPE_FP32", [4])],
                          [("OUTPUT0", "TYPE_FP32", [4])])


def target_config_json(max_batch_size: int = 0) -> str:
    dims = [4]
    return json.dumps({
        "name": "target", "backend": "python", "max_batch_size": max_batch_size,
        "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": dims}],
        "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": dims}],
    })


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        "loader": pm.python_model(LOADER_CONFIG, LOADER),
        "target": pm.python_model(TARGET_CONFIG, ADD.replace("{step}", "1")),
    }, extra_args=("--model-control-mode=explicit", "--load-model=loader"))


def run(server, protocol="http", model="loader", **command) -> str:
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    tensor = module.InferInput("COMMAND", [1], "BYTES")
    tensor.set_data_from_numpy(np.array([json.dumps(command).encode()], dtype=np.object_))
    return client.infer(model, [tensor]).as_numpy("RESULT")[0].decode()


def infer_target(server, protocol="http"):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    tensor = module.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.arange(4, dtype=np.float32))
    return client.infer("target", [tensor]).as_numpy("OUTPUT0")


def test_load_ready_and_unload_from_a_model(server):
    assert run(server, op="ready", name="target") == "False"
    assert run(server, op="ready", name="no_such_model") == "False"
    assert run(server, "grpc", op="load", name="target") == "ok"
    assert run(server, op="ready", name="target") == "True"
    assert run(server, "grpc", op="ready", name="target", version="1") == "True"
    assert run(server, op="ready", name="target", version="2") == "False"
    for protocol in ("http", "grpc"):
        np.testing.assert_array_equal(infer_target(server, protocol), [1, 2, 3, 4])
    assert run(server, op="unload", name="target") == "ok"
    assert run(server, "grpc", op="ready", name="target") == "False"
    with pytest.raises(Exception, match="target"):
        infer_target(server)


def test_load_with_a_config_override_and_with_files(server):
    assert run(server, op="load", name="target", config=target_config_json(8)) == "ok"
    assert server.get("/v2/models/target/config").json()["max_batch_size"] == 8
    source = textwrap.dedent(ADD.replace("{step}", "100")).encode()
    files = {"file:1/model.py": base64.b64encode(source).decode()}
    assert run(server, "grpc", op="load", name="target", config=target_config_json(),
               files=files) == "ok"
    assert server.get("/v2/models/target/config").json()["max_batch_size"] == 0
    np.testing.assert_array_equal(infer_target(server, "grpc"), [100, 101, 102, 103])
    assert run(server, op="unload", name="target") == "ok"


def test_load_errors_raise_in_the_model(server):
    unknown = run(server, op="load", name="no_such_model")
    assert unknown.startswith("TritonModelException: failed to load model 'no_such_model'")
    broken = run(server, "grpc", op="load", name="target", config="{not json")
    assert broken.startswith("TritonModelException: failed to load model 'target'"), broken
    assert run(server, op="ready", name="target") == "False"
    bad_key = run(server, op="load", name="target", config=target_config_json(),
                  files={"1/model.py": ""})
    assert "unrecognized load parameter '1/model.py'" in bad_key, bad_key
    # The server serves on, the loader included.
    assert server.get("/v2/health/live").status_code == 200
    assert run(server, op="ready", name="loader") == "True"


def test_a_model_that_unloads_itself_is_answered_and_then_unloaded(server):
    assert run(server, op="unload", name="loader") == "ok"
    wait_until(lambda: server.get("/v2/models/loader/ready").status_code != 200,
               what="the loader's unload")
    assert server.post("/v2/repository/models/loader/load").status_code == 200
    assert run(server, op="ready", name="loader") == "True"


def test_loading_outside_explicit_mode_raises(inferd):
    server = inferd({"loader": pm.python_model(LOADER_CONFIG, LOADER),
                     "target": pm.python_model(TARGET_CONFIG, ADD.replace("{step}", "1"))})
    refused = run(server, op="load", name="target")
    assert refused.startswith("TritonModelException: failed to load model 'target'"), refused
    assert "explicit" in refused
