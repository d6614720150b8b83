"""The Google Cloud Storage and Azure Blob emulators the repository tests start.

Both are installed once by scripts/install-storage-emulators.sh (fake-gcs-server
built from the Go module proxy, Azurite from the npm registry, cached under
~/.cache/inferd) and started here on free loopback ports, in memory. Objects are
written through each service's own REST API: GCS's JSON upload, and Azure's Put
Blob signed with Shared Key by the small signer below (written from Microsoft's
description, apart from inferd's C++ one, so each checks the other against
Azurite, which verifies every signature).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import shlex
import socket
import subprocess
import urllib.parse
from email.utils import formatdate
from functools import lru_cache
from pathlib import Path

import requests

from util import REPO_ROOT, wait_until

START_TIMEOUT_S = 60


@lru_cache(maxsize=None)
def installed() -> dict[str, str]:
    """{"INFERD_FAKE_GCS_SERVER": path, "INFERD_AZURITE": path}, installing what is missing."""
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts/install-storage-emulators.sh")],
                         check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            found[name] = value
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Emulator:
    """A child process serving HTTP on 127.0.0.1:port, its output in a log file."""

    def __init__(self, args: list[str], port: int, log_path: Path, probe: str):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.process = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        try:
            wait_until(lambda: self._answers(probe), timeout=START_TIMEOUT_S,
                       what=lambda: f"{args[0]} answering on {self.url} ({self.log_tail()})")
        except BaseException:
            self.stop()
            raise

    def _answers(self, path: str) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"emulator exited with {self.process.returncode}: "
                                 f"{self.log_tail()}")
        try:
            requests.get(self.url + path, timeout=2)
            return True
        except requests.ConnectionError:
            return False

    def log_tail(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


class FakeGcs(_Emulator):
    """fake-gcs-server over plain HTTP, objects in memory."""

    def __init__(self, log_path: Path):
        port = free_port()
        super().__init__([installed()["INFERD_FAKE_GCS_SERVER"], "-scheme", "http",
                          "-host", "127.0.0.1", "-port", str(port), "-backend", "memory",
                          "-log-level", "warn"],
                         port, log_path, "/storage/v1/b")

    def create_bucket(self, bucket: str) -> None:
        requests.post(f"{self.url}/storage/v1/b", json={"name": bucket},
                      timeout=10).raise_for_status()

    def put(self, bucket: str, name: str, data: bytes) -> str:
        """Uploads `data` as object `name`; returns its new generation."""
        resp = requests.post(f"{self.url}/upload/storage/v1/b/{bucket}/o",
                             params={"uploadType": "media", "name": name}, data=data, timeout=10)
        resp.raise_for_status()
        return resp.json()["generation"]

    def put_tree(self, bucket: str, prefix: str, files: dict[str, bytes]) -> None:
        for relative, data in files.items():
            self.put(bucket, f"{prefix}/{relative}", data)


class Azurite(_Emulator):
    """Azurite's Blob service, path-style (http://127.0.0.1:port/devstoreaccount1)."""

    ACCOUNT = "devstoreaccount1"
    # The development account's key, the same in every Azurite (Microsoft documents it).
    KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
           "KBHBeksoGMGw==")
    VERSION = "2023-11-03"

    def __init__(self, log_path: Path):
        port = free_port()
        super().__init__(["node", installed()["INFERD_AZURITE"], "--blobHost", "127.0.0.1",
                          "--blobPort", str(port), "--inMemoryPersistence",
                          "--disableTelemetry"],
                         port, log_path, "/")
        self.endpoint = f"{self.url}/{self.ACCOUNT}"

    def connection_string(self, key: str | None = None) -> str:
        return (f"DefaultEndpointsProtocol=http;AccountName={self.ACCOUNT};"
                f"AccountKey={key or self.KEY};BlobEndpoint={self.endpoint};")

    def _signed(self, method: str, path: str, query: dict[str, str],
                headers: dict[str, str], body: bytes = b"") -> requests.Response:
        headers = {**headers, "x-ms-date": formatdate(usegmt=True), "x-ms-version": self.VERSION}
        length = str(len(body)) if body else ""
        standard = ["", "", length, "", headers.get("Content-Type", ""), "", "", "", "", "", ""]
        ms_headers = "".join(f"{k.lower()}:{v.strip()}\n" for k, v in
                             sorted(headers.items(), key=lambda kv: kv[0].lower())
                             if k.lower().startswith("x-ms-"))
        resource = f"/{self.ACCOUNT}/{self.ACCOUNT}{path}" + "".join(
            f"\n{k.lower()}:{v}" for k, v in sorted(query.items()))
        to_sign = "\n".join([method, *standard, ms_headers + resource])
        signature = base64.b64encode(hmac.new(base64.b64decode(self.KEY), to_sign.encode(),
                                              hashlib.sha256).digest()).decode()
        headers["Authorization"] = f"SharedKey {self.ACCOUNT}:{signature}"
        url = f"{self.endpoint}{urllib.parse.quote(path)}"
        resp = requests.request(method, url, params=query, headers=headers, data=body,
                                timeout=10)
        if resp.status_code >= 300:
            raise AssertionError(f"{method} {url}: HTTP {resp.status_code}: {resp.text}")
        return resp

    def account_sas(self, permissions: str = "rl", key: str | None = None) -> str:
        """An account SAS token (query string) for blobs, valid until 2035."""
        version, expiry = "2019-12-12", "2035-01-01T00:00:00Z"
        to_sign = "\n".join([self.ACCOUNT, permissions, "b", "sco", "", expiry, "",
                             "https,http", version, ""])
        signature = base64.b64encode(hmac.new(base64.b64decode(key or self.KEY),
                                              to_sign.encode(), hashlib.sha256).digest())
        return urllib.parse.urlencode({"sv": version, "ss": "b", "srt": "sco",
                                       "sp": permissions, "se": expiry, "spr": "https,http",
                                       "sig": signature.decode()})

    def create_container(self, container: str) -> None:
        self._signed("PUT", f"/{container}", {"restype": "container"}, {})

    def delete_container(self, container: str) -> None:
        self._signed("DELETE", f"/{container}", {"restype": "container"}, {})

    def put(self, container: str, name: str, data: bytes) -> str:
        """Uploads `data` as block blob `name`; returns its new ETag."""
        resp = self._signed("PUT", f"/{container}/{name}", {},
                            {"x-ms-blob-type": "BlockBlob",
                             "Content-Type": "application/octet-stream"}, data)
        return resp.headers["ETag"]

    def put_tree(self, container: str, prefix: str, files: dict[str, bytes]) -> None:
        for relative, data in files.items():
            self.put(container, f"{prefix}/{relative}", data)
