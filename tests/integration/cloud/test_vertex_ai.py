"""Vertex AI endpoint: the AIP_HEALTH_ROUTE and AIP_PREDICT_ROUTE routes on
--vertex-ai-port (AIP_HTTP_PORT), set up by flags or by the AIP_* environment
alone (AIP_MODE=PREDICTION, AIP_STORAGE_URI as the repository), the default
model rule, the X-Vertex-Ai-Triton-Redirect header, and the start-up errors."""

from __future__ import annotations

import numpy as np
import pytest

from cloud_util import HTTP_STARTED, VERTEX_BINARY, VERTEX_STARTED, free_ports, get, post
from util import (assert_error, binary_request, json_request, parse_infer_response,
                  single_identity, write_repository)

PREDICT = "/v1/endpoints/123/deployedModels/456:predict"
HEALTH = "/v1/endpoints/123/deployedModels/456"
ROUTES = {"AIP_PREDICT_ROUTE": PREDICT, "AIP_HEALTH_ROUTE": HEALTH}
REDIRECT = "X-Vertex-Ai-Triton-Redirect"
FP32 = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
INT32 = np.array([[7, -7, 0, 2**31 - 1]], dtype=np.int32)


@pytest.fixture
def two_models(tmp_path):
    return write_repository(tmp_path / "repo", {
        "floats": single_identity("floats", "FP32", [4], max_batch_size=4),
        "ints": single_identity("ints", "INT32", [4], max_batch_size=4),
    })


@pytest.fixture
def one_model(tmp_path):
    return write_repository(tmp_path / "repo", {
        "floats": single_identity("floats", "FP32", [4], max_batch_size=4)})


def test_environment_alone_starts_vertex_ai(cloud_server, one_model):
    (port,) = free_ports(1)
    # AIP_MODE=PREDICTION turns Vertex AI on and HTTP and gRPC off; only the
    # metrics port is moved off its default, which other servers may hold.
    server = cloud_server(["--metrics-port=0"], env={
        "AIP_MODE": "PREDICTION", "AIP_HTTP_PORT": str(port), "AIP_STORAGE_URI": str(one_model),
        **ROUTES})
    assert server.port(VERTEX_STARTED) == port
    log = server.log()
    assert "Started HTTPService" not in log and "Started GRPCInferenceService" not in log
    assert get(port, HEALTH).status_code == 200
    result = parse_infer_response(post(port, PREDICT,
                                       json=json_request([("INPUT0", "FP32", FP32)])))
    assert result.header["model_name"] == "floats"
    np.testing.assert_array_equal(result.tensors["OUTPUT0"], FP32)


def test_flags_default_model_and_binary_body(cloud_server, two_models):
    server = cloud_server(
        [f"--model-repository={two_models}", "--http-port=0", "--grpc-port=0",
         "--metrics-port=0", "--allow-vertex-ai=true", "--vertex-ai-port=0",
         "--vertex-ai-thread-count=2", "--vertex-ai-default-model=ints"], env=ROUTES)
    port, http = server.port(VERTEX_STARTED), server.port(HTTP_STARTED)
    body, headers = binary_request([("INPUT0", "INT32", INT32)], outputs=["OUTPUT0"])
    vendor = {"Content-Type": VERTEX_BINARY + headers["Inference-Header-Content-Length"]}
    resp = post(port, PREDICT, data=body, headers=vendor)
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == \
        VERTEX_BINARY + resp.headers["Inference-Header-Content-Length"]
    ours = parse_infer_response(resp)
    theirs = parse_infer_response(post(http, "/v2/models/ints/infer", data=body,
                                       headers=headers))
    assert ours.header == theirs.header and ours.binary == theirs.binary
    np.testing.assert_array_equal(ours.tensors["OUTPUT0"], INT32)


