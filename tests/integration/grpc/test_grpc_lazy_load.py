"""The gRPC frontend loads on the first gRPC connection (issue 26, idle memory).

inferd listens on the gRPC port from the start but maps gRPC's libraries
(libgrpc, libgrpc++) only when the first client connects; that client's first
call just works. TLS, and --grpc-load-on-first-connection=false, load them at
start. A module that cannot be loaded then fails only gRPC: its connections
are closed, HTTP serves on, and the server exits cleanly.
"""

import re
import shutil
import socket

import grpc
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from certs import make_test_certs
from util import InferdServer, inferd_binary, single_identity, wait_until, write_repository

REPO = {"identity_fp32": single_identity("identity_fp32", "FP32", [4])}
LOADED_LINE = "loaded the gRPC frontend on the first connection"
GRPC_LIBRARY = re.compile(r"/libgrpc(\+\+)?\.so")


def grpc_mapped(server) -> bool:
    maps = open(f"/proc/{server.process.pid}/maps").read()
    return GRPC_LIBRARY.search(maps) is not None


def test_grpc_libraries_load_on_the_first_connection(inferd):
    server = inferd(REPO)
    assert re.search(r"Started GRPCInferenceService at 0\.0\.0\.0:\d+", server.log())
    assert server.get("/v2/health/ready").status_code == 200
    assert not grpc_mapped(server)
    assert LOADED_LINE not in server.log()
    # The first call of the first client is answered, not refused.
    assert server.grpc_client().is_server_live()
    assert grpc_mapped(server)
    assert server.log().count(LOADED_LINE) == 1
    # Later connections go to the same frontend, loaded once.
    assert server.grpc_client().is_model_ready("identity_fp32")
    assert server.log().count(LOADED_LINE) == 1


def test_raw_channel_first_call_is_answered(inferd, stubs):
    # A bare grpc channel with no retry or wait_for_ready: the load happens
    # while the connection is already accepted, so the call is not refused.
    server = inferd(REPO)
    stub = stubs.stub(server.grpc_address)
    assert stub.ServerLive(stubs.pb.ServerLiveRequest(), timeout=20).live


def test_loading_at_start_when_asked(inferd):
    server = inferd(REPO, extra_args=["--grpc-load-on-first-connection=false"])
    assert grpc_mapped(server)
    assert server.grpc_client().is_server_live()
    assert LOADED_LINE not in server.log()


def test_tls_loads_at_start_and_serves(inferd, tmp_path):
    certs = make_test_certs(tmp_path, strangers=False)
    server = inferd(REPO, extra_args=["--grpc-use-ssl=true",
                                      f"--grpc-server-cert={certs / 'server.crt'}",
                                      f"--grpc-server-key={certs / 'server.key'}"])
    assert grpc_mapped(server)
    client = grpcclient.InferenceServerClient(
        url=f"localhost:{server.grpc_port}", ssl=True, root_certificates=str(certs / "ca.crt"))
    assert client.is_server_live()
    assert LOADED_LINE not in server.log()


def connection_refused(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_module_that_fails_to_load_fails_only_grpc(tmp_path, monkeypatch):
    # The binary beside a module file that is no shared object: the start
    # passes (the file is there), the first gRPC connection fails to load it.
    lone = tmp_path / "bin" / "inferd"
    lone.parent.mkdir()
    shutil.copy(inferd_binary(), lone)
    (lone.parent / "libinferd_grpc_frontend.so").write_text("not a shared object\n")
    monkeypatch.setenv("INFERD_BACKEND_DIRECTORY", str(inferd_binary().parent / "backends"))
    monkeypatch.setenv("INFERD_BINARY", str(lone))
    repo = write_repository(tmp_path / "repo", REPO)
    server = InferdServer([repo], tmp_path / "inferd.log")
    try:
        client = grpcclient.InferenceServerClient(url=server.grpc_address)
        with pytest.raises(InferenceServerException):
            client.is_server_live(client_timeout=10)
        wait_until(lambda: "loading the gRPC frontend on the first connection failed"
                   in server.log())
        assert not grpc_mapped(server)
        assert server.get("/v2/health/ready").status_code == 200
        # The listener closes: later connections are refused at once, without
        # another attempt to load.
        wait_until(lambda: connection_refused(server.grpc_address))
        stub = grpc.insecure_channel(server.grpc_address)
        with pytest.raises(grpc.FutureTimeoutError):
            grpc.channel_ready_future(stub).result(timeout=2)
        stub.close()
        assert server.log().count("loading the gRPC frontend on the first connection failed") == 1
    finally:
        assert server.stop() == 0
