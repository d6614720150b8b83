"""A repository of ONNX models whose config.pbtxt gives only the backend (or the
platform) and max_batch_size, as Triton users write them. With default flags
auto-completion is on, as in Triton: each model loads, its configuration shows
the tensors the ONNX file declares, and it infers correctly; a sequence model's
control input and implicit state (named by its sequence_batching) stay out of
its inputs and outputs. With --disable-auto-complete-config (or the deprecated
--strict-model-config=true) each fails to load, the repository index naming the
missing field, while the server serves on (--exit-on-error=false).
"""

import re

import numpy as np
import onnx
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper

from onnx_graphs import OnnxModel, add_sub_graph, cast_graph, onnx_repository

SEQUENCE = """sequence_batching {
  max_sequence_idle_microseconds: 60000000
  control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                                              int32_false_true: [ 0, 1 ] } ] } ]
  state [ { input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT32 dims: [ 1 ]
            initial_state: [ { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true
                               name: "zero" } ] } ]
}
"""

MINIMAL = {
    "add_sub": 'backend: "onnxruntime"\nmax_batch_size: 8\n',
    "cast": 'platform: "onnxruntime_onnx"\nmax_batch_size: 0\n',
    "running_sum": 'backend: "onnxruntime"\nmax_batch_size: 8\n' + SEQUENCE,
}


def running_sum_graph() -> bytes:
    """OUTPUT = STATE_OUT = STATE_IN + INPUT, INT32 [batch, 1]; START (the
    sequence batcher's control input) is taken and unused."""
    def value(name):
        return helper.make_tensor_value_info(name, TensorProto.INT32, ["batch", 1])

    graph = helper.make_graph(
        [helper.make_node("Add", ["STATE_IN", "INPUT"], ["STATE_OUT"]),
         helper.make_node("Identity", ["STATE_OUT"], ["OUTPUT"])],
        "running_sum", [value("INPUT"), value("START"), value("STATE_IN")],
        [value("OUTPUT"), value("STATE_OUT")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def repository(root):
    return onnx_repository(root, {
        "add_sub": OnnxModel(add_sub_graph(("batch", 4)), MINIMAL["add_sub"]),
        "cast": OnnxModel(cast_graph("INT64", "FP64", (2, 3)), MINIMAL["cast"]),
        "running_sum": OnnxModel(running_sum_graph(), MINIMAL["running_sum"]),
    })


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return repository(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
def server(inferd, repo):
    return inferd(repo)  # default flags


def tensors(entries):
    return {t["name"]: (t["data_type"], t["dims"]) for t in entries}


def test_the_configs_are_minimal(repo):
    for name, text in MINIMAL.items():
        config = (repo / name / "config.pbtxt").read_text()
        assert config == text
        assert not re.search(r"^\s*(input|output)\s*\[", config, re.M), config


def test_minimal_configs_load_with_default_flags(server):
    client = httpclient.InferenceServerClient(server.address)
    for name in MINIMAL:
        assert client.is_model_ready(name), name
    assert client.is_server_ready()


def test_completed_configs_show_the_models_tensors(server):
    client = httpclient.InferenceServerClient(server.address)
    add_sub = client.get_model_config("add_sub")
    assert add_sub["max_batch_size"] == 8
    assert tensors(add_sub["input"]) == {"INPUT0": ("TYPE_FP32", [4]),
                                         "INPUT1": ("TYPE_FP32", [4])}
    assert tensors(add_sub["output"]) == {"OUTPUT0": ("TYPE_FP32", [4]),
                                          "OUTPUT1": ("TYPE_FP32", [4])}
    cast = client.get_model_config("cast")
    assert cast["platform"] == "onnxruntime_onnx" and cast["max_batch_size"] == 0
    assert tensors(cast["input"]) == {"INPUT0": ("TYPE_INT64", [2, 3])}
    assert tensors(cast["output"]) == {"OUTPUT0": ("TYPE_FP64", [2, 3])}


def test_sequence_controls_and_state_are_not_made_inputs_or_outputs(server):
    config = httpclient.InferenceServerClient(server.address).get_model_config("running_sum")
    assert tensors(config["input"]) == {"INPUT": ("TYPE_INT32", [1])}
    assert tensors(config["output"]) == {"OUTPUT": ("TYPE_INT32", [1])}
    metadata = grpcclient.InferenceServerClient(server.grpc_address).get_model_metadata(
        "running_sum", as_json=True)
    assert [t["name"] for t in metadata["inputs"]] == ["INPUT"]
    assert [t["name"] for t in metadata["outputs"]] == ["OUTPUT"]


def test_completed_models_infer_correctly(server):
    client = httpclient.InferenceServerClient(server.address)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.full((3, 4), 0.5, dtype=np.float32)
    inputs = [httpclient.InferInput("INPUT0", [3, 4], "FP32"),
              httpclient.InferInput("INPUT1", [3, 4], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("add_sub", inputs)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)

    grpc = grpcclient.InferenceServerClient(server.grpc_address)
    x = np.array([[1, -2, 3], [2**40, 0, -7]], dtype=np.int64)
    cast_in = grpcclient.InferInput("INPUT0", [2, 3], "INT64")
    cast_in.set_data_from_numpy(x)
    np.testing.assert_array_equal(grpc.infer("cast", [cast_in]).as_numpy("OUTPUT0"),
                                  x.astype(np.float64))


def test_completed_sequence_model_keeps_its_state(server):
    client = httpclient.InferenceServerClient(server.address)
    values, sums = [5, -2, 10], []
    for i, v in enumerate(values):
        x = httpclient.InferInput("INPUT", [1, 1], "INT32")
        x.set_data_from_numpy(np.array([[v]], dtype=np.int32))
        result = client.infer("running_sum", [x], sequence_id=77, sequence_start=i == 0,
                              sequence_end=i == len(values) - 1)
        sums.append(int(result.as_numpy("OUTPUT")[0][0]))
    assert sums == [5, 3, 13]


@pytest.mark.parametrize("flag", ["--disable-auto-complete-config", "--strict-model-config=true"])
def test_without_auto_complete_each_fails_naming_the_missing_field(inferd, tmp_path_factory,
                                                                    flag):
    server = inferd(repository(tmp_path_factory.mktemp("repo")),
                    extra_args=[flag, "--exit-on-error=false"], wait_for="live")
    index = {e["name"]: e for e in server.post("/v2/repository/index", json={}).json()}
    for name in MINIMAL:
        assert index[name]["state"] == "UNAVAILABLE", index[name]
        assert "config.pbtxt" in index[name]["reason"], index[name]
        assert "input: the model must declare at least one input" in index[name]["reason"], \
            index[name]
    assert not httpclient.InferenceServerClient(server.address).is_model_ready("add_sub")
    if flag.startswith("--strict-model-config"):
        assert "'--strict-model-config' is deprecated" in server.log()
    server.stop()


def test_disable_wins_over_strict_model_config_false(inferd, tmp_path_factory):
    server = inferd(repository(tmp_path_factory.mktemp("repo")),
                    extra_args=["--strict-model-config=false", "--disable-auto-complete-config",
                                "--exit-on-error=false"], wait_for="live")
    [entry] = [e for e in server.post("/v2/repository/index", json={}).json()
               if e["name"] == "add_sub"]
    assert entry["state"] == "UNAVAILABLE"
    assert "'--strict-model-config=false' is overridden" in server.log()
    server.stop()
