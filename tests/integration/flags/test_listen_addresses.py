"""Which addresses the HTTP, gRPC and metrics services listen on.

By default (Triton's 0.0.0.0) each listens dual-stack: a client reaches it at
127.0.0.1 and at ::1, as one whose /etc/hosts maps `localhost` to ::1 first
(the Debian installer's) does. `::` (bare or in brackets) is the same
wildcard. A specific address listens only there: 127.0.0.1 is not reachable
at ::1. tritonclient drives HTTP and gRPC at both addresses; the metrics port
is read with a plain GET.
"""

from __future__ import annotations

import socket

import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import REQUEST_TIMEOUT_S, single_identity, wait_until

MODELS = {"m": single_identity("m", "INT32", [1])}


def ipv6_loopback_works() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


# A host without IPv6 cannot tell dual-stack from IPv4 alone; every CI box
# and Debian install has ::1, so this is a fact of the host, not a skip of ours.
pytestmark = pytest.mark.skipif(not ipv6_loopback_works(), reason="the host has no IPv6 loopback")


def http_ready(host: str, port: int) -> bool:
    client = httpclient.InferenceServerClient(f"{host}:{port}", network_timeout=REQUEST_TIMEOUT_S)
    try:
        return client.is_server_ready() and client.is_model_ready("m")
    finally:
        client.close()


def grpc_ready(host: str, port: int) -> bool:
    client = grpcclient.InferenceServerClient(f"{host}:{port}")
    try:
        return client.is_server_ready() and client.is_model_ready("m")
    finally:
        client.close()


def metrics_answer(host: str, port: int) -> bool:
    resp = requests.get(f"http://{host}:{port}/metrics", timeout=REQUEST_TIMEOUT_S)
    return resp.status_code == 200 and "nv_inference_count" in resp.text


def refused(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(REQUEST_TIMEOUT_S)
        return sock.connect_ex((host.strip("[]"), port)) != 0


@pytest.mark.parametrize("flags", [[], ["--http-address=::", "--grpc-address=::",
                                        "--metrics-address=[::]"]],
                         ids=["default", "ipv6-wildcard"])
def test_every_service_answers_on_ipv4_and_ipv6_loopback(inferd, flags):
    server = inferd(MODELS, extra_args=flags)
    for host in ("127.0.0.1", "[::1]"):
        assert http_ready(host, server.port), host
        assert grpc_ready(host, server.grpc_port), host
        assert metrics_answer(host, server.metrics_port), host


def test_a_specific_address_listens_only_there(inferd):
    server = inferd(MODELS, extra_args=["--http-address=127.0.0.1", "--grpc-address=127.0.0.1",
                                        "--metrics-address=127.0.0.1"])
    for port in (server.port, server.grpc_port, server.metrics_port):
        assert refused("[::1]", port), port
    assert http_ready("127.0.0.1", server.port)
    assert grpc_ready("127.0.0.1", server.grpc_port)
    assert metrics_answer("127.0.0.1", server.metrics_port)


def test_an_ipv6_loopback_address_serves_ipv6_only(inferd):
    # The fixture's own readiness wait uses 127.0.0.1: wait here on ::1.
    server = inferd(MODELS, extra_args=["--http-address=::1", "--grpc-address=[::1]",
                                        "--metrics-address=::1"], wait_for="none")
    wait_until(lambda: server.port is not None and http_ready("[::1]", server.port),
               what="the server ready at [::1]", ignore=(Exception,))
    assert grpc_ready("[::1]", server.grpc_port)
    assert metrics_answer("[::1]", server.metrics_port)
    assert refused("127.0.0.1", server.port)
