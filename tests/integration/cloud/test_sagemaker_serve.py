"""scripts/sagemaker/serve, inferd's version of Triton's SageMaker launch script:
a container started with only SageMaker's environment serves /ping and
/invocations for the repository's model, with the KServe HTTP port off, and
refuses the model folders Triton's script refuses."""

from __future__ import annotations

import numpy as np
import pytest

from cloud_util import SAGEMAKER_STARTED, free_ports, get, post
from util import (REPO_ROOT, inferd_binary, json_request, parse_infer_response,
                  single_identity, write_repository)

SERVE = [str(REPO_ROOT / "scripts" / "sagemaker" / "serve")]
FP32 = np.arange(4, dtype=np.float32).reshape(1, 4)


def serve_env(repo, **extra) -> dict[str, str]:
    return {"INFERD_BINARY": str(inferd_binary()), "INFERD_SAGEMAKER_MODEL_REPO": str(repo),
            **extra}


def test_serve_starts_the_only_model_from_the_environment(cloud_server, tmp_path):
    repo = write_repository(tmp_path / "model", {
        "floats": single_identity("floats", "FP32", [4], max_batch_size=2)})
    (port,) = free_ports(1)
    server = cloud_server([], env=serve_env(repo, SAGEMAKER_BIND_TO_PORT=str(port)),
                          program=SERVE)
    assert server.port(SAGEMAKER_STARTED) == port
    log = server.log()
    assert "Started HTTPService" not in log and "Started GRPCInferenceService" not in log
    assert "Started Metrics Service" not in log
    assert get(port, "/ping").status_code == 200
    result = parse_infer_response(post(port, "/invocations",
                                       json=json_request([("INPUT0", "FP32", FP32)])))
    assert result.header["model_name"] == "floats"
    np.testing.assert_array_equal(result.tensors["OUTPUT0"], FP32)


def test_serve_loads_only_the_named_model(cloud_server, tmp_path):
    repo = write_repository(tmp_path / "model", {
        "floats": single_identity("floats", "FP32", [4]),
        "other": single_identity("other", "FP32", [4])})
    (port,) = free_ports(1)
    server = cloud_server([], env=serve_env(repo, SAGEMAKER_BIND_TO_PORT=str(port),
                                            SAGEMAKER_TRITON_DEFAULT_MODEL_NAME="other"),
                          program=SERVE)
    server.port(SAGEMAKER_STARTED)
    result = parse_infer_response(post(port, "/invocations",
                                       json=json_request([("INPUT0", "FP32", FP32[0])])))
    assert result.header["model_name"] == "other"
    assert "successfully loaded model 'floats'" not in server.log()


@pytest.mark.parametrize("layout,needle", [
    ("two", "More than 1 model directory"),
    ("flat", "Incorrect directory structure"),
    ("missing", "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME absent does not exist"),
    ("multi", "SAGEMAKER_MULTI_MODEL=true"),
])
def test_serve_refuses_what_tritons_script_refuses(cloud_server, tmp_path, layout, needle):
    models = {"a": single_identity("a", "FP32", [4])}
    if layout == "two":
        models["b"] = single_identity("b", "FP32", [4])
    repo = write_repository(tmp_path / "model", models)
    env = serve_env(repo)
    if layout == "flat":
        (repo / "config.pbtxt").write_text(single_identity("a", "FP32", [4]))
    elif layout == "missing":
        env["SAGEMAKER_TRITON_DEFAULT_MODEL_NAME"] = "absent"
    elif layout == "multi":
        env["SAGEMAKER_MULTI_MODEL"] = "true"
    server = cloud_server([], env=env, program=SERVE)
    assert server.wait_exit() != 0
    assert needle in server.log()
