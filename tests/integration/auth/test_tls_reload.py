"""TLS certificates rotated under load, as Kubernetes rotates a secret: the
files are symlinks into a `..data` folder link that is swapped at once. New
handshakes on the HTTPS and gRPC ports then get the new certificate, while
clients keep requesting throughout, over new connections and over ones
opened before the swap: not one request fails."""

import os
import shutil
import socket
import ssl
import threading

import numpy as np
import requests
import tritonclient.grpc as grpcclient

from certs import make_cert, make_test_certs
from auth_keys import REPO
from util import wait_until

BODY = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]}]}


def publish(secret: "os.PathLike", certs, name: str) -> None:
    """Points secret/..data at a folder holding `name`'s certificate and key, in
    one rename (the way the kubelet updates a mounted secret)."""
    generation = secret / f"..{name}"
    generation.mkdir()
    shutil.copy(certs / f"{name}.crt", generation / "tls.crt")
    shutil.copy(certs / f"{name}.key", generation / "tls.key")
    staged = secret / "..data_tmp"
    staged.symlink_to(generation.name)
    staged.replace(secret / "..data")
    for file in ("tls.crt", "tls.key"):
        if not (secret / file).is_symlink():
            (secret / file).symlink_to(f"..data/{file}")


def served_common_name(port: int, ca, alpn=None) -> str:
    """The CN of the certificate a new handshake on `port` gets."""
    context = ssl.create_default_context(cafile=str(ca))
    if alpn:
        context.set_alpn_protocols(alpn)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            subject = dict(item[0] for item in tls.getpeercert()["subject"])
            return subject["commonName"]


class Load:
    """Threads requesting until stopped, counting successes and failures."""

    def __init__(self, server, ca):
        self.server, self.ca = server, str(ca)
        self.ok, self.failures, self.stop = 0, [], threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=target) for target in
                        (self.https_new_connections, self.https_new_connections,
                         self.https_keep_alive, self.grpc_new_channels, self.grpc_kept_channel)]

    def record(self, call):
        try:
            call()
            with self.lock:
                self.ok += 1
        except Exception as exc:  # noqa: BLE001 - every failure counts
            with self.lock:
                self.failures.append(repr(exc))

    def https_post(self, session=None):
        resp = (session or requests).post(
            f"https://localhost:{self.server.port}/v2/models/identity/infer", json=BODY,
            verify=self.ca, timeout=10)
        assert resp.status_code == 200, resp.text

    def https_new_connections(self):
        while not self.stop.is_set():
            self.record(self.https_post)

    def https_keep_alive(self):
        with requests.Session() as session:
            while not self.stop.is_set():
                self.record(lambda: self.https_post(session))

    def grpc_infer(self, client):
        tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
        tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
        assert client.infer("identity", [tensor]).as_numpy("OUTPUT0").tolist() == [1, 2, 3, 4]

    def grpc_client(self):
        return grpcclient.InferenceServerClient(f"localhost:{self.server.grpc_port}", ssl=True,
                                                root_certificates=self.ca)

    def grpc_new_channels(self):
        while not self.stop.is_set():
            client = self.grpc_client()
            self.record(lambda: self.grpc_infer(client))
            client.close()

    def grpc_kept_channel(self):
        client = self.grpc_client()
        while not self.stop.is_set():
            self.record(lambda: self.grpc_infer(client))
        client.close()

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)


def test_certificate_rotation_under_load_fails_no_request(inferd, tmp_path):
    (tmp_path / "certs").mkdir()
    certs = make_test_certs(tmp_path / "certs", strangers=False)
    make_cert(certs, "server_b", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                       "extendedKeyUsage=serverAuth\n")
    secret = tmp_path / "secret"
    secret.mkdir()
    publish(secret, certs, "server")
    crt, key = secret / "tls.crt", secret / "tls.key"
    server = inferd({"identity": REPO["identity"]}, wait_for="none", extra_args=[
        "--http-use-ssl=true", f"--http-server-cert={crt}", f"--http-server-key={key}",
        "--grpc-use-ssl=true", f"--grpc-server-cert={crt}", f"--grpc-server-key={key}"])
    ca = certs / "ca.crt"
    wait_until(lambda: requests.get(f"https://localhost:{server.port}/v2/health/ready",
                                    verify=str(ca), timeout=5).status_code == 200,
               what="HTTPS ready", ignore=(requests.RequestException,))
    assert served_common_name(server.port, ca) == "server"
    with Load(server, ca) as load:
        wait_until(lambda: load.ok >= 50)
        publish(secret, certs, "server_b")
        wait_until(lambda: served_common_name(server.port, ca) == "server_b")
        wait_until(lambda: served_common_name(server.grpc_port, ca, ["h2"]) == "server_b")
        served = load.ok
        wait_until(lambda: load.ok >= served + 50)
    assert load.failures == []
    assert load.ok > 100
    assert "certificate re-read" in server.log()
