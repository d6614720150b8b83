"""--reuse-http-port and --reuse-grpc-port, as Triton's (default false): with the
flag on every server, several inferd processes listen on one port and the
kernel spreads the connections among them; without it the second server to
bind the port fails to start, naming the port. gRPC allows port reuse by
default on Linux: inferd turns it off unless the flag asks for it.

Two servers with different repositories ("a" on one, "b" on the other) tell
which one answered: new connections to the shared port are polled until each
server has answered at least once."""

from __future__ import annotations

import subprocess

import pytest
import requests
import tritonclient.grpc as grpcclient

from util import (START_TIMEOUT_S, backend_directory, inferd_binary, single_identity,
                  wait_until, write_repository)

A = {"a": single_identity("a", "FP32", [1])}
B = {"b": single_identity("b", "FP32", [1])}


def http_answerer(port: int) -> str:
    """Which server answers a new connection to `port`: "a" or "b"."""
    with requests.Session() as session:  # a fresh connection each time
        ready = session.get(f"http://127.0.0.1:{port}/v2/models/a/ready", timeout=5)
    return "a" if ready.status_code == 200 else "b"


def grpc_answerer(port: int) -> str:
    client = grpcclient.InferenceServerClient(url=f"127.0.0.1:{port}")
    try:
        return "a" if client.is_model_ready("a") else "b"
    finally:
        client.close()


def both_answer(answerer, port: int) -> None:
    seen: set[str] = set()

    def both() -> bool:
        seen.add(answerer(port))
        return seen == {"a", "b"}

    wait_until(both, what=lambda: f"answers from both servers on port {port} (seen {seen})")


def failed_start(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """A server on repository B that is expected to fail to start."""
    repo = write_repository(tmp_path / "repo_b", B)
    return subprocess.run(
        [str(inferd_binary()), f"--model-repository={repo}",
         f"--backend-directory={backend_directory()}", *args],
        capture_output=True, text=True, timeout=START_TIMEOUT_S)


def test_two_servers_share_the_http_port_with_the_flag(inferd):
    first = inferd(A, extra_args=["--reuse-http-port=true"])
    second = inferd(B, extra_args=["--reuse-http-port=true", f"--http-port={first.port}"])
    assert second.port == first.port
    both_answer(http_answerer, first.port)


def test_two_servers_share_the_grpc_port_with_the_flag(inferd):
    first = inferd(A, extra_args=["--reuse-grpc-port=true"])
    second = inferd(B, extra_args=["--reuse-grpc-port=true", f"--grpc-port={first.grpc_port}"])
    assert second.grpc_port == first.grpc_port
    both_answer(grpc_answerer, first.grpc_port)


@pytest.mark.parametrize("first_args, second_args", [
    ([], []),                                   # the default: no reuse
    (["--reuse-http-port=false"], ["--reuse-http-port=true"]),  # every server must ask
])
def test_without_the_flag_the_second_http_server_fails_naming_the_port(
        inferd, tmp_path, first_args, second_args):
    first = inferd(A, extra_args=first_args)
    done = failed_start(tmp_path, f"--http-port={first.port}", "--grpc-port=0",
                        "--metrics-port=0", *second_args)
    assert done.returncode != 0
    assert f"failed to start the HTTP service on 0.0.0.0:{first.port}" in done.stderr + \
        done.stdout, done.stderr
    assert http_answerer(first.port) == "a"  # the first one still serves


@pytest.mark.parametrize("first_args, second_args", [
    ([], []),
    (["--reuse-grpc-port=false"], ["--reuse-grpc-port=true"]),
])
def test_without_the_flag_the_second_grpc_server_fails_naming_the_port(
        inferd, tmp_path, first_args, second_args):
    first = inferd(A, extra_args=first_args)
    done = failed_start(tmp_path, f"--grpc-port={first.grpc_port}", "--http-port=0",
                        "--metrics-port=0", *second_args)
    assert done.returncode != 0
    assert f"failed to start the gRPC service on 0.0.0.0:{first.grpc_port}" in done.stderr + \
        done.stdout, done.stderr
    assert grpc_answerer(first.grpc_port) == "a"
