"""The gRPC frontend's flags and its part in start-up and shutdown.

--allow-grpc=false serves no gRPC; --grpc-address binds where asked and the log
says so; every --grpc-infer-response-compression-level serves responses
tritonclient decodes, and an unknown level is refused at start; the keepalive
flags are accepted; a port already in use fails the start with exit code 1. On
SIGTERM an in-flight gRPC request is still answered, and an open idle stream
does not stop the server from exiting 0.
"""

import socket
import subprocess

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from util import REPO_ROOT, InferdServer, assert_serves_plain_http, backend_directory, \
    executions_started, inferd_binary, lone_binary, single_identity, wait_until, write_repository

REPO = {
    "identity_fp32": single_identity("identity_fp32", "FP32", [4]),
    "slow": single_identity("slow", "FP32", [4], extra="""
parameters { key: "execute_delay_ms" value: { string_value: "1000" } }
"""),
}
DATA = np.array([1.5, -2.0, 0.25, 8.0], dtype=np.float32)


def infer(client, model="identity_fp32"):
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    return client.infer(model, [inp]).as_numpy("OUTPUT0")


def test_allow_grpc_false_serves_no_grpc(inferd):
    server = inferd(REPO, extra_args=["--allow-grpc=false"])
    assert server.grpc_port is None
    assert "GRPCInferenceService" not in server.log()
    assert server.get("/v2/health/live").status_code == 200


def test_grpc_address_is_bound_and_logged(inferd):
    server = inferd(REPO, extra_args=["--grpc-address=127.0.0.1"])
    assert f"Started GRPCInferenceService at 127.0.0.1:{server.grpc_port}" in server.log()
    assert np.array_equal(infer(server.grpc_client()), DATA)


@pytest.mark.parametrize("level", ["none", "low", "medium", "high"])
def test_every_response_compression_level_serves(inferd, level):
    server = inferd(REPO, extra_args=[f"--grpc-infer-response-compression-level={level}"])
    assert np.array_equal(infer(server.grpc_client()), DATA)


def test_keepalive_flags_are_accepted(inferd):
    server = inferd(REPO, extra_args=[
        "--grpc-keepalive-time=10000", "--grpc-keepalive-timeout=5000",
        "--grpc-keepalive-permit-without-calls=true", "--grpc-http2-max-pings-without-data=0",
        "--grpc-http2-min-recv-ping-interval-without-data=5000",
        "--grpc-http2-max-ping-strikes=0"])
    client = server.grpc_client(keepalive_options=grpcclient.KeepAliveOptions(
        keepalive_time_ms=10000, keepalive_timeout_ms=5000, keepalive_permit_without_calls=True,
        http2_max_pings_without_data=0))
    assert np.array_equal(infer(client), DATA)


def run_to_exit(tmp_path, *args):
    repo = write_repository(tmp_path / "repo", REPO)
    return subprocess.run(
        [str(inferd_binary()), f"--model-repository={repo}", "--http-port=0", "--metrics-port=0",
         f"--backend-directory={backend_directory()}", *args],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)


def test_unknown_compression_level_is_refused(tmp_path):
    result = run_to_exit(tmp_path, "--grpc-port=0",
                         "--grpc-infer-response-compression-level=extreme")
    assert result.returncode != 0
    assert "--grpc-infer-response-compression-level" in result.stdout + result.stderr


def test_port_in_use_fails_the_start(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_to_exit(tmp_path, "--grpc-address=127.0.0.1", f"--grpc-port={port}")
    assert result.returncode == 1
    assert "failed to start the gRPC service" in result.stdout + result.stderr


def test_binary_without_its_grpc_module(tmp_path, monkeypatch):
    # gRPC is a module beside the binary: a lone copy of the binary says what
    # is missing when asked to serve gRPC, and runs without it when not.
    lone = lone_binary(tmp_path)
    repo = write_repository(tmp_path / "repo", REPO)
    args = [str(lone), f"--model-repository={repo}", "--http-port=0", "--metrics-port=0",
            f"--backend-directory={backend_directory()}"]
    result = subprocess.run([*args, "--grpc-port=0"], capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert "libinferd_grpc_frontend.so" in result.stderr
    assert_serves_plain_http(lone, repo, tmp_path / "inferd.log", monkeypatch)


def test_sigterm_answers_the_request_in_flight_and_exits_0(tmp_path):
    server = InferdServer([write_repository(tmp_path / "repo", REPO)], tmp_path / "inferd.log")
    try:
        client = server.grpc_client()
        inp = grpcclient.InferInput("INPUT0", [4], "FP32")
        inp.set_data_from_numpy(DATA)
        results = []
        client.async_infer("slow", [inp], callback=lambda result, error: results.append(
            (result, error)))
        # An idle stream stays open across the shutdown: one answered request
        # shows it is open, and nothing else is sent on it.
        streamed = []
        stream_client = server.grpc_client()
        stream_client.start_stream(callback=lambda result, error: streamed.append(error))
        stream_client.async_stream_infer("identity_fp32", [inp])
        wait_until(lambda: streamed, what="the stream's first response")
        assert streamed == [None], streamed
        wait_until(lambda: executions_started(server, "slow") == 1, what="'slow' executing")
        assert not results, "premise: the request is still executing when SIGTERM is sent"
    finally:
        assert server.stop() == 0
    wait_until(lambda: results, timeout=5, what="the in-flight response at the client's callback")
    assert len(results) == 1
    result, error = results[0]
    assert error is None, error
    assert np.array_equal(result.as_numpy("OUTPUT0"), DATA)
    stream_client.stop_stream(cancel_requests=True)
