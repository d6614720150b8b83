"""SageMaker endpoint: GET /ping and POST /invocations on --sagemaker-port, set up
by flags or by the SAGEMAKER_* environment variables, answering as the KServe v2
HTTP port does (JSON, the binary tensor extension, Triton's error statuses), and
Triton's start-up checks (the safe port range, multi-model mode)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cloud_util import (HTTP_STARTED, SAGEMAKER_BINARY, SAGEMAKER_STARTED, free_ports, get,
                        post)
from util import (assert_error, binary_request, json_request, parse_infer_response,
                  single_identity, wait_until, write_repository)

FP32 = np.arange(8, dtype=np.float32).reshape(2, 4) * 1.5
WORDS = np.array([[b"ping", b"pong", b"", b"caf\xc3\xa9"]], dtype=np.object_)


@pytest.fixture
def two_models(tmp_path):
    return write_repository(tmp_path / "repo", {
        "floats": single_identity("floats", "FP32", [4], max_batch_size=4),
        "words": single_identity("words", "BYTES", [4], max_batch_size=4),
    })


@pytest.fixture
def one_model(tmp_path):
    return write_repository(tmp_path / "repo", {
        "floats": single_identity("floats", "FP32", [4], max_batch_size=4)})


def common_args(repo) -> list[str]:
    return [f"--model-repository={repo}", "--http-port=0", "--grpc-port=0", "--metrics-port=0"]


def test_flags_only_model_is_the_default(cloud_server, one_model):
    server = cloud_server([*common_args(one_model), "--allow-sagemaker=true",
                           "--sagemaker-port=0", "--sagemaker-thread-count=2"])
    port, http = server.port(SAGEMAKER_STARTED), server.port(HTTP_STARTED)
    assert get(port, "/ping").status_code == 200
    body = json_request([("INPUT0", "FP32", FP32)])
    via_sagemaker = parse_infer_response(post(port, "/invocations", json=body))
    via_kserve = parse_infer_response(post(http, "/v2/models/floats/infer", json=body))
    assert via_sagemaker.header == via_kserve.header
    np.testing.assert_array_equal(via_sagemaker.tensors["OUTPUT0"], FP32)


def test_env_variables_choose_port_model_and_safe_range(cloud_server, two_models):
    sagemaker, http, grpc, metrics = free_ports(4)
    low, high = min(http, grpc, metrics), max(http, grpc, metrics)
    server = cloud_server(
        [f"--model-repository={two_models}", f"--http-port={http}", f"--grpc-port={grpc}",
         f"--metrics-port={metrics}", "--allow-sagemaker=true"],
        env={"SAGEMAKER_BIND_TO_PORT": str(sagemaker),
             "SAGEMAKER_SAFE_PORT_RANGE": f"{low}-{high}",
             "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME": "words"})
    assert server.port(SAGEMAKER_STARTED) == sagemaker
    assert f"Started Sagemaker HTTPService at 0.0.0.0:{sagemaker}" in server.log()
    body = json_request([("INPUT0", "BYTES", WORDS)])
    result = parse_infer_response(post(sagemaker, "/invocations", json=body))
    assert result.header["model_name"] == "words"
    assert result.tensors["OUTPUT0"].tolist() == WORDS.tolist()


@pytest.mark.parametrize("announce", ["vendor content type", "inference header"])
def test_binary_extension_matches_the_kserve_port(cloud_server, two_models, announce):
    server = cloud_server([*common_args(two_models), "--allow-sagemaker=true",
                           "--sagemaker-port=0"],
                          env={"SAGEMAKER_TRITON_DEFAULT_MODEL_NAME": "floats"})
    port, http = server.port(SAGEMAKER_STARTED), server.port(HTTP_STARTED)
    body, headers = binary_request([("INPUT0", "FP32", FP32)], outputs=["OUTPUT0"])
    json_length = headers["Inference-Header-Content-Length"]
    if announce == "vendor content type":
        headers = {"Content-Type": SAGEMAKER_BINARY + json_length}
    resp = post(port, "/invocations", data=body, headers=headers)
    assert resp.status_code == 200, resp.text
    # Triton's SageMaker Content-Type says the JSON length; so does the KServe header.
    json_size = int(resp.headers["Inference-Header-Content-Length"])
    assert resp.headers["Content-Type"] == f"{SAGEMAKER_BINARY}{json_size}"
    assert "Content-Encoding" not in resp.headers  # Triton's cloud endpoints never compress
    via_sagemaker = parse_infer_response(resp)
    body, headers = binary_request([("INPUT0", "FP32", FP32)], outputs=["OUTPUT0"])
    via_kserve = parse_infer_response(post(http, "/v2/models/floats/infer", data=body,
                                           headers=headers))
    assert via_sagemaker.binary == via_kserve.binary == {"OUTPUT0": True}
    assert via_sagemaker.header == via_kserve.header
    np.testing.assert_array_equal(via_sagemaker.tensors["OUTPUT0"], FP32)


def test_ping_follows_readiness_or_liveness(cloud_server, tmp_path):
    # A model that fails to load past its configuration (its backend is
    # missing) keeps the server not ready until poll mode finds it fixed; a
    # config that does not parse would never count (Triton's strict readiness).
    broken = single_identity("floats", "FP32", [4]).replace('backend: "identity"',
                                                           'backend: "no_such_backend"')
    assert broken != single_identity("floats", "FP32", [4])
    repo = write_repository(tmp_path / "repo", {"floats": broken})
    server = cloud_server([*common_args(repo), "--allow-sagemaker=true", "--sagemaker-port=0",
                           "--model-control-mode=poll", "--repository-poll-secs=1",
                           "--exit-on-error=false"])
    port = server.port(SAGEMAKER_STARTED)
    assert get(port, "/ping").status_code == 400
    assert get(port, "/ping").content == b""
    live = cloud_server([*common_args(repo), "--allow-sagemaker=true", "--sagemaker-port=0",
                         "--exit-on-error=false"],
                        env={"SAGEMAKER_TRITON_PING_MODE": "live"})
    assert get(live.port(SAGEMAKER_STARTED), "/ping").status_code == 200
    (repo / "floats" / "config.pbtxt").write_text(single_identity("floats", "FP32", [4]))
    wait_until(lambda: get(port, "/ping").status_code == 200, timeout=15,
               what="/ping 200 once the model loads")


def test_errors_answer_as_the_kserve_port(cloud_server, two_models):
    server = cloud_server([*common_args(two_models), "--allow-sagemaker=true",
                           "--sagemaker-port=0"],
                          env={"SAGEMAKER_TRITON_DEFAULT_MODEL_NAME": "floats"})
    port, http = server.port(SAGEMAKER_STARTED), server.port(HTTP_STARTED)
    for body in ("{not json", json.dumps({"inputs": [{"name": "NOPE", "datatype": "FP32",
                                                      "shape": [1, 4], "data": [1, 2, 3, 4]}]})):
        ours = post(port, "/invocations", data=body)
        theirs = post(http, "/v2/models/floats/infer", data=body)
        assert_error(ours, 400)
        assert ours.json() == theirs.json()
    assert_error(get(port, "/invocations"), 405)
    assert_error(post(port, "/ping"), 405)
    assert_error(get(port, "/v2/health/ready"), 400, "/v2/health/ready")
    assert_error(get(port, "/models"), 501, "multi-model")
    # A binary body whose declared JSON length is past its end.
    assert_error(post(port, "/invocations", data=b"{}",
                      headers={"Content-Type": SAGEMAKER_BINARY + "99"}), 400, "99")


def test_unknown_default_model_is_404(cloud_server, two_models):
    server = cloud_server([*common_args(two_models), "--allow-sagemaker=true",
                           "--sagemaker-port=0"],
                          env={"SAGEMAKER_TRITON_DEFAULT_MODEL_NAME": "absent"})
    port = server.port(SAGEMAKER_STARTED)
    resp = post(port, "/invocations", json=json_request([("INPUT0", "FP32", FP32)]))
    assert_error(resp, 404, "absent")


def test_several_models_and_no_default_name_them(cloud_server, two_models):
    server = cloud_server([*common_args(two_models), "--allow-sagemaker=true",
                           "--sagemaker-port=0"])
    port = server.port(SAGEMAKER_STARTED)
    assert get(port, "/ping").status_code == 200
    resp = post(port, "/invocations", json=json_request([("INPUT0", "FP32", FP32)]))
    assert_error(resp, 400, "'floats'", "'words'", "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME")


def test_port_outside_the_safe_range_is_refused(cloud_server, one_model):
    server = cloud_server([f"--model-repository={one_model}", "--http-port=8000",
                           "--allow-grpc=false", "--allow-metrics=false",
                           "--allow-sagemaker=true", "--sagemaker-port=0",
                           "--sagemaker-safe-port-range=8080-8090"])
    assert server.wait_exit() != 0
    log = server.log()
    assert "HTTP requests at port 8000" in log
    assert "--sagemaker-safe-port-range allows only [8080, 8090]" in log
    assert "Started" not in log


def test_safe_range_from_env_and_bad_ranges(cloud_server, one_model):
    server = cloud_server([f"--model-repository={one_model}", "--http-port=0",
                           "--allow-grpc=false", "--allow-metrics=false",
                           "--allow-sagemaker=true", "--sagemaker-port=0"],
                          env={"SAGEMAKER_SAFE_PORT_RANGE": "9000-9100"})
    assert server.wait_exit() != 0
    assert "HTTP requests at port 0" in server.log()
    bad = cloud_server([*common_args(one_model), "--allow-sagemaker=true",
                        "--sagemaker-safe-port-range=9100"])
    assert bad.wait_exit() != 0
    assert "--sagemaker-safe-port-range '9100': expected <lo>-<hi>" in bad.log()


def test_same_port_twice_is_refused(cloud_server, one_model):
    (port,) = free_ports(1)
    server = cloud_server([f"--model-repository={one_model}", f"--http-port={port}",
                           "--grpc-port=0", "--metrics-port=0", "--allow-sagemaker=true",
                           f"--sagemaker-port={port}"])
    assert server.wait_exit() != 0
    assert f"HTTP requests and SageMaker requests at the same address and port 0.0.0.0:{port}" \
        in server.log()


def test_multi_model_mode_is_refused(cloud_server, one_model):
    server = cloud_server([*common_args(one_model), "--allow-sagemaker=true",
                           "--sagemaker-port=0"], env={"SAGEMAKER_MULTI_MODEL": "true"})
    assert server.wait_exit() != 0
    assert "SAGEMAKER_MULTI_MODEL=true" in server.log()


def test_not_allowed_by_default(cloud_server, one_model):
    server = cloud_server(common_args(one_model), env={"SAGEMAKER_BIND_TO_PORT": "0"})
    server.port(HTTP_STARTED)
    wait_until(lambda: "Started Metrics Service" in server.log(), what="metrics started")
    assert "Sagemaker" not in server.log()


@pytest.mark.parametrize("variable,value,needle", [
    ("SAGEMAKER_BIND_TO_PORT", "eighty", "SAGEMAKER_BIND_TO_PORT='eighty' is not an integer"),
    ("SAGEMAKER_TRITON_PING_MODE", "sometimes", "'sometimes' (SAGEMAKER_TRITON_PING_MODE)"),
])
def test_unusable_environment_values_are_named(cloud_server, one_model, variable, value,
                                               needle):
    server = cloud_server([*common_args(one_model), "--allow-sagemaker=true"],
                          env={variable: value})
    assert server.wait_exit() != 0
    assert needle in server.log()
