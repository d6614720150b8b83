"""HTTPS on the HTTP port (--http-use-ssl, --http-use-ssl-mutual: beyond Triton),
with throwaway certificates (certs.py). tritonclient.http with its ssl options
(ssl=True, ssl_options, insecure, ssl_context_factory) and requests: a client
trusting the CA is served, inference included; one trusting nothing is refused;
with mutual TLS only clients presenting a certificate the CA signed are served.
A plain-HTTP client gets the connection closed and the server keeps serving; a
client that connects and never handshakes is closed after the handshake
timeout. Bad certificate or key files stop the start, naming the flag and file."""

import socket
import ssl
import subprocess

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from certs import make_test_certs
from util import (REPO_ROOT, REQUEST_TIMEOUT_S, assert_serves_plain_http,
                  backend_directory, inferd_binary, lone_binary, pending_count, single_identity,
                  wait_until, write_repository)

REPO = {"identity_fp32": single_identity("identity_fp32", "FP32", [4])}
DATA = np.array([1, 2, 3, 4], dtype=np.float32)
# The server's handshake timeout is 10 s: a silent client is closed well within this.
SILENT_CLIENT_BOUND_S = 60.0


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_test_certs(tmp_path_factory.mktemp("certs"))


def start_https(inferd, certs, mutual=False, extra=()):
    flags = ["--http-use-ssl-mutual=true", f"--http-root-cert={certs / 'ca.crt'}"] if mutual \
        else ["--http-use-ssl=true"]
    server = inferd(REPO, wait_for="none", extra_args=[
        *flags, f"--http-server-cert={certs / 'server.crt'}",
        f"--http-server-key={certs / 'server.key'}", *extra])
    cert = (str(certs / "client.crt"), str(certs / "client.key")) if mutual else None
    wait_until(lambda: https_get(server, certs, "/v2/health/ready", cert=cert).status_code == 200,
               what="HTTPS ready", ignore=(requests.RequestException,))
    return server


def https_get(server, certs, path, **kwargs):
    kwargs.setdefault("verify", str(certs / "ca.crt"))
    return requests.get(f"https://localhost:{server.port}{path}", timeout=REQUEST_TIMEOUT_S,
                        **kwargs)


@pytest.fixture(scope="module")
def https_server(inferd, certs):
    return start_https(inferd, certs)


@pytest.fixture(scope="module")
def mtls_server(inferd, certs):
    return start_https(inferd, certs, mutual=True)


def client_for(server, host="localhost", **kwargs):
    return httpclient.InferenceServerClient(
        url=f"{host}:{server.port}", ssl=True, connection_timeout=REQUEST_TIMEOUT_S,
        network_timeout=REQUEST_TIMEOUT_S, **kwargs)


def infer(client):
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(DATA)
    output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)
    return client.infer("identity_fp32", [tensor], outputs=[output]).as_numpy("OUTPUT0")


# -- TLS ----------------------------------------------------------------------------------


def test_tritonclient_trusting_the_ca_is_served(https_server, certs):
    client = client_for(https_server, ssl_options={"ca_certs": str(certs / "ca.crt")})
    assert client.is_server_live() and client.is_server_ready()
    assert client.get_model_metadata("identity_fp32")["name"] == "identity_fp32"
    assert infer(client).tolist() == DATA.tolist()
    for _ in range(3):  # keep-alive: the same TLS connection serves on
        assert infer(client).tolist() == DATA.tolist()
    client.close()


def test_tritonclient_with_a_context_factory_and_the_ca(https_server, certs):
    client = client_for(https_server, ssl_context_factory=lambda: ssl.create_default_context(
        cafile=str(certs / "ca.crt")))
    assert client.is_server_live()
    client.close()


def test_tritonclient_insecure_skips_the_checks(https_server):
    client = client_for(https_server, host="127.0.0.1", insecure=True,
                        ssl_options={"cert_reqs": ssl.CERT_NONE})
    assert infer(client).tolist() == DATA.tolist()
    client.close()


def test_a_client_that_does_not_trust_the_ca_is_refused(https_server, certs):
    client = client_for(https_server, ssl_options={"ca_certs": str(certs / "other_ca.crt")})
    with pytest.raises(ssl.SSLError):
        client.is_server_live()
    client.close()
    with pytest.raises(requests.exceptions.SSLError):
        https_get(https_server, certs, "/v2/health/live", verify=True)  # system CAs only


