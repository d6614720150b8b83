"""An S3-compatible store for the cloud repository tests: moto's server mode
(PyPI `moto[server]`, pinned in requirements-test.txt) started on a free port,
with IAM checks switched on after the setup, so every request inferd sends
must carry a valid AWS Signature V4 of a known key; and FaultProxy, a small
HTTP proxy in front of it that counts requests and injects the faults moto
cannot (throttling, truncated bodies), over real HTTP.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from util import wait_until  # noqa: E402

REGION = "us-east-1"
ADMIN_POLICY = json.dumps({"Version": "2012-10-17",
                           "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MotoS3:
    """moto_server on 127.0.0.1:<port>; `start_auth()` creates an IAM user with
    an access key allowed everything and from then on checks every request's
    signature (moto's INITIAL_NO_AUTH_ACTION_COUNT set through its API)."""

    def __init__(self, log_path: Path):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(self._up, timeout=60)
        self.key_id, self.secret = "", ""

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"moto_server exited with {self.process.returncode}")
        try:
            return requests.get(self.endpoint + "/moto-api/", timeout=1).status_code == 200
        except requests.ConnectionError:
            return False

    def client(self, service: str = "s3", key_id: str = "testing", secret: str = "testing"):
        import boto3
        return boto3.client(service, endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=key_id, aws_secret_access_key=secret)

    def new_key(self, user: str) -> tuple[str, str]:
        """An access key of a new IAM user allowed everything."""
        iam = self.client("iam", self.key_id or "testing", self.secret or "testing")
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=ADMIN_POLICY)
        key = iam.create_access_key(UserName=user)["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"]

    def start_auth(self) -> None:
        self.key_id, self.secret = self.new_key("inferd")
        requests.post(self.endpoint + "/moto-api/reset-auth", data=b"0", timeout=5).raise_for_status()

    def s3(self):
        return self.client("s3", self.key_id, self.secret)

    def upload(self, bucket: str, prefix: str, folder: Path) -> None:
        """Every file under `folder` as <prefix>/<relative path>."""
        s3 = self.s3()
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                key = f"{prefix}/{path.relative_to(folder).as_posix()}".lstrip("/")
                s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._log.close()


class FaultProxy:
    """Forwards every request to `upstream` unchanged (the Host header too, so
    signatures still match) and counts them by (method, path without query).
    `fail_next(path, kind, times)` makes the next `times` GETs of `path` fail:
    kind "throttle" answers 503 SlowDown, "truncate" sends half the body and
    closes the connection."""

    def __init__(self, upstream_port: int):
        self.counts: Counter = Counter()
        self.faults: dict[str, list[str]] = {}
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                proxy._forward(self)

            do_HEAD = do_PUT = do_POST = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.upstream_port = upstream_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def fail_next(self, path: str, kind: str, times: int = 1) -> None:
        with self.lock:
            self.faults.setdefault(path, []).extend([kind] * times)

    def gets(self, path: str) -> int:
        with self.lock:
            return self.counts[("GET", path)]

    def object_gets(self) -> int:
        """GETs of objects (listings are GETs of the bucket with a query)."""
        with self.lock:
            return sum(n for (method, path), n in self.counts.items()
                       if method == "GET" and path.count("/") >= 2)

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?")[0]
        with self.lock:
            self.counts[(handler.command, path)] += 1
            pending = self.faults.get(path, [])
            fault = pending.pop(0) if pending and handler.command == "GET" else None
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        if fault == "throttle":
            self._reply(handler, 503, {"Content-Type": "application/xml"},
                        b"<Error><Code>SlowDown</Code><Message>Please reduce your request "
                        b"rate.</Message></Error>")
            return
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        upstream.request(handler.command, handler.path, body=body, headers=dict(handler.headers))
        response = upstream.getresponse()
        data = response.read()
        headers = {k: v for k, v in response.getheaders()
                   if k.lower() not in ("content-length", "transfer-encoding", "connection")}
        upstream.close()
        if fault == "truncate" and len(data) > 1:
            handler.send_response(response.status)
            for k, v in headers.items():
                handler.send_header(k, v)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        self._reply(handler, response.status, headers, data, head=handler.command == "HEAD")

    @staticmethod
    def _reply(handler, status: int, headers: dict, data: bytes, head: bool = False) -> None:
        handler.send_response(status)
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        if not head:
            handler.wfile.write(data)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
