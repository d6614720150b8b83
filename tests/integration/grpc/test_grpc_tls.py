"""gRPC over TLS and mutual TLS, with throwaway certificates made by openssl at
test time: a CA, a server certificate for localhost and 127.0.0.1 (subject
alternative names), a client certificate, and a second, unrelated CA with its
own client certificate.

With --grpc-use-ssl a client that trusts the CA succeeds while a plain-text
client and one trusting another CA are refused. With --grpc-use-ssl-mutual a
client presenting the CA-signed certificate succeeds, while one presenting no
certificate or one signed by the other CA is refused. Both through raw stubs and
tritonclient.grpc. TLS without a certificate fails at start, naming the flag.
"""

import subprocess

import grpc
import pytest

from certs import make_test_certs
from util import REPO_ROOT, backend_directory, inferd_binary, single_identity

REPO = {"identity_fp32": single_identity("identity_fp32", "FP32", [4])}
REFUSED_TIMEOUT_S = 5.0


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_test_certs(tmp_path_factory.mktemp("certs"))


def read(folder, name):
    return (folder / name).read_bytes()


def credentials(certs, root="ca.crt", client=None):
    kwargs = {"root_certificates": read(certs, root)}
    if client:
        kwargs["private_key"] = read(certs, f"{client}.key")
        kwargs["certificate_chain"] = read(certs, f"{client}.crt")
    return grpc.ssl_channel_credentials(**kwargs)


def is_live(stubs, address, creds=None):
    stub = stubs.stub(address, creds)
    return stub.ServerLive(stubs.pb.ServerLiveRequest(), timeout=REFUSED_TIMEOUT_S).live


def assert_refused(stubs, address, creds=None):
    with pytest.raises(grpc.RpcError) as error:
        is_live(stubs, address, creds)
    assert error.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


@pytest.fixture(scope="module")
def tls_server(inferd, certs):
    return inferd(REPO, extra_args=["--grpc-use-ssl=true",
                                    f"--grpc-server-cert={certs / 'server.crt'}",
                                    f"--grpc-server-key={certs / 'server.key'}"])


@pytest.fixture(scope="module")
def mtls_server(inferd, certs):
    return inferd(REPO, extra_args=["--grpc-use-ssl-mutual=true",
                                    f"--grpc-server-cert={certs / 'server.crt'}",
                                    f"--grpc-server-key={certs / 'server.key'}",
                                    f"--grpc-root-cert={certs / 'ca.crt'}"])


# -- TLS ----------------------------------------------------------------------------------


def test_tls_client_trusting_the_ca_succeeds(tls_server, stubs, certs):
    assert is_live(stubs, tls_server.grpc_address, credentials(certs)) is True
    assert is_live(stubs, f"localhost:{tls_server.grpc_port}", credentials(certs)) is True


def test_tls_refuses_a_plain_text_client(tls_server, stubs):
    assert_refused(stubs, tls_server.grpc_address)


def test_tls_refuses_a_client_trusting_another_ca(tls_server, stubs, certs):
    assert_refused(stubs, tls_server.grpc_address, credentials(certs, root="other_ca.crt"))


def test_tritonclient_over_tls(tls_server, certs):
    client = tls_server.grpc_client(ssl=True, root_certificates=str(certs / "ca.crt"))
    assert client.is_server_live() is True
    assert client.get_model_metadata("identity_fp32", as_json=True)["name"] == "identity_fp32"


# -- mutual TLS ------------------------------------------------------------------------------


def test_mtls_client_with_the_ca_signed_certificate_succeeds(mtls_server, stubs, certs):
    assert is_live(stubs, mtls_server.grpc_address, credentials(certs, client="client")) is True


def test_mtls_refuses_a_client_without_a_certificate(mtls_server, stubs, certs):
    assert_refused(stubs, mtls_server.grpc_address, credentials(certs))


def test_mtls_refuses_a_certificate_signed_by_another_ca(mtls_server, stubs, certs):
    assert_refused(stubs, mtls_server.grpc_address, credentials(certs, client="stranger"))


def test_mtls_refuses_a_plain_text_client(mtls_server, stubs):
    assert_refused(stubs, mtls_server.grpc_address)


def test_tritonclient_over_mutual_tls(mtls_server, certs):
    client = mtls_server.grpc_client(
        ssl=True, root_certificates=str(certs / "ca.crt"),
        private_key=str(certs / "client.key"), certificate_chain=str(certs / "client.crt"))
    assert client.is_server_live() is True
    assert client.is_model_ready("identity_fp32") is True


# -- start-up errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("args,needle", [
    (["--grpc-use-ssl=true"], "--grpc-server-cert"),
    (["--grpc-use-ssl-mutual=true", "--grpc-server-cert={certs}/server.crt",
      "--grpc-server-key={certs}/server.key"], "--grpc-root-cert"),
    (["--grpc-use-ssl=true", "--grpc-server-cert={certs}/missing.crt",
      "--grpc-server-key={certs}/server.key"], "missing.crt"),
])
def test_tls_without_its_files_fails_at_start_naming_the_flag(certs, tmp_path, args, needle):
    (tmp_path / "repo").mkdir()
    result = subprocess.run(
        [str(inferd_binary()), f"--model-repository={tmp_path / 'repo'}", "--http-port=0",
         "--grpc-port=0", "--metrics-port=0", f"--backend-directory={backend_directory()}",
         *[a.format(certs=certs) for a in args]],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert needle in result.stdout + result.stderr