def test_a_plain_http_client_fails_cleanly_and_the_server_serves_on(https_server, certs):
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(f"http://127.0.0.1:{https_server.port}/v2/health/live",
                     timeout=REQUEST_TIMEOUT_S)
    with socket.create_connection(("127.0.0.1", https_server.port),
                                  timeout=REQUEST_TIMEOUT_S) as raw:
        raw.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while chunk := raw.recv(1024):  # until the server closes it
            received += chunk
        assert b"HTTP/1.1" not in received  # no plain-HTTP answer on the HTTPS port
    assert https_get(https_server, certs, "/v2/health/live").status_code == 200


def test_a_client_that_never_handshakes_is_closed_while_others_are_served(https_server, certs):
    with socket.create_connection(("127.0.0.1", https_server.port),
                                  timeout=SILENT_CLIENT_BOUND_S) as silent:
        assert https_get(https_server, certs, "/v2/health/live").status_code == 200
        # The server closes it: recv sees the end of the stream (no timeout error).
        assert silent.recv(1) == b""


def test_the_last_answer_of_a_connection_ends_with_a_tls_close(https_server, certs):
    """HTTP/1.0 (and Connection: close) answers end with the connection: the
    server sends close_notify so the client can tell the end from a cut (Python
    raises SSLEOFError on a TCP close without it)."""
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    context.options &= ~ssl.OP_IGNORE_UNEXPECTED_EOF  # OpenSSL 3: a TCP close is no TLS end
    with socket.create_connection(("127.0.0.1", https_server.port),
                                  timeout=REQUEST_TIMEOUT_S) as raw:
        with context.wrap_socket(raw, server_hostname="localhost",
                                 suppress_ragged_eofs=False) as tls:
            tls.sendall(b"GET /v2/health/live HTTP/1.0\r\n\r\n")
            received = b""
            while chunk := tls.recv(4096):
                received += chunk
    assert received.startswith(b"HTTP/1.0 200"), received


def test_restricted_apis_work_over_https(inferd, certs):
    server = start_https(inferd, certs,
                         extra=["--http-restricted-api=model-repository:admin-key=s3cret"])
    client = client_for(server, ssl_options={"ca_certs": str(certs / "ca.crt")})
    with pytest.raises(InferenceServerException, match="This API is restricted"):
        client.get_model_repository_index()
    assert client.get_model_repository_index(headers={"admin-key": "s3cret"})
    assert infer(client).tolist() == DATA.tolist()
    client.close()


# -- mutual TLS -----------------------------------------------------------------------------


def test_mtls_client_with_the_ca_signed_certificate_is_served(mtls_server, certs):
    client = client_for(mtls_server, ssl_options={
        "ca_certs": str(certs / "ca.crt"), "certfile": str(certs / "client.crt"),
        "keyfile": str(certs / "client.key")})
    assert client.is_server_ready()
    assert infer(client).tolist() == DATA.tolist()
    client.close()


@pytest.mark.parametrize("cert", [None, "stranger"])
def test_mtls_refuses_clients_without_a_ca_signed_certificate(mtls_server, certs, cert):
    kwargs = {} if cert is None else {
        "cert": (str(certs / f"{cert}.crt"), str(certs / f"{cert}.key"))}
    with pytest.raises(requests.exceptions.RequestException):
        https_get(mtls_server, certs, "/v2/health/live", **kwargs)
    # The server serves on.
    assert https_get(mtls_server, certs, "/v2/health/live",
                     cert=(str(certs / "client.crt"), str(certs / "client.key"))
                     ).status_code == 200


