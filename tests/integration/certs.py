"""Throwaway certificates for the TLS tests, made with the openssl CLI: a CA, a
server certificate for localhost and 127.0.0.1 (subject alternative names), a
client certificate, and a second, unrelated CA with its own client certificate
("stranger"). Shared by the gRPC and HTTPS tests."""

from __future__ import annotations

import subprocess
from pathlib import Path


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(folder: Path, name: str):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
            "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN=inferd test {name}", cwd=folder)


def make_cert(folder: Path, name: str, ca: str, extensions: str):
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
            f"{name}.csr", "-subj", f"/CN={name}", cwd=folder)
    (folder / f"{name}.ext").write_text(extensions)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext",
            cwd=folder)


def make_test_certs(folder: Path, strangers: bool = True) -> Path:
    """ca.{crt,key}, server.{crt,key}, client.{crt,key} in `folder`; with
    `strangers`, also other_ca and stranger (a client certificate it signed)."""
    make_ca(folder, "ca")
    make_cert(folder, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                      "extendedKeyUsage=serverAuth\n")
    make_cert(folder, "client", "ca", "extendedKeyUsage=clientAuth\n")
    if strangers:
        make_ca(folder, "other_ca")
        make_cert(folder, "stranger", "other_ca", "extendedKeyUsage=clientAuth\n")
    return folder