def test_redirect_header_reaches_other_endpoints(cloud_server, two_models):
    server = cloud_server(
        [f"--model-repository={two_models}", "--http-port=0", "--grpc-port=0",
         "--metrics-port=0", "--allow-vertex-ai=true", "--vertex-ai-port=0",
         "--vertex-ai-default-model=ints"], env=ROUTES)
    port, http = server.port(VERTEX_STARTED), server.port(HTTP_STARTED)
    body = json_request([("INPUT0", "FP32", FP32)])
    redirected = post(port, PREDICT, json=body, headers={REDIRECT: "v2/models/floats/infer"})
    direct = post(http, "/v2/models/floats/infer", json=body)
    assert parse_infer_response(redirected).header == parse_infer_response(direct).header
    for target, path in [("v2/models/floats/config", "/v2/models/floats/config"),
                         ("v2/models/floats", "/v2/models/floats"), ("v2", "/v2")]:
        resp = post(port, PREDICT, headers={REDIRECT: target})
        assert resp.status_code == 200, resp.text
        assert resp.json() == get(http, path).json()
    assert post(port, PREDICT, headers={REDIRECT: "v2/health/ready"}).status_code == 200
    index = post(port, PREDICT, headers={REDIRECT: "v2/repository/index"})
    assert sorted(entry["name"] for entry in index.json()) == ["floats", "ints"]
    assert "nv_inference_request_success" in post(port, PREDICT,
                                                 headers={REDIRECT: "metrics"}).text
    assert_error(post(port, PREDICT, headers={REDIRECT: "v2/models/nope/config"}), 404, "nope")
    assert_error(post(port, PREDICT, headers={REDIRECT: "v2/logging"}), 400, REDIRECT)
    assert_error(get(port, PREDICT, headers={REDIRECT: "v2"}), 405)
    assert_error(get(port, "/v2/health/ready"), 400, "/v2/health/ready")
    assert_error(post(port, HEALTH), 405)


def test_several_models_need_a_default(cloud_server, two_models):
    server = cloud_server([f"--model-repository={two_models}", "--http-port=0",
                           "--grpc-port=0", "--metrics-port=0", "--allow-vertex-ai=true",
                           "--vertex-ai-port=0"], env=ROUTES)
    assert server.wait_exit() != 0
    log = server.log()
    assert "failed to start the Vertex AI service" in log
    assert "'floats', 'ints'" in log and "--vertex-ai-default-model" in log


def test_default_model_must_be_ready(cloud_server, one_model):
    server = cloud_server([f"--model-repository={one_model}", "--http-port=0",
                           "--grpc-port=0", "--metrics-port=0", "--allow-vertex-ai=true",
                           "--vertex-ai-port=0", "--vertex-ai-default-model=absent"], env=ROUTES)
    assert server.wait_exit() != 0
    assert "the default model 'absent' (--vertex-ai-default-model) is not among the ready " \
        "models: 'floats'" in server.log()


@pytest.mark.parametrize("missing", ["AIP_PREDICT_ROUTE", "AIP_HEALTH_ROUTE"])
def test_routes_are_required(cloud_server, one_model, missing):
    env = {k: v for k, v in ROUTES.items() if k != missing}
    server = cloud_server([f"--model-repository={one_model}", "--http-port=0", "--grpc-port=0",
                           "--metrics-port=0", "--allow-vertex-ai=true", "--vertex-ai-port=0"],
                          env=env)
    assert server.wait_exit() != 0
    assert f"{missing} is not defined for the Vertex AI endpoint" in server.log()


def test_a_storage_uri_of_another_scheme_is_a_clear_error(cloud_server):
    # gs:// (and s3://, as://) are read as cloud repositories (tests/integration/cloud_repository).
    server = cloud_server(["--metrics-port=0"], env={
        "AIP_MODE": "PREDICTION", "AIP_HTTP_PORT": "0",
        "AIP_STORAGE_URI": "hdfs://namenode/models", **ROUTES})
    assert server.wait_exit() != 0
    log = server.log()
    assert "AIP_STORAGE_URI 'hdfs://namenode/models'" in log and "hdfs:// repositories" in log


def test_prediction_mode_flags_still_win(cloud_server, one_model):
    server = cloud_server([f"--model-repository={one_model}", "--allow-http=true",
                           "--http-port=0", "--allow-vertex-ai=false", "--metrics-port=0"],
                          env={"AIP_MODE": "PREDICTION", **ROUTES})
    http = server.port(HTTP_STARTED)
    assert get(http, "/v2/health/ready").status_code == 200
    assert "Vertex AI HTTPService" not in server.log()


def test_unusable_port_variable_is_named(cloud_server, one_model):
    server = cloud_server([f"--model-repository={one_model}", "--allow-vertex-ai=true"],
                          env={"AIP_HTTP_PORT": "http", **ROUTES})
    assert server.wait_exit() != 0
    assert "AIP_HTTP_PORT='http' is not an integer" in server.log()