# -- start-up errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("args,needles", [
    (["--http-use-ssl=true"], ["--http-server-cert is required with --http-use-ssl"]),
    (["--http-use-ssl=true", "--http-server-cert={certs}/missing.crt",
      "--http-server-key={certs}/server.key"],
     ["--http-server-cert: cannot read", "missing.crt"]),
    (["--http-use-ssl=true", "--http-server-cert={certs}/server.ext",
      "--http-server-key={certs}/server.key"], ["--http-server-cert", "server.ext"]),
    (["--http-use-ssl=true", "--http-server-cert={certs}/server.crt",
      "--http-server-key={certs}/client.key"], ["--http-server-key", "client.key"]),
    (["--http-use-ssl-mutual=true", "--http-server-cert={certs}/server.crt",
      "--http-server-key={certs}/server.key"],
     ["--http-root-cert is required with --http-use-ssl-mutual"]),
])
def test_bad_tls_files_fail_at_start_naming_the_flag_and_file(certs, tmp_path, args, needles):
    (tmp_path / "repo").mkdir()
    result = subprocess.run(
        [str(inferd_binary()), f"--model-repository={tmp_path / 'repo'}", "--http-port=0",
         "--grpc-port=0", "--metrics-port=0", f"--backend-directory={backend_directory()}",
         *[a.format(certs=certs) for a in args]],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    for needle in needles:
        assert needle in result.stdout + result.stderr, result.stdout + result.stderr


def test_binary_without_its_https_module(certs, tmp_path, monkeypatch):
    # HTTPS is a module beside the binary (OpenSSL is linked there only): a
    # lone copy of the binary says what is missing when asked for HTTPS, and
    # serves plain HTTP without it.
    lone = lone_binary(tmp_path)
    repo = write_repository(tmp_path / "repo", REPO)
    result = subprocess.run(
        [str(lone), f"--model-repository={repo}", "--http-port=0", "--allow-grpc=false",
         "--metrics-port=0", f"--backend-directory={backend_directory()}",
         "--http-use-ssl=true", f"--http-server-cert={certs / 'server.crt'}",
         f"--http-server-key={certs / 'server.key'}"],
        capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert "failed to start the HTTP service" in result.stderr, result.stderr
    assert "libinferd_https_frontend.so" in result.stderr, result.stderr
    assert_serves_plain_http(lone, repo, tmp_path / "inferd.log", monkeypatch)


# -- a client hanging up over TLS ---------------------------------------------------------

SLOW_REPO = {"slow": single_identity(
    "slow", "FP32", [4], max_batch_size=1,
    extra='dynamic_batching { }\n'
          'parameters { key: "execute_delay_ms" value { string_value: "3000" } }\n')}
INFER_BODY = b'{"inputs":[{"name":"INPUT0","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}'


def tls_infer_socket(server, certs, version=ssl.TLSVersion.MAXIMUM_SUPPORTED) -> ssl.SSLSocket:
    """A TLS connection that has sent one infer request for `slow`, unanswered yet."""
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    context.maximum_version = version
    sock = context.wrap_socket(socket.create_connection(("localhost", server.port)),
                               server_hostname="localhost")
    sock.sendall(b"POST /v2/models/slow/infer HTTP/1.1\r\nHost: localhost\r\n"
                 b"Content-Type: application/json\r\n"
                 b"Content-Length: " + str(len(INFER_BODY)).encode() + b"\r\n\r\n" + INFER_BODY)
    return sock


def test_a_tls12_client_hanging_up_cancels_its_queued_request(inferd, certs):
    """A TLS 1.2 client's close_notify (sent before its FIN) is seen while its
    request waits behind a busy instance: the request leaves the queue and never
    runs. (TLS 1.3 encrypts the alert: there the request runs, as docs/http.md says.)"""
    server = inferd(SLOW_REPO, wait_for="none", extra_args=[
        "--http-use-ssl=true", f"--http-server-cert={certs / 'server.crt'}",
        f"--http-server-key={certs / 'server.key'}"])
    wait_until(lambda: https_get(server, certs, "/v2/health/ready").status_code == 200,
               what="HTTPS ready", ignore=(requests.RequestException,))
    blocker = tls_infer_socket(server, certs)
    wait_until(lambda: slow_stats(server, certs)["queue"]["count"] == 1,
               what="the blocker executing")
    queued = tls_infer_socket(server, certs, ssl.TLSVersion.TLSv1_2)
    wait_until(lambda: pending_count(server, "slow") == 1, what="the second request queued")
    send_close_notify_and_close(queued)
    wait_until(lambda: pending_count(server, "slow") == 0, what="the hung-up request dropped")
    # Queued after the one that hung up: had that one stayed, it would run first.
    after = tls_infer_socket(server, certs)
    for sock in (blocker, after):
        assert b"200 OK" in sock.recv(4096)
        sock.close()
    assert slow_stats(server, certs)["success"]["count"] == 2  # blocker and after only


def send_close_notify_and_close(sock: ssl.SSLSocket) -> None:
    """What clients that shut TLS down send: close_notify, then FIN (not waiting
    for the server's own close_notify, as a non-blocking unwrap)."""
    sock.setblocking(False)
    try:
        sock.unwrap()
    except (ssl.SSLWantReadError, ssl.SSLError):
        pass  # close_notify is out; the server's reply is not awaited
    sock.close()


def slow_stats(server, certs) -> dict:
    stats = https_get(server, certs, "/v2/models/slow/stats").json()["model_stats"][0]
    return stats["inference_stats"]
